"""A die's body from its pixels: how long and wide the region of its body colour is (a die on
its edge shows a side face beside its top face), and, for a lone die coloured like the board
around it, its silhouette against that board. `vision.dice.DiceReader` calls a die cocked from
these shapes where no network judges it (photos without a calibrated camera)."""

from __future__ import annotations

import bisect
import math

import cv2
import numpy as np

#: How much finer than the outline crop a flat die's side faces are taken away (see
#: `_without_lean`).
LEAN_DETAIL = 4


#: A body outline this many die sizes long has run into a background of the die's colour: no
#: verdict. One narrower than the minimum is a sliver (pips, a shadow), not a die's whole body;
#: one wider than the maximum is a flat die grown on all sides by its blurred shadow.
OUTLINE_LEAK = 2.0
OUTLINE_MIN_SHORT = 0.95
#: A die on its edge spans at most cos t + sin t <= sqrt(2) die sizes, whatever its tilt t,
#: plus the renderer's strongest motion blur (3.5 px on a 13 px die). A longer outline is the
#: body colour running on into something of its colour (a light point's tip touching a light
#: die, a real die's shadow): no verdict from the outline; a die leaning on a checker of its
#: own colour is left to the classifier's cocked class.
OUTLINE_MAX_LONG = math.sqrt(2.0) + 3.5 / 13.0
OUTLINE_MAX_SHORT = 1.4
#: Shades k of the body colour B that count as body, and how far (relative to |B|, plus grey
#: levels) a pixel may lie from k*B.
SHADES = (0.45, 1.25)
SHADE_TOLERANCE = (0.08, 12.0)
#: Larger dice are shrunk to this width first: the check is tuned at the table camera's scale
#: (~14 px) and a 40 px die costs seven times the work for nothing.
OUTLINE_SIZE_PX = 16.0


#: The silhouette is the fallback for a die alone: no other die's centre within this many die
#: sizes (dice pushed together merge into one silhouette; on the train photos, where dice lie
#: in heaps, a tenth of the dice whose body colour leaks would otherwise be called cocked).
ALONE_DIE_SIZES = 1.8
#: A silhouette this many die sizes long (and not wider than the maximum) shows a side face.
#: Rendered light dice on the Mensch board: flat ≤ 1.50 long, cocked 1.52–1.92 (1.17–1.51
#: wide). 1.6, not 1.5: a die size given 8 % too small (`vision eval --die-size 15` on 16 px
#: dice) made a tenth of the flat ones 1.5–1.6 long.
SILHOUETTE_LONG = 1.6
SILHOUETTE_MAX_SHORT = 1.6
#: A pixel this far (BGR distance) from the board colour around the die belongs to the die, its
#: shadow or its edges: far above sensor noise (σ ≤ 5), below a shaded side face's step.
SILHOUETTE_STEP = 30.0


def _outline_crop(
    image: np.ndarray, cx: float, cy: float, size: float
) -> tuple[np.ndarray, float, float, float, float]:
    """The float crop 1.2 die sizes around the centre (shrunk to `OUTLINE_SIZE_PX` dice), the
    centre in it, the die size in it and the crop's scale."""
    h, w = image.shape[:2]
    r = round(1.2 * size)
    x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
    x1, y1 = min(w, int(cx) + r + 1), min(h, int(cy) + r + 1)
    crop = image[y0:y1, x0:x1]
    ccx, ccy, factor = cx - x0, cy - y0, 1.0
    if size > OUTLINE_SIZE_PX:
        factor = OUTLINE_SIZE_PX / size
        crop = cv2.resize(crop, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        ccx, ccy, size = ccx * factor, ccy * factor, OUTLINE_SIZE_PX
    return crop.astype(np.float32), ccx, ccy, size, factor


def _central_region(mask: np.ndarray, ccx: float, ccy: float, size: float,
                    connectivity: int, lean: tuple[float, float]) -> tuple[float, float]:
    """Long and short side (in die sizes) of the minimum-area rectangle around the part of
    `mask` that covers most of the die's centre, less the `lean` (in die sizes) a flat die's
    top face shows beyond its base; (0, 0) when none does."""
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=connectivity)
    yy, xx = np.ogrid[: mask.shape[0], : mask.shape[1]]
    central = ((xx - ccx) ** 2 + (yy - ccy) ** 2 <= (0.3 * size) ** 2) & (mask > 0)
    votes = np.bincount(labels[central], minlength=count)
    if count < 2 or votes[1:].max() == 0:
        return 0.0, 0.0
    region = _without_lean((labels == int(np.argmax(votes[1:])) + 1).astype(np.uint8),
                           lean[0] * size, lean[1] * size)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 0.0, 0.0
    _, (a, b), _ = cv2.minAreaRect(np.concatenate(contours))
    return max(a, b) / size, min(a, b) / size


