"""Candidate outlines of the board: four-sided shapes in the picture that might be its edge.

Three searches, because no one works on every table: the outer contour of the picture's edges
(the board is full of edges, a plain table top around it is not) and quadrilaterals made of
long straight lines (a wood-grain or patterned table top is full of edges too, but the board's
sides are the long straight ones), and a third for table tops whose pattern is made of long
straight lines itself (gingham, planks): the same lines, but only inside the region that
stands out from the picture's border as one object (tried only when the first two fail). None
decides: `vision.board_finder` checks each candidate against the print's layout. Corners
are top-left first, clockwise, as the camera sees them (the camera must not be turned by
more than 45° against the board).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.lens import Lens

#: Marker-like squares are blanked before the outline is traced: at most this share of the
#: picture (the board, seen as one big square, is far larger), at most this long for their
#: width (the detector also offers thin slivers of wood grain and the points' triangles).
MARKER_MAX_AREA = 0.01
MARKER_MAX_ASPECT = 1.5
OUTLINE_INSET_PX = 1.5  # the traced contour runs this far outside the edge (dilated edges)
#: Line search: the strongest lines of each direction that are paired into quadrilaterals.
LINES_PER_SIDE = 14
#: A board covers at least this share of the picture.
MIN_AREA = 0.06
#: Region search: GrabCut runs on the picture shrunk to this width, and edges this share of
#: the picture's shorter side beyond the region it finds still count (the board's own sides).
REGION_WIDTH = 400
REGION_MARGIN = 0.03

Quad = np.ndarray  # (4, 2) picture px, top-left first, clockwise
Line = tuple[np.ndarray, np.ndarray, float]  # a point on it, unit direction, support in px


@dataclass(frozen=True)
class Outlines:
    """Candidate outlines, each with a lens distortion (kappa), and the picture's long straight
    lines (`lines`, strongest first) as seen through the lens `kappa` straightens best."""

    quads: list[tuple[Quad, float]]
    lines: list[Line]
    kappa: float


def candidate_quads(image: np.ndarray, squares: Sequence[np.ndarray] = ()) -> Outlines:
    """Four-sided outlines that might be the board, and the long lines they are made of."""
    size = (image.shape[1], image.shape[0])
    out: list[tuple[Quad, float]] = []
    contour = contour_outline(image, squares)
    if contour is not None:
        kappa = estimate_kappa(*contour, size)
        lens = Lens(kappa, size)
        out.append((lens.distort(outline_corners(contour, lens)), kappa))
    kappa = straightest_kappa(image)
    lens = Lens(kappa, size)
    straight = undistorted(image, lens)
    edge_points = EdgePoints.of(colour_edges(straight))
    lines = _lines(straight)
    out += [(lens.distort(fit_sides(quad, edge_points)), kappa)
            for quad in line_quads(straight, lines)]
    return Outlines(out, lines, kappa)


def region_quads(image: np.ndarray, kappa: float) -> list[tuple[Quad, float]]:
    """Quadrilaterals of the long lines inside the board's probable region (`board_region`),
    through the lens `kappa`: the second chance when no outline of `candidate_quads` is
    believed."""
    lens = Lens(kappa, (image.shape[1], image.shape[0]))
    straight = undistorted(image, lens)
    region = board_region(straight)
    if region is None:
        return []
    edge_points = EdgePoints.of(colour_edges(straight))
    return [(lens.distort(fit_sides(quad, edge_points)), kappa)
            for quad in line_quads(straight, _lines(straight, region))]


def board_region(image: np.ndarray) -> np.ndarray | None:
    """Where the board probably lies (a mask): the picture's main object against its border,
    which is taken as table (GrabCut), grown by `REGION_MARGIN`; None when nothing of a
    board's size stands out. A patterned table top (gingham, flowers, planks) is full of long
    straight lines that outrank the board's own sides; inside this region only the board's
    are left."""
    h, w = image.shape[:2]
    scale = min(1.0, REGION_WIDTH / w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    border = max(2, round(0.02 * sw))
    mask = np.zeros((sh, sw), np.uint8)
    models = (np.zeros((1, 65)), np.zeros((1, 65)))
    cv2.grabCut(small, mask, (border, border, sw - 2 * border, sh - 2 * border), *models, 5,
                cv2.GC_INIT_WITH_RECT)
    fore = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(fore)
    if count < 2:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < MIN_AREA * sh * sw:
        return None
    grow = 2 * round(REGION_MARGIN * min(sh, sw)) + 1
    region = cv2.dilate((labels == largest).astype(np.uint8),
                        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
    return cv2.resize(region, (w, h), interpolation=cv2.INTER_NEAREST) > 0


@dataclass(frozen=True)
class EdgePoints:
    """Edge pixels (x, y) in the picture's row order, also indexed by column, so that a side's
    pixels are looked up in its strip of the picture, not among all of them (wood grain, a
    patterned cloth or a noisy picture has hundreds of thousands, and every candidate outline
    has four sides to fit)."""

    xy: np.ndarray  # (N, 2) float, sorted by y (row order)
    by_x: np.ndarray  # indices of `xy`, sorted by x
    x_sorted: np.ndarray  # xy[by_x, 0]

    @classmethod
    def of(cls, edges: np.ndarray) -> EdgePoints:
        xy = np.argwhere(edges > 0)[:, ::-1].astype(np.float64)
        by_x = np.argsort(xy[:, 0], kind="stable")
        return cls(xy, by_x, xy[by_x, 0])

    def in_box(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The points with `low` <= (x, y) <= `high`, in row order, found through the
        narrower of the box's two strips."""
        if high[0] - low[0] < high[1] - low[1]:
            first = int(np.searchsorted(self.x_sorted, low[0], "left"))
            last = int(np.searchsorted(self.x_sorted, high[0], "right"))
            pts = self.xy[np.sort(self.by_x[first:last])]
            return pts[(pts[:, 1] >= low[1]) & (pts[:, 1] <= high[1])]
        first = int(np.searchsorted(self.xy[:, 1], low[1], "left"))
        last = int(np.searchsorted(self.xy[:, 1], high[1], "right"))
        pts = self.xy[first:last]
        return pts[(pts[:, 0] >= low[0]) & (pts[:, 0] <= high[0])]


