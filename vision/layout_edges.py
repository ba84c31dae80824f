"""Where a board's print must show edges, and how well a picture agrees.

Every board print draws its layout: triangles for the points, a frame round the playing area,
circles round the Mensch fields. Whatever the colours, the picture's brightness changes across
those lines and less a few millimetres beside them. `LayoutEdges` holds sample points on the
lines and beside them (in board mm); `agreement` says how much stronger the picture's gradient
is on the lines than beside them for a given homography: about 1 for an outline that is not
the board (a table's edge, one half of a board, a tray), well above 1 when the fields sit
where the print has them. It is how a found outline is checked and refined, without knowing
the print's colours.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import BackgammonGeometry, MaednGeometry, Rect

#: How far beside a line (mm) the "off" samples lie: far enough to leave a line blurred by the
#: camera, near enough to stay on the same field or point.
OFF_MM = 3.5
#: Spacing of the samples along each line (mm).
STEP_MM = 4.0


@dataclass(frozen=True, slots=True)
class LayoutEdges:
    """Samples on the print's lines (`on`, (N, 2) mm) and beside them on either side
    (`left`, `right`), and which group each belongs to ("outline", "frame", "fields", ...)."""

    on: np.ndarray
    left: np.ndarray
    right: np.ndarray
    groups: np.ndarray  # (N,) group index
    names: tuple[str, ...]


def _segment(a: tuple[float, float], b: tuple[float, float]) -> np.ndarray:
    length = math.dist(a, b)
    n = max(2, int(length / STEP_MM))
    t = (np.arange(n) + 0.5) / n
    return np.column_stack([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t])


def _rect_lines(rect: Rect) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    x0, y0, x1, y1 = rect
    return [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)),
            ((x0, y1), (x0, y0))]


@functools.lru_cache(maxsize=16)
def layout_edges(geo: BackgammonGeometry | MaednGeometry, off_mm: float = OFF_MM
                 ) -> LayoutEdges:
    """The lines every print of this geometry draws; the side samples `off_mm` beside them
    (further on a picture with few pixels per mm, where a line's blur spreads wider)."""
    groups: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}

    def line(group: str, a: tuple[float, float], b: tuple[float, float]) -> None:
        pts = _segment(a, b)
        d = np.array(b, np.float64) - np.array(a, np.float64)
        normal = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-9)
        groups.setdefault(group, []).append((pts, np.repeat(normal[None], len(pts), 0)))

    outline = (0.0, 0.0, geo.width, geo.height)
    for a, b in _rect_lines(outline):
        line("outline", a, b)
    if isinstance(geo, BackgammonGeometry):
        for half in geo.half_rects():
            for a, b in _rect_lines(half):
                line("halves", a, b)
        for tray in geo.tray_rects().values():
            for a, b in _rect_lines(tray):
                line("trays", a, b)
        for point in range(1, 25):
            left, right, tip = geo.point_triangle(point)
            line("points", left, tip)
            line("points", right, tip)
    else:
        if geo.frame > 0:
            f = geo.frame
            for a, b in _rect_lines((f, f, geo.width - f, geo.height - f)):
                line("frame", a, b)
        r = geo.field_diameter / 2
        n = max(8, int(2 * math.pi * r / STEP_MM))
        turn = np.linspace(0, 2 * math.pi, n, endpoint=False)
        ring = np.column_stack([np.cos(turn), np.sin(turn)])
        for _, centre, _ in geo.fields():
            pts = np.array(centre) + r * ring
            groups.setdefault("fields", []).append((pts, ring.copy()))
    names = tuple(groups)
    on, normals, index = [], [], []
    for i, name in enumerate(names):
        for pts, nrm in groups[name]:
            on.append(pts)
            normals.append(nrm)
            index.append(np.full(len(pts), i))
    on_arr = np.concatenate(on)
    nrm_arr = np.concatenate(normals)
    return LayoutEdges(on_arr, on_arr - off_mm * nrm_arr, on_arr + off_mm * nrm_arr,
                       np.concatenate(index), names)


def gradient_image(image: np.ndarray) -> np.ndarray:
    """Gradient magnitude of a slightly blurred picture (colour edges count: the largest
    channel's), float32."""
    blurred = cv2.GaussianBlur(image, (5, 5), 1.2).astype(np.float32)
    gx = cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.sqrt(gx * gx + gy * gy)
    return mag.max(axis=2) if mag.ndim == 3 else mag


