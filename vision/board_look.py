"""What the empty board and each piece colour look like, and what every pixel of a frame shows.

Nothing here knows a print or a palette. The empty board is remembered pixel by pixel (a
top-down warp, `vision.lens.warp_board`); a later frame is first brought to the empty board's
light (a smooth gain per colour channel, fitted to the pixels that did not change), then every
pixel is explained as the empty board (allowing a millimetre of shift: the print's edges must
not count as change), as the empty board in a shadow (darker, same hue), as one of the learned
piece colours, or not at all (a hand, a sleeve, a die, something new on the board).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Pixel labels: the empty board, the empty board in a shadow, nothing learned, the empty
#: board but a little changed (a white checker on a white point differs by little more than
#: noise, but it differs), then one per piece colour.
BACKGROUND, SHADOW, UNEXPLAINED, WEAK = 0, 1, 2, 3
FIRST_PIECE = 4
#: Sensor and JPEG noise (grey levels) assumed when no frame of the empty board measured it, and
#: the share of a pixel's value the light may wander by, before a pixel counts as changed.
NOISE = 10.0
RELATIVE_NOISE = 0.015
#: Measured noise never counts as less than this (grey levels).
LEAST_NOISE = 3.0
#: A pixel darker than the empty board by this factor range, with the same hue, is a shadow.
SHADOW_RANGE = (0.2, 0.93)
#: How far (in chromaticity) a shadow's hue may move: a shadow is lit by the room, not the lamp.
SHADOW_HUE = 0.035
#: A pixel farther than this (squared, in units of the spread) from everything is unexplained.
UNEXPLAINED_LIMIT = 20.0
#: A pixel this close to the empty board (squared distance in noise units, three channels) is
#: the empty board whatever else it resembles; one farther than `CHANGED` is not.
SURELY_UNCHANGED = 3.0
CHANGED = 9.0
#: A piece colour is learned from at least this many pixels.
MIN_PIXELS = 40
#: Block size (mm) of the light fit.
LIGHT_BLOCK = 12


def features(bgr: np.ndarray) -> np.ndarray:
    """(N, 3) BGR → (N, 3): blue and red share of the sum (hue, the same in brighter or dimmer
    light) and the log of the brightness; offsets keep dark pixels' hue steady."""
    f = np.asarray(bgr, np.float32).reshape(-1, 3)
    total = f.sum(axis=1)
    b = (f[:, 0] + 8.0) / (total + 24.0)
    r = (f[:, 2] + 8.0) / (total + 24.0)
    return np.column_stack([b, r, np.log(total / 3.0 + 4.0)]).astype(np.float32)


@dataclass(frozen=True, slots=True)
class PieceColour:
    """One piece colour: mean and inverse covariance of its pixels' features."""

    name: str
    mean: tuple[float, float, float]
    inv_cov: tuple[float, ...]  # 9 values

    @classmethod
    def learn(cls, name: str, bgr: np.ndarray) -> PieceColour:
        """From the changed pixels of pieces of this colour; the extreme tenth (specular
        highlights, the darkest side) is left out of the mean but widens the spread."""
        feats = features(bgr)
        centre = np.median(feats, axis=0)
        dist = np.abs(feats - centre).sum(axis=1)
        core = feats[dist <= np.quantile(dist, 0.9)]
        cov = np.cov(core.T) * 1.5 + np.diag([2e-4, 2e-4, 0.03])
        return cls(name, tuple(float(v) for v in core.mean(axis=0)),
                   tuple(float(v) for v in np.linalg.inv(cov).ravel()))

    def distances(self, feats: np.ndarray) -> np.ndarray:
        diff = feats - np.array(self.mean, np.float32)
        inv = np.array(self.inv_cov, np.float32).reshape(3, 3)
        return ((diff @ inv) * diff).sum(axis=1)

    def to_json(self) -> dict:
        return {"name": self.name, "mean": list(self.mean), "inv_cov": list(self.inv_cov)}

    @classmethod
    def from_json(cls, data: dict) -> PieceColour:
        mean = tuple(float(v) for v in data["mean"])
        inv = tuple(float(v) for v in data["inv_cov"])
        if len(mean) != 3 or len(inv) != 9:
            raise ValueError(f"piece colour {data.get('name')!r} is malformed")
        return cls(str(data["name"]), mean, inv)  # type: ignore[arg-type]