def fit_sides(quad: Quad, edge_points: EdgePoints, band: float = 4.0) -> Quad:
    """The quadrilateral with each side refitted to the edge pixels within `band` px of it
    (Hough's lines are a few pixels off; the print must be found to a pixel or two)."""
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        seg = b - a
        length = float(np.linalg.norm(seg))
        # every pixel within `band` of the segment lies in its bounding box grown by `band`
        points = edge_points.in_box(np.minimum(a, b) - band, np.maximum(a, b) + band)
        rel = points - a
        t = rel @ seg / (length * length)
        dist = np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / length
        near = points[(t > 0.05) & (t < 0.95) & (dist < band)]
        if len(near) < 0.2 * length:
            lines.append((a, seg / length))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                     0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    return _corners_of(lines, quad)


def _corners_of(lines: list[tuple[np.ndarray, np.ndarray]], fallback: np.ndarray
                ) -> np.ndarray:
    """Where each side line (point, direction) meets the one before; `fallback`'s corner
    where two sides run parallel."""
    corners = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        mat = np.array([d1, -d2]).T
        if abs(np.linalg.det(mat)) < 1e-9:
            corners.append(fallback[i])
            continue
        s, _ = np.linalg.solve(mat, p2 - p1)
        corners.append(p1 + s * d1)
    return np.array(corners)


#: Lens distortions tried when the picture's long lines are straightened (in picture widths).
KAPPAS = (-0.1, 0.0, 0.1, 0.2, 0.3)


def undistorted(image: np.ndarray, lens: Lens) -> np.ndarray:
    """The picture as a lens without distortion would have taken it (same size)."""
    if lens.kappa == 0.0:
        return image
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    src = lens.distort(np.column_stack([xs.ravel(), ys.ravel()]))
    map_x = src[:, 0].reshape(h, w).astype(np.float32)
    map_y = src[:, 1].reshape(h, w).astype(np.float32)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def straightest_kappa(image: np.ndarray) -> float:
    """The lens distortion under which the picture's long edges are straightest: the one whose
    undistorted picture has the most length in long straight lines (a bent lens breaks a
    board's sides and a table's planks into shorter pieces)."""
    size = (image.shape[1], image.shape[0])
    edges = colour_edges(image)
    best, best_kappa = -1.0, 0.0
    for kappa in KAPPAS:
        straight = undistorted(edges, Lens(kappa, size))
        short = min(straight.shape)
        segs = cv2.HoughLinesP(straight, 1, np.pi / 360, threshold=40,
                               minLineLength=0.15 * short, maxLineGap=3)
        if segs is None:
            continue
        segs = segs.reshape(-1, 4).astype(np.float64)
        lengths = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
        score = float((lengths ** 2).sum())
        if score > best:
            best, best_kappa = score, kappa
    return best_kappa