def _without_lean(region: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The region eroded along the segment (dx, dy) px: what a flat die's outline (its base
    swept towards its top face) leaves is the face itself. Eroded at `LEAN_DETAIL` times the
    resolution, so a shift of a pixel and a half takes a pixel and a half away, not one or two.
    """
    if math.hypot(dx, dy) < 0.5:
        return region
    k = LEAN_DETAIL
    fx, fy = round(k * dx / 2), round(k * dy / 2)
    r = max(abs(fx), abs(fy))
    kernel = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    cv2.line(kernel, (r - fx, r - fy), (r + fx, r + fy), 1, 1)
    fine = cv2.resize(region, None, fx=k, fy=k, interpolation=cv2.INTER_NEAREST)
    fine = cv2.erode(fine, kernel, anchor=(r, r))
    coarse = cv2.resize(fine.astype(np.float32), (region.shape[1], region.shape[0]),
                        interpolation=cv2.INTER_AREA)
    return (coarse >= 0.5).astype(np.uint8)


def silhouette(image: np.ndarray, cx: float, cy: float, size: float,
               lean: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """Long and short side, in die sizes, of what stands out from the board around the die.

    The board colour is the median of the crop beyond one die size from the centre; pixels
    `SILHOUETTE_STEP` away from it (pips, edges, a shaded side face, the shadow), closed over
    a quarter of a die so they join up, give the region covering the centre: about 1.3 x 1.3
    for a flat light die on a light board, 1.5-1.9 long for a cocked one.
    """
    crop, ccx, ccy, size, _ = _outline_crop(image, cx, cy, size)
    yy, xx = np.ogrid[: crop.shape[0], : crop.shape[1]]
    ring = (xx - ccx) ** 2 + (yy - ccy) ** 2 >= size**2
    if ring.sum() < 10:
        return 0.0, 0.0
    board = np.median(crop[ring], axis=0)
    standing_out = (np.linalg.norm(crop - board, axis=2) > SILHOUETTE_STEP).astype(np.uint8)
    k = max(1, round(0.25 * size)) | 1
    joined = cv2.morphologyEx(
        standing_out, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    return _central_region(joined, ccx, ccy, size, 8, lean)


def body_outline(
    image: np.ndarray, cx: float, cy: float, size: float, lean: tuple[float, float] = (0.0, 0.0),
    neighbours: np.ndarray | None = None,
) -> tuple[float, float]:
    """Long and short side, in die sizes, of the region coloured like the die's body.

    The body colour B is the larger colour cluster around the centre. A pixel
    belongs to the body when it is a shade k*B with 0.45 < k < 1.25: the lit top face and a side
    face in shadow both do, the board around mostly does not. The connected region covering the
    centre gives a minimum-area rectangle: about 1 x 1 for a flat die (a little more with its
    shadow for dark dice), about 1.4 x 1.1 for a die tilted so one side face shows. (0, 0)
    when no region is found. `lean`: the side faces a flat die shows the camera, taken away
    (see `_central_region`). `neighbours`: centres (image coordinates) of other dice; pixels
    nearer to one of them than to this die's centre are not this die's — unless the whole
    region has run into the background (`OUTLINE_LEAK`): that one is measured whole and gives
    no verdict, for in a heap of photographed dice a piece of it can look like a side face.
    """
    crop, ccx, ccy, size, scale = _outline_crop(image, cx, cy, size)
    q = 0.35 * size
    core = crop[max(0, int(ccy - q)) : int(ccy + q) + 1, max(0, int(ccx - q)) : int(ccx + q) + 1]
    if core.size == 0:
        return 0.0, 0.0
    body = _body_colour(core.reshape(-1, 3))
    energy = float(body @ body) + 1e-6
    shade = (crop @ body) / energy
    off_colour = np.linalg.norm(crop - shade[..., None] * body, axis=2)
    tolerance = SHADE_TOLERANCE[0] * np.sqrt(energy) + SHADE_TOLERANCE[1]
    mask = (shade > SHADES[0]) & (shade < SHADES[1]) & (off_colour < tolerance)
    whole = _central_region(mask, ccx, ccy, size, 4, lean)
    if neighbours is None or len(neighbours) == 0 or whole[0] >= OUTLINE_LEAK:
        return whole
    yy, xx = np.ogrid[: mask.shape[0], : mask.shape[1]]
    own = (xx - ccx) ** 2 + (yy - ccy) ** 2
    for nx, ny in (np.asarray(neighbours, np.float64) - (cx, cy)) * scale:
        mask &= own <= (xx - ccx - nx) ** 2 + (yy - ccy - ny) ** 2
    return _central_region(mask, ccx, ccy, size, 4, lean)


def _body_colour(pixels: np.ndarray) -> np.ndarray:
    """The colour of the larger of two brightness clusters: the body, not the pips (which blur
    into a large share of a small die's centre, so a plain median can land between the two).

    Two-means on brightness over the sorted values and their prefix sums: each step is a
    bisection and two divisions instead of passes over every pixel (this runs once per die).
    """
    bright = pixels.sum(axis=1)
    ordered = np.sort(bright)
    sums = np.cumsum(ordered, dtype=np.float64).tolist()
    ordered = ordered.tolist()
    n = len(ordered)
    split = (ordered[0] + ordered[-1]) / 2
    for _ in range(8):
        k = bisect.bisect_left(ordered, split)
        if k in (0, n):
            return np.median(pixels, axis=0)
        split = (sums[k - 1] / k + (sums[-1] - sums[k - 1]) / (n - k)) / 2
    dark = bright < split
    return np.median(pixels[dark] if 2 * dark.sum() >= len(dark) else pixels[~dark], axis=0)