def sample(gradient: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Bilinear samples of `gradient` at (N, 2) pixel positions (0 outside the picture)."""
    pts = pixels.astype(np.float32).reshape(-1, 1, 2)
    out = cv2.remap(gradient, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.ravel()


@dataclass(frozen=True, slots=True)
class Agreement:
    """How the picture agrees with the layout: per group the ratio of the gradient on the
    lines to the gradient beside them, and `score` (the median group's ratio)."""

    ratios: dict[str, float]

    @property
    def score(self) -> float:
        """The geometric mean of the groups' ratios: one group of lines that does not agree
        (the fields, when a frame's inner edge is taken for the board's outline) pulls it
        down."""
        if not self.ratios:
            return 0.0
        return float(np.exp(np.mean(np.log(list(self.ratios.values())))))

    @property
    def weakest(self) -> tuple[str, float]:
        name = min(self.ratios, key=self.ratios.__getitem__)
        return name, self.ratios[name]


def agreement(edges: LayoutEdges, gradient: np.ndarray,
              to_image: Callable[[np.ndarray], np.ndarray]) -> Agreement:
    """Compare the picture's `gradient` with the layout seen through `to_image` (board mm →
    picture px). A line counts where it is stronger than the stronger of its two sides."""
    on = sample(gradient, to_image(edges.on))
    side = np.maximum(sample(gradient, to_image(edges.left)),
                      sample(gradient, to_image(edges.right)))
    ratios = {}
    for i, name in enumerate(edges.names):
        sel = edges.groups == i
        ratios[name] = float((on[sel].mean() + 1.0) / (side[sel].mean() + 1.0))
    return Agreement(ratios)


def off_distance(image_size: tuple[int, int], board_size: tuple[float, float]) -> float:
    """How far beside a line to sample for a board that fills about half the picture: at
    least `OFF_MM`, and at least 3.5 pixels (the gradient's own blur), rounded to 0.5 mm."""
    px_per_mm = float(np.sqrt(0.5 * image_size[0] * image_size[1] /
                              (board_size[0] * board_size[1])))
    return round(2 * max(OFF_MM, 3.5 / px_per_mm)) / 2


#: The outline, frame, trays and bar may stand above the print (or sink below it): seen at a
#: slant their edges lie a few millimetres off the print's plane.
GROUP_SLACK = 4.0
#: A line sample is a hit when the gradient on it (within a millimetre) beats both sides by
#: this many grey levels per pixel.
HIT_MARGIN = 8.0


def hit_rate(edges: LayoutEdges, gradient: np.ndarray,
             to_image: Callable[[np.ndarray], np.ndarray], group: str,
             shift: tuple[float, float] = (0.0, 0.0), slack: float = 1.0) -> float:
    """The share of one group's line samples where the picture has an edge: the gradient on
    the line, or up to `slack` mm to either side (thin printed lines, a little error, a
    frame's top edge standing above the print), stronger than beside it. The layout is moved
    by `shift` mm on the board."""
    keep = edges.groups == edges.names.index(group)
    on_mm = edges.on[keep] + np.array(shift)
    normal = edges.right[keep] - edges.on[keep]
    off = float(np.linalg.norm(normal[0])) if len(normal) else OFF_MM
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    reach = np.arange(-slack, slack + 1e-9, 1.0)
    on = np.maximum.reduce([sample(gradient, to_image(on_mm + k * normal)) for k in reach])
    beside = off + slack - 1.0
    side = np.maximum(sample(gradient, to_image(on_mm - beside * normal)),
                      sample(gradient, to_image(on_mm + beside * normal)))
    return float(np.mean(on > side + HIT_MARGIN))


def sharpness(edges: LayoutEdges, gradient: np.ndarray,
              to_image: Callable[[np.ndarray], np.ndarray], period: float
              ) -> tuple[float, float, dict[str, float]]:
    """The hit rate of the print's repeating lines (the points' triangles, the fields'
    circles) where the board is found, and the best of them moved by half their period in
    each direction they repeat in (points: along the board; fields: both ways). A board in
    its place scores high and sharply; a table's edge, a box or the wrong geometry score low,
    or as well anywhere. Also every group's own hit rate (outline, frame, trays, ...)."""
    points = "points" in edges.names
    group = "points" if points else "fields"
    here = hit_rate(edges, gradient, to_image, group)
    half = period / 2
    shifts = [(half, 0.0), (-half, 0.0)] + ([] if points else [(0.0, half), (0.0, -half)])
    moved = max(hit_rate(edges, gradient, to_image, group, s) for s in shifts)
    groups = {name: hit_rate(edges, gradient, to_image, name, slack=GROUP_SLACK)
              for name in edges.names if name != group}
    return here, moved, groups