def _marker_like(quad: np.ndarray, picture_area: float) -> bool:
    """True for a square small enough to be a corner marker (read or not)."""
    _, (a, b), _ = cv2.minAreaRect(quad.astype(np.float32))
    short, long = min(a, b), max(a, b)
    small = a * b <= MARKER_MAX_AREA * picture_area
    return short > 0 and long <= MARKER_MAX_ASPECT * short and small


def contour_outline(image: np.ndarray, squares: Sequence[np.ndarray] = ()
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """The outer contour of the edge map, if it is a large four-cornered shape inside the
    picture: its points and its four rough corners. Marker-like `squares` are blanked first,
    grown by half their size: a small marker near a corner blurs into the board's edges and
    would pull the outline's corner out to itself."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    edges = cv2.Canny(grey, 40, 120)
    h, w = grey.shape
    for quad in squares:
        if not _marker_like(quad, h * w):
            continue
        centre = quad.mean(axis=0)
        grown = centre + 1.5 * (quad - centre)
        cv2.fillConvexPoly(edges, np.round(grown).astype(np.int32), 0)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))  # small: markers must stay apart
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=lambda c: cv2.contourArea(cv2.convexHull(c)))
    hull = cv2.convexHull(contour)
    if cv2.contourArea(hull) < MIN_AREA * h * w:
        return None
    x, y, bw, bh = cv2.boundingRect(contour)
    if x <= 2 or y <= 2 or x + bw >= w - 2 or y + bh >= h - 2:
        return None
    approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(approx) != 4:
        return None
    return contour.reshape(-1, 2).astype(np.float64), approx.astype(np.float64)


def _side_points(points: np.ndarray, approx: np.ndarray, band: float = 0.03
                 ) -> list[np.ndarray]:
    """The points along each side between two rough corners (ends left out), at most `band`
    of the side's length (and 3 px) from it."""
    sides = []
    for i in range(4):
        a, b = approx[i], approx[(i + 1) % 4]
        seg = b - a
        length = float(np.linalg.norm(seg))
        rel = points - a
        t = rel @ seg / (length * length)
        dist = np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / length
        sides.append(points[(t > 0.1) & (t < 0.9) & (dist < max(3.0, band * length))])
    return sides


def estimate_kappa(points: np.ndarray, approx: np.ndarray, size: tuple[int, int],
                   band: float = 0.03) -> float:
    """The lens distortion that makes the board's four sides straightest (plumb lines).

    Returns 0 when the outline is too ragged to tell (then nothing is corrected)."""

    def crookedness(kappa: float) -> float:
        lens = Lens(kappa, size)
        total, count = 0.0, 0
        for side in _side_points(lens.undistort(points), lens.undistort(approx), band):
            if len(side) < 20:
                return float("inf")
            centred = side - side.mean(axis=0)
            total += float(np.linalg.eigvalsh(centred.T @ centred)[0])
            count += len(side)
        return total / count

    coarse = np.arange(-0.6, 0.6001, 0.02)
    best = float(coarse[int(np.argmin([crookedness(k) for k in coarse]))])
    fine = np.arange(best - 0.02, best + 0.0201, 0.002)
    scores = [crookedness(k) for k in fine]
    kappa = float(fine[int(np.argmin(scores))])
    if not np.isfinite(min(scores)) or min(scores) > 2.0 or abs(kappa) > 0.58:
        return 0.0
    return kappa


def _refine_corners(points: np.ndarray, approx: np.ndarray) -> np.ndarray:
    """Fit a line to each side's contour points (ignoring the ends) and intersect them."""
    centre = approx.mean(axis=0)
    lines = []
    for i, near in enumerate(_side_points(points, approx)):
        if len(near) < 5:
            seg = approx[(i + 1) % 4] - approx[i]
            lines.append((approx[i], seg / np.linalg.norm(seg)))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                                     0.01).ravel()
        normal = np.array([-vy, vx])
        if normal @ (centre - np.array([x0, y0])) < 0:
            normal = -normal
        lines.append((np.array([x0, y0]) + OUTLINE_INSET_PX * normal, np.array([vx, vy])))
    return _corners_of(lines, approx)


def outline_corners(outline: tuple[np.ndarray, np.ndarray], lens: Lens) -> np.ndarray:
    """The board's four corners from its traced outline, undistorted, top-left first."""
    points, approx = outline
    return order_corners(_refine_corners(lens.undistort(points), lens.undistort(approx)))