@dataclass(frozen=True)
class EmptyBoard:
    """The empty board's warp and what it tolerates: per pixel the lowest and highest value
    within a millimetre (a small shift of the print is not a change), and the noise per colour
    channel (grey levels) that two pictures of the same empty place differ by."""

    warp: np.ndarray  # (H, W, 3) uint8
    noise: tuple[float, float, float] = (NOISE, NOISE, NOISE)

    def __post_init__(self) -> None:
        kernel = np.ones((3, 3), np.uint8)
        warp = self.warp.astype(np.float32)
        object.__setattr__(self, "low", cv2.erode(warp, kernel))
        object.__setattr__(self, "high", cv2.dilate(warp, kernel))
        object.__setattr__(self, "_blocks", _block_means(self.warp))

    def light(self, frame_warp: np.ndarray) -> Light:
        """The gain per channel that brings `frame_warp` to this board's light: a smooth
        surface fitted to the blocks that did not change (pieces, hands and shadows are left
        out by refitting without the blocks that fit worst)."""
        ratio = (_block_means(frame_warp) + 2.0) / (self._blocks + 2.0)
        hb, wb = ratio.shape[:2]
        ys, xs = np.mgrid[0:hb, 0:wb]
        basis = _basis((xs.ravel() + 0.5) / wb - 0.5, (ys.ravel() + 0.5) / hb - 0.5)
        values = np.log(ratio.reshape(-1, 3))
        keep = np.ones(len(basis), bool)
        coeffs = np.zeros((6, 3))
        for _ in range(4):
            coeffs, *_ = np.linalg.lstsq(basis[keep], values[keep], rcond=None)
            residual = np.abs(basis @ coeffs - values).max(axis=1)
            keep = residual <= max(0.05, float(np.quantile(residual, 0.6)))
        h, w = frame_warp.shape[:2]
        return Light(coeffs.astype(np.float32), _span(w, h), (w, h))


def _basis(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones_like(x), x, y, x * x, y * y, x * y])


@dataclass(frozen=True)
class Light:
    """A frame's light against the empty board's: a smooth gain per colour channel."""

    coeffs: np.ndarray  # (6, 3) log-gain over the quadratic basis
    span: tuple[int, int]  # the pixels (w, h) the basis's -0.5..0.5 spans
    size: tuple[int, int]  # the warp's (w, h)

    def at(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """(N, 3) gains at warp pixels (ys, xs)."""
        x = (np.asarray(xs, np.float32).ravel() + 0.5) / self.span[0] - 0.5
        y = (np.asarray(ys, np.float32).ravel() + 0.5) / self.span[1] - 0.5
        return np.exp(_basis(x, y) @ self.coeffs)

    def correct(self, warp: np.ndarray) -> np.ndarray:
        """The whole warp in the empty board's light (for calibration, not per frame)."""
        h, w = warp.shape[:2]
        ys, xs = np.mgrid[0:h, 0:w]
        gain = self.at(ys, xs).reshape(h, w, 3)
        return np.clip(warp.astype(np.float32) / gain, 0, 255).astype(np.uint8)


def _block_means(warp: np.ndarray) -> np.ndarray:
    h, w = warp.shape[:2]
    hb, wb = max(1, h // LIGHT_BLOCK), max(1, w // LIGHT_BLOCK)
    return cv2.resize(np.ascontiguousarray(warp[:hb * LIGHT_BLOCK, :wb * LIGHT_BLOCK]),
                      (wb, hb), interpolation=cv2.INTER_AREA).astype(np.float32)


@dataclass(frozen=True)
class PixelSet:
    """A fixed set of warp pixels (a board's grid, its lanes or fields) and what the empty
    board shows there, gathered once so that each frame only gathers its own pixels."""

    flat: np.ndarray  # (N,) index into an (H·W) warp
    low: np.ndarray  # (N, 3) the empty board's lowest and highest value within a mm
    high: np.ndarray
    ref: np.ndarray  # (N, 3) the empty board itself
    sigma: np.ndarray  # (N, 3) how far a still pixel may stray
    basis: np.ndarray  # (N, 6) for the light's gain

    @classmethod
    def of(cls, empty: EmptyBoard, ys: np.ndarray, xs: np.ndarray) -> PixelSet:
        ys, xs = np.asarray(ys).ravel(), np.asarray(xs).ravel()
        h, w = empty.warp.shape[:2]
        high = empty.high[ys, xs]
        span = _span(w, h)
        basis = _basis((xs + 0.5) / span[0] - 0.5, (ys + 0.5) / span[1] - 0.5)
        return cls(ys * w + xs, empty.low[ys, xs], high, empty.warp[ys, xs].astype(np.float32),
                   np.array(empty.noise, np.float32) + RELATIVE_NOISE * high,
                   basis.astype(np.float32))

    def values(self, frame: np.ndarray, light: Light | None = None) -> np.ndarray:
        """(N, 3) the frame's pixels, in the empty board's light."""
        px = frame.reshape(-1, 3)[self.flat].astype(np.float32)
        return px if light is None else px / np.exp(self.basis @ light.coeffs)


def visibility(pixels: PixelSet, colour: PieceColour) -> np.ndarray:
    """(N,) per pixel of the set, 1.0 where a piece of this colour (its mean) would clearly
    change the empty board there, 0.0 where the board passes for it: a cream checker on a
    cream point may look like the point itself, and there an unchanged place is no sign of
    an empty one."""
    mean = _bgr_of(np.array([colour.mean], np.float64))
    over = np.maximum(0.0, mean - pixels.high) + np.maximum(0.0, pixels.low - mean)
    return (((over / pixels.sigma) ** 2).sum(axis=1) > CHANGED).astype(np.float64)


def _bgr_of(feats: np.ndarray) -> np.ndarray:
    """`features` undone: (N, 3) features → (N, 3) BGR, clipped to 0..255."""
    total = 3.0 * (np.exp(feats[:, 2]) - 4.0)
    b = feats[:, 0] * (total + 24.0) - 8.0
    r = feats[:, 1] * (total + 24.0) - 8.0
    return np.clip(np.column_stack([b, total - b - r, r]), 0.0, 255.0)


def _span(w: int, h: int) -> tuple[int, int]:
    """The pixels the light's basis spans (-0.5..0.5): whole blocks of the warp."""
    return (max(1, w // LIGHT_BLOCK) * LIGHT_BLOCK, max(1, h // LIGHT_BLOCK) * LIGHT_BLOCK)


def classify(frame: np.ndarray, empty: EmptyBoard, colours: tuple[PieceColour, ...],
             ys: np.ndarray, xs: np.ndarray, shade: np.ndarray | None = None,
             light: Light | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Label the pixels at (ys, xs) of a frame's warp (see `classify_set`)."""
    return classify_set(frame, PixelSet.of(empty, ys, xs), colours, shade, light)


def classify_set(frame: np.ndarray, pixels: PixelSet, colours: tuple[PieceColour, ...],
                 shade: np.ndarray | None = None, light: Light | None = None,
                 quiet_lookalikes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Label a set of pixels of a frame's warp: BACKGROUND, SHADOW, UNEXPLAINED, WEAK or
    FIRST_PIECE + the index of the piece colour. `shade` (per pixel, ≤ 1) says how much a
    shadow around them dims them: a piece standing in an arm's shadow is compared with its
    colour as if lit. `light` brings the frame to the empty board's light (None: it already
    is). With `quiet_lookalikes`, a pixel changed only a little where the empty board itself
    passes for a piece colour (a Mensch house painted like its pawns) is WEAK, not that
    colour: light drifting over the paint must not read as a pawn. Also returns each pixel's
    distance to the empty board, for callers that weigh change."""
    px = pixels.values(frame, light)
    over = np.maximum(0.0, px - pixels.high) + np.maximum(0.0, pixels.low - px)
    d_bg = ((over / pixels.sigma) ** 2).sum(axis=1)
    label = np.zeros(len(px), np.int16)  # BACKGROUND
    # Only what changed is compared with shadows and pieces (most of a board is still).
    idx = np.flatnonzero(d_bg > SURELY_UNCHANGED)
    if len(idx) == 0:
        return label, d_bg
    px, d = px[idx], d_bg[idx]
    fp, fr = features(px), features(pixels.ref[idx])
    darker = np.exp(fp[:, 2] - fr[:, 2])
    hue = np.hypot(fp[:, 0] - fr[:, 0], fp[:, 1] - fr[:, 1])
    shadow = (darker >= SHADOW_RANGE[0]) & (darker <= SHADOW_RANGE[1]) & (hue <= SHADOW_HUE)
    d_shadow = np.where(shadow, (hue / SHADOW_HUE) ** 2 * 4.0 + 2.0, np.inf)
    lit = fp if shade is None else features(px / np.maximum(shade[idx], 0.2)[:, None])
    dist = np.column_stack([d, d_shadow] + [c.distances(lit) for c in colours])
    dist[d > CHANGED, 0] = np.inf  # clearly changed: not the empty board any more
    best_class = dist.argmin(axis=1)
    best = dist[np.arange(len(idx)), best_class]
    sub = np.where(best_class >= 2, best_class + FIRST_PIECE - 2, best_class)
    if quiet_lookalikes:
        for k, colour in enumerate(colours):
            mine = (best_class == 2 + k) & (d <= CHANGED)
            if mine.any():
                mine[mine] = colour.distances(fr[mine]) <= CHANGED
                sub[mine] = WEAK
    sub[best > UNEXPLAINED_LIMIT] = UNEXPLAINED
    sub[sub == BACKGROUND] = WEAK
    label[idx] = sub
    return label, d_bg


def measure_noise(frame: np.ndarray, empty: EmptyBoard, unchanged: np.ndarray
                  ) -> tuple[float, float, float]:
    """Per channel, how far (grey levels) a light-corrected frame strays outside the empty
    board's tolerance where nothing changed (`unchanged`, a boolean mask): half again the
    95th percentile, so that a still place counts as unchanged while a few per cent of odd
    pixels (a printed line blurred otherwise, a piece not in the position) do not count."""
    ys, xs = np.nonzero(unchanged)
    px = frame[ys, xs].astype(np.float32)
    over = (np.maximum(0.0, px - empty.high[ys, xs]) + np.maximum(0.0, empty.low[ys, xs] - px)
            - RELATIVE_NOISE * empty.high[ys, xs])
    level = (1.5 * np.quantile(np.maximum(over, 0.0), 0.95, axis=0) if len(px)
             else np.full(3, NOISE))
    return tuple(float(max(LEAST_NOISE, v)) for v in level)  # type: ignore[return-value]


#: A shadow's darkening is spread this many grid cells around where it is seen.
SHADE_REACH = 5


def shade_map(values: np.ndarray, ref: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """How much shadows dim each place of a grid: `values` and `ref` (N, 3) are a frame's
    (in the empty board's light) and the empty board's pixels of the grid, `labels` their
    labels in the grid's shape. The darkening of the pixels labelled SHADOW is spread to
    their neighbours (the pieces standing in the shadow); 1 where no shadow falls."""
    px = values.sum(axis=-1).reshape(labels.shape)
    base = ref.sum(axis=-1).reshape(labels.shape)
    seen = (labels == SHADOW).astype(np.float32)
    ratio = np.where(seen > 0, np.clip((px + 12.0) / (base + 12.0), 0.2, 1.0), 0.0)
    size = 2 * SHADE_REACH + 1
    weight = cv2.blur(seen, (size, size))
    spread = cv2.blur(ratio.astype(np.float32), (size, size))
    return np.where(weight > 0.15, spread / np.maximum(weight, 1e-6), 1.0).astype(np.float32)