def order_corners(corners: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left as the camera sees them."""
    s = corners.sum(axis=1)
    d = corners[:, 0] - corners[:, 1]
    return np.array([corners[s.argmin()], corners[d.argmax()], corners[s.argmax()],
                     corners[d.argmin()]])


def is_clockwise_convex(corners: np.ndarray) -> bool:
    """True when the four corners run clockwise on screen (y down) without crossing."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    cross = []
    for i in range(4):
        a, b, d = c[i - 1], c[i], c[(i + 1) % 4]
        u, v = b - a, d - b
        cross.append(u[0] * v[1] - u[1] * v[0])
    return all(x > 0 for x in cross)


def colour_edges(image: np.ndarray) -> np.ndarray:
    """Canny edges of each colour channel, together (a red print on green felt changes hue
    more than brightness); thresholds follow how busy the picture is, so wood grain or a
    patterned cloth does not bury the board's sides."""
    blurred = cv2.GaussianBlur(image, (5, 5), 0)
    out = np.zeros(image.shape[:2], np.uint8)
    for channel in cv2.split(blurred):
        gx = cv2.Sobel(channel, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(channel, cv2.CV_32F, 0, 1, ksize=3)
        high = float(np.clip(1.5 * np.percentile(np.hypot(gx, gy), 90), 40.0, 300.0))
        out |= cv2.Canny(channel, high / 2.5, high)
    return out


def _lines(image: np.ndarray, within: np.ndarray | None = None) -> list[Line]:
    """Long straight lines: (a point, unit direction, support in px), strongest first; only
    from the edges `within` a mask when one is given."""
    edges = colour_edges(image)
    if within is not None:
        edges[~within] = 0
    h, w = edges.shape
    short = min(h, w)
    segs = cv2.HoughLinesP(edges, 1, np.pi / 360, threshold=40, minLineLength=0.08 * short,
                           maxLineGap=0.01 * short + 3)
    if segs is None:
        return []
    merged: list[list[float]] = []  # angle, offset, support, sum of points
    for x1, y1, x2, y2 in segs.reshape(-1, 4).astype(np.float64):
        length = float(np.hypot(x2 - x1, y2 - y1))
        angle = float(np.arctan2(y2 - y1, x2 - x1)) % np.pi
        normal = np.array([-np.sin(angle), np.cos(angle)])
        offset = float(normal @ np.array([x1, y1]))
        for m in merged:
            d_angle = abs((angle - m[0] + np.pi / 2) % np.pi - np.pi / 2)
            if d_angle < np.radians(2.0) and abs(offset - m[1]) < 0.006 * short + 2:
                total = m[2] + length
                m[0] = angle if length > m[2] else m[0]
                m[1] = (m[1] * m[2] + offset * length) / total
                m[2] = total
                break
        else:
            merged.append([angle, offset, length])
    out = []
    for angle, offset, support in sorted(merged, key=lambda m: -m[2]):
        direction = np.array([np.cos(angle), np.sin(angle)])
        normal = np.array([-direction[1], direction[0]])
        out.append((normal * offset, direction, support))
    return out


def intersect(a: Line, b: Line) -> np.ndarray | None:
    """Where two lines cross (None when they run parallel)."""
    (p1, d1, _), (p2, d2, _) = a, b
    mat = np.array([d1, -d2]).T
    if abs(np.linalg.det(mat)) < 1e-6:
        return None
    s, _ = np.linalg.solve(mat, p2 - p1)
    return p1 + s * d1


def line_quads(image: np.ndarray, lines: Sequence[Line]) -> list[Quad]:
    """Quadrilaterals of two near-horizontal and two near-vertical long `lines` of the
    picture, large enough and inside it."""
    h, w = image.shape[:2]
    horizontal = [ln for ln in lines if abs(ln[1][0]) >= np.cos(np.radians(35))]
    vertical = [ln for ln in lines if abs(ln[1][1]) >= np.cos(np.radians(35))]
    horizontal, vertical = horizontal[:LINES_PER_SIDE], vertical[:LINES_PER_SIDE]
    slack = 0.02 * max(w, h)
    quads = []
    for top, bottom in itertools.combinations(horizontal, 2):
        for left, right in itertools.combinations(vertical, 2):
            pts = [intersect(top, left), intersect(top, right), intersect(bottom, right),
                   intersect(bottom, left)]
            if any(p is None for p in pts):
                continue
            quad = order_corners(np.array(pts))
            if (quad < -slack).any() or (quad[:, 0] > w + slack).any() or \
                    (quad[:, 1] > h + slack).any():
                continue
            if not is_clockwise_convex(quad):
                continue
            if cv2.contourArea(quad.astype(np.float32)) < MIN_AREA * w * h:
                continue
            quads.append(quad)
    return quads
