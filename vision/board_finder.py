"""Find the board in a picture: markers, the user's corners, or its outline — and check it.

Corners come from the four ArUco markers when at least two are read; else from the corners the
user gives (`corners=`); else from the board's outline. Outline candidates come from two
searches (the outer contour of the picture's edges, and quadrilaterals of long straight lines),
and when none of those is believed, from a third (the long lines inside the board's probable
region, where a patterned table top's own lines are left out), each taken as the board's
outer edge or, on a board with a frame, as the frame's inner edge.
A candidate is believed only when the print's layout agrees with the picture
(`vision.layout_edges`): the points' triangles, the frame and the fields' circles must show
edges where the geometry puts them. The winner is refined (corners and lens distortion) to the
best agreement, and refused with the real cause when it is not the board: corners outside the
picture, proportions the geometry cannot have, or a layout that does not match.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from controller.words import Reason
from vision import board_outline, outline_sides
from vision.board_errors import (
    MARKERS_MISSING,
    NO_BOARD,
    NOT_THIS_BOARD,
    OUTLINE_SECOND_LOOK,
    PARTLY_OUTSIDE,
    WRONG_CORNERS,
    CalibrationError,
)
from vision.camera_pose import rectangle_aspect
from vision.geometry import BackgammonGeometry, MaednGeometry, TableGeometry, load_geometry
from vision.layout_edges import (
    GROUP_SLACK,
    Agreement,
    LayoutEdges,
    agreement,
    gradient_image,
    layout_edges,
    off_distance,
    sample,
    sharpness,
)
from vision.lens import Lens, to_image
from vision.markers import marker_detector

log = logging.getLogger(__name__)

MIN_MARKERS = 2
#: A picture larger than this (px, longer side) is searched at this size.
SEARCH_SIZE = 1280
#: An outline is believed when at least this share of the print's repeating lines (points'
#: triangles, fields' circles) show an edge where the geometry puts them, and at least
#: `PEAK` times as many as with the layout moved by half a point or field
#: (`layout_edges.sharpness`).
MIN_HITS = 0.5
PEAK = 1.6
#: ... and every other group of lines (outline, frame, halves, trays) at least this share: a
#: wrong geometry can line its points up with the board's and still miss its trays.
MIN_GROUP_HITS = 0.35
#: Distinct outline candidates (corners this many px apart) searched round, the best-fitting
#: first, and of those the best refined and checked.
DISTINCT_PX = 15.0
SEARCHED = 10
TRIED = 3
#: Registration: the board's picture is searched this share of its size beyond its edges, at
#: these scales of the candidate's.
REGISTER_MARGIN = 0.15
REGISTER_SCALES = (0.94, 0.97, 1.0, 1.03, 1.06)
#: The grid round an outline candidate is searched in steps of this share of the board's
#: diagonal (three either way: ±3 % of it).
NEARBY_STEP = 0.01
#: An outline whose true proportions differ from the geometry's by more than this is refused.
ASPECT_TOLERANCE = 0.1
#: Refinement moves a corner by at most this share of the board's diagonal in the picture.
REFINE_REACH = 0.05
#: An outline corner this far (board mm) from where the markers put the board's corner is the
#: same corner: it joins the fit. Three markers alone leave the far corner's region several mm
#: off; a farther outline corner is something else (a hand, a tray's edge) and is ignored.
OUTLINE_AGREES_MM = 25.0


@dataclass(frozen=True, slots=True)
class BoardFix:
    """Where the board lies in the picture: homography board mm → undistorted pixel, the lens
    distortion on top of it, how it was found and how well the print's layout agrees."""

    homography: np.ndarray
    method: str  # "markers", "outline" or "corners"
    markers_found: tuple[int, ...]
    warnings: tuple[Reason, ...]
    lens: Lens
    agreement: float = 0.0

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Board mm → pixel in the picture as taken."""
        return to_image(self.homography, self.lens, points_mm)


def check_image(image: object) -> np.ndarray:
    """Accept only a non-empty 8-bit BGR picture; say precisely what is wrong otherwise."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"expected a numpy image, got {type(image).__name__}")
    if image.size == 0:
        raise ValueError("the image is empty")
    if image.dtype != np.uint8:
        raise ValueError(f"expected an 8-bit image, got dtype {image.dtype}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected a colour (BGR) image of shape (h, w, 3), got {image.shape}")
    return image


def board_corners(width: float, height: float) -> np.ndarray:
    """The board's corners in mm: top-left, top-right, bottom-right, bottom-left."""
    return np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float64)


def parse_corners(text: str) -> np.ndarray:
    """`X1,Y1,X2,Y2,X3,Y3,X4,Y4` (top-left, top-right, bottom-right, bottom-left) → (4, 2)."""
    try:
        values = [float(v) for v in text.replace(";", ",").split(",")]
    except ValueError:
        raise ValueError(f"corners must be 8 numbers X1,Y1,...,X4,Y4, got {text!r}") from None
    if len(values) != 8 or not all(np.isfinite(values)):
        raise ValueError(f"corners must be 8 numbers X1,Y1,...,X4,Y4, got {len(values)}")
    return np.array(values, np.float64).reshape(4, 2)


def find_board(image: np.ndarray, game: str, geometry: TableGeometry | None = None,
               use_markers: bool = True, corners: np.ndarray | None = None) -> BoardFix:
    """Locate the board: from the ArUco markers when at least two are read, else from the
    user's `corners` (picture px, top-left clockwise), else from its outline; check the
    layout agrees and refine. Raises CalibrationError naming the cause."""
    check_image(image)
    geometry = geometry or load_geometry()
    geo = geometry.board(game)
    h, w = image.shape[:2]
    scale = min(1.0, SEARCH_SIZE / max(h, w))
    small = image if scale == 1.0 else cv2.resize(image, (round(w * scale), round(h * scale)),
                                                  interpolation=cv2.INTER_AREA)
    size = (small.shape[1], small.shape[0])
    gradient = gradient_image(small)
    edges = layout_edges(geo, off_distance(size, (geo.width, geo.height)))
    warnings: list[Reason] = []
    read, squares = _detect_markers(small)
    found = read if use_markers else {}
    refiner = _Refiner(edges, gradient, geo, size)
    period = geo.point_width if isinstance(geo, BackgammonGeometry) else geo.cell
    if corners is not None:
        method = "corners"
        hom, lens, agree = refiner.refine(_from_corners(corners * scale, geo, size),
                                          Lens(0.0, size))
        hits, moved, groups = sharpness(edges, gradient, lambda p: to_image(hom, lens, p),
                                        period)
        if _doubt(hits, moved, groups):
            log.warning("the board's print does not line up with the corners given (%.2f of "
                        "its lines seen)", hits)
    elif len(found) >= MIN_MARKERS:
        method = "markers"
        hom, lens = _from_markers(small, found, squares, geometry, geo)
        hom, lens, agree = refiner.refine(hom, lens, move=False)
        if len(found) < 4:
            warnings.append(MARKERS_MISSING)
    else:
        if use_markers:
            warnings.append(MARKERS_MISSING)
        method = "outline"
        hom, lens, agree, second = _from_outline(small, squares, geo, gradient, edges, refiner,
                                                 period)
        if second:
            warnings.append(OUTLINE_SECOND_LOOK)
    log.debug("board by %s: agreement %s", method, agree.ratios)
    fix = _full_size(hom, lens, scale, (w, h))
    outer = fix.to_image(board_corners(geo.width, geo.height))
    if (outer < -1).any() or (outer[:, 0] > w + 1).any() or (outer[:, 1] > h + 1).any():
        if method != "markers":
            raise CalibrationError("part of the board is outside the picture: move the camera "
                                   "or the board so that all four corners are seen",
                                   PARTLY_OUTSIDE)
        warnings.append(PARTLY_OUTSIDE)
    return BoardFix(fix.homography, method, tuple(sorted(found)), tuple(warnings), fix.lens,
                    agree.score)


def _full_size(hom: np.ndarray, lens: Lens, scale: float, size: tuple[int, int]) -> BoardFix:
    """Homography and lens found on a smaller copy of the picture, for the picture itself."""
    up = np.diag([1 / scale, 1 / scale, 1.0])
    full = up @ hom
    return BoardFix(full / full[2, 2], "", (), (), Lens(lens.kappa, size))


def _from_corners(corners: np.ndarray, geo: BackgammonGeometry | MaednGeometry,
                  size: tuple[int, int]) -> np.ndarray:
    """The homography from the user's four corners, after checking they can be the board's."""
    w, h = size
    if (corners < 0).any() or (corners[:, 0] > w).any() or (corners[:, 1] > h).any():
        raise CalibrationError(f"a corner given lies outside the picture ({w}×{h} px)",
                               WRONG_CORNERS)
    if not board_outline.is_clockwise_convex(corners):
        raise CalibrationError("the corners given are in the wrong order: give top-left, "
                               "top-right, bottom-right, bottom-left as the camera sees them",
                               WRONG_CORNERS)
    _check_aspect(corners, geo, size, "the corners given")
    hom, _ = cv2.findHomography(board_corners(geo.width, geo.height), corners, 0)
    return hom


def _check_aspect(corners: np.ndarray, geo: BackgammonGeometry | MaednGeometry,
                  size: tuple[int, int], what: str) -> None:
    aspect = rectangle_aspect(corners, size)
    expected = geo.width / geo.height
    if not abs(aspect / expected - 1) <= ASPECT_TOLERANCE:
        raise CalibrationError(
            f"{what} outline a board {aspect:.2f} times as wide as high, but the geometry says "
            f"{geo.width:g} × {geo.height:g} mm ({expected:.2f}): check the geometry file",
            NOT_THIS_BOARD)


def _from_markers(image: np.ndarray, found: dict[int, np.ndarray], squares: list[np.ndarray],
                  geometry: TableGeometry, geo: BackgammonGeometry | MaednGeometry,
                  ) -> tuple[np.ndarray, Lens]:
    size = (image.shape[1], image.shape[0])
    outline = board_outline.contour_outline(image, squares)
    lens = Lens(board_outline.estimate_kappa(*outline, size) if outline is not None else 0.0,
                size)
    known = geometry.markers.corners(geo.width, geo.height)
    src = np.concatenate([np.array(known[i]) for i in sorted(found)])
    dst = lens.undistort(np.concatenate([found[i] for i in sorted(found)]))
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None:
        raise CalibrationError("no homography from the markers found", NO_BOARD)
    if len(found) < 4 and outline is not None:
        hom = _with_outline_corners(hom, src, dst, board_outline.outline_corners(outline, lens),
                                    geo.width, geo.height)
    return hom, lens


def _with_outline_corners(hom: np.ndarray, src: np.ndarray, dst: np.ndarray,
                          corners: np.ndarray, width: float, height: float) -> np.ndarray:
    """Refit a homography from fewer than four markers with the board outline's corners that
    agree with it: the outline spans the whole board where the markers seen do not."""
    board = board_corners(width, height)
    predicted = cv2.perspectiveTransform(board.reshape(-1, 1, 2), hom).reshape(-1, 2)
    px_per_mm = float(np.linalg.norm(predicted[2] - predicted[0])) / float(np.hypot(width, height))
    agree = np.linalg.norm(corners - predicted, axis=1) <= OUTLINE_AGREES_MM * px_per_mm
    if not agree.any():
        return hom
    refit, _ = cv2.findHomography(np.concatenate([src, board[agree]]),
                                  np.concatenate([dst, corners[agree]]), 0)
    return refit if refit is not None else hom


def _from_outline(image: np.ndarray, squares: list[np.ndarray],
                  geo: BackgammonGeometry | MaednGeometry, gradient: np.ndarray,
                  edges: LayoutEdges, refiner: _Refiner, period: float,
                  ) -> tuple[np.ndarray, Lens, Agreement, bool]:
    """The outline candidate whose print lines up best (and whether it took the second
    chance): candidates (`board_outline`, their
    sides fitted to the picture's edges) ranked by how the print lines up, the best few
    refined, and the best-fitting of those that the print believes (`_doubt`) taken. When
    none is believed, the lines inside the board's probable region get a second chance (a
    patterned table top's lines outrank the board's sides); the first refusal stands if
    that fails too."""
    outlines = board_outline.candidate_quads(image, squares)
    try:
        return (*_judged_outline(outlines, image, geo, gradient, edges, refiner, period), False)
    except CalibrationError as first:
        second = board_outline.region_quads(image, outlines.kappa)
        if not second:
            raise
        try:
            return (*_judged_outline(replace(outlines, quads=second), image, geo, gradient,
                                     edges, refiner, period), True)
        except CalibrationError:
            raise first from None


def _judged_outline(outlines: board_outline.Outlines, image: np.ndarray,
                    geo: BackgammonGeometry | MaednGeometry, gradient: np.ndarray,
                    edges: LayoutEdges, refiner: _Refiner, period: float,
                    ) -> tuple[np.ndarray, Lens, Agreement]:
    """The best believed outline of `outlines`' candidates, else a refusal saying why."""
    size = (image.shape[1], image.shape[0])
    quads = outlines.quads
    if not quads:
        raise CalibrationError("board outline not found: no four-sided outline in the picture",
                               NO_BOARD)
    ranked: list[tuple[float, np.ndarray, Lens]] = []
    aspect_seen: list[float] = []
    expected = geo.width / geo.height
    for quad, kappa in quads:
        lens = Lens(kappa, size)
        und = lens.undistort(quad)
        aspect = rectangle_aspect(und, size)
        for target in _targets(geo):
            wanted = (target[1, 0] - target[0, 0]) / (target[2, 1] - target[1, 1])
            aspect_seen.append(aspect * expected / wanted)
            if not abs(aspect / wanted - 1) <= ASPECT_TOLERANCE:
                continue
            hom, _ = cv2.findHomography(target, und, 0)
            if hom is not None:
                ranked.append((refiner.fit(hom, lens), hom, lens))
    if not ranked:
        near = min(aspect_seen, key=lambda a: abs(a / expected - 1))
        raise CalibrationError(
            f"no outline in the picture has the board's proportions: the nearest is "
            f"{near:.2f} times as wide as high, the geometry says {geo.width:g} × "
            f"{geo.height:g} mm ({expected:.2f}); check the geometry file or give --corners",
            NOT_THIS_BOARD)
    ranked.sort(key=lambda r: -r[0])
    kept: list[tuple[float, np.ndarray, Lens]] = []
    outer = board_corners(geo.width, geo.height)
    for _, hom, lens in ranked:
        corners = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), hom).reshape(-1, 2)
        if any(np.abs(corners - c).max() < DISTINCT_PX for _, c, _ in kept):
            continue  # the same outline again
        kept.append((0.0, corners, lens))
        if len(kept) == SEARCHED:
            break
    near = []
    for _, corners, lens in kept:
        hom = _registered(gradient, cv2.findHomography(outer, corners, 0)[0], lens, edges, geo)
        hom = refiner.nearby(hom, lens)
        near.append((refiner.fit(hom, lens), hom, lens))
    near.sort(key=lambda r: -r[0])
    found: list[tuple[float, str, np.ndarray, Lens, Agreement]] = []

    def judged(hom: np.ndarray, lens: Lens) -> None:
        refined, lens, agree = refiner.refine(hom, lens)
        hits, moved, groups = sharpness(edges, gradient,
                                        lambda p, m=refined, le=lens: to_image(m, le, p),
                                        period)
        doubt = _doubt(hits, moved, groups)
        fit = refiner.fit(refined, lens)
        log.debug("outline candidate: fit %.3f, lines seen %.2f (moved %.2f), %s %s", fit,
                  hits, moved, groups, doubt)
        found.append((fit, doubt, refined, lens, agree))

    for _, hom, lens in near[:TRIED]:
        judged(hom, lens)
    # The best one's sides recombined from the picture's long lines (`outline_sides`), which
    # lie in the picture as the lens `outlines.kappa` straightens it; scored with the best
    # one's own lens (the refinement measured it on the print).
    _, _, hom, lens, _ = max(found, key=lambda f: f[0])
    straight = Lens(outlines.kappa, size)

    def own(corners: np.ndarray) -> np.ndarray:
        return lens.undistort(straight.distort(corners))

    corners = straight.undistort(to_image(hom, lens, outer))
    swapped = outline_sides.recombined(corners, outlines.lines,
                                       lambda c: refiner.score(own(c), lens.kappa))
    if swapped is not corners:
        judged(cv2.findHomography(outer, own(swapped), 0)[0], lens)
    believed = [f for f in found if not f[1]]
    if not believed:
        doubt = max(found, key=lambda f: f[0])[1]
        raise CalibrationError(
            f"the outline found is not this board: {doubt} of a {geo.width:g} × "
            f"{geo.height:g} mm board as the geometry describes it; check the geometry file "
            "or give the corners with --corners", NOT_THIS_BOARD)
    _, _, hom, lens, agree = max(believed, key=lambda f: f[0])
    return hom, lens, agree


def _doubt(hits: float, moved: float, groups: dict[str, float]) -> str:
    """Why the print does not line up (empty when it does), for the refusal."""
    if hits < MIN_HITS:
        return f"only {hits:.0%} of the repeating lines (points or fields) show"
    if hits < PEAK * moved:
        return "the repeating lines show as well when moved half a step"
    weak = [f"{name} {share:.0%}" for name, share in groups.items() if share < MIN_GROUP_HITS]
    if weak:
        return f"too few lines show of the {', '.join(weak)}"
    return ""


def _registered(gradient: np.ndarray, hom: np.ndarray, lens: Lens, edges: LayoutEdges,
                geo: BackgammonGeometry | MaednGeometry) -> np.ndarray:
    """`hom` corrected by the shift and scale that lay the print's lines best over the
    picture's edges, seen through `hom` (phase correlation over the whole board: a global
    answer, where a local search would lock the points or fields one off)."""
    margin = REGISTER_MARGIN * max(geo.width, geo.height)
    w = round(geo.width + 2 * margin)
    h = round(geo.height + 2 * margin)
    template = np.zeros((h, w), np.float32)
    xs_on = np.clip(np.round(edges.on[:, 0] + margin).astype(int), 0, w - 1)
    ys_on = np.clip(np.round(edges.on[:, 1] + margin).astype(int), 0, h - 1)
    template[ys_on, xs_on] = 1.0
    template = cv2.GaussianBlur(template, (0, 0), 2.0)
    shift = np.array([[1.0, 0.0, -margin], [0.0, 1.0, -margin], [0.0, 0.0, 1.0]])
    map_hom = hom @ shift
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    pix = to_image(map_hom, lens, np.column_stack([xs.ravel(), ys.ravel()]))
    seen = cv2.remap(gradient, pix[:, 0].reshape(h, w).astype(np.float32),
                     pix[:, 1].reshape(h, w).astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT)
    seen = cv2.GaussianBlur(seen, (0, 0), 2.0)
    window = cv2.createHanningWindow((w, h), cv2.CV_32F)
    best, best_fix = -1.0, np.eye(3)
    centre = np.array([geo.width / 2, geo.height / 2])
    for scale in REGISTER_SCALES:
        zoom = np.array([[scale, 0.0, (1 - scale) * (centre[0] + margin)],
                         [0.0, scale, (1 - scale) * (centre[1] + margin)]])
        scaled = cv2.warpAffine(template, zoom, (w, h))
        (dx, dy), response = cv2.phaseCorrelate(scaled, seen, window)
        if response > best:
            # Board point p is seen at (zoomed p + shift): the corrected homography sends p
            # where hom sends that point.
            best = response
            best_fix = np.array([[scale, 0.0, (1 - scale) * centre[0] + dx],
                                 [0.0, scale, (1 - scale) * centre[1] + dy],
                                 [0.0, 0.0, 1.0]])
    return hom @ best_fix


def _targets(geo: BackgammonGeometry | MaednGeometry) -> list[np.ndarray]:
    """What a quadrilateral found may be: the board's outer edge or, on a board with a
    frame, the frame's inner edge (board mm, top-left clockwise)."""
    out = [board_corners(geo.width, geo.height)]
    if geo.frame > 0:
        f = geo.frame
        x0, x1 = ((geo.inner_rect[0], geo.inner_rect[2]) if isinstance(geo, BackgammonGeometry)
                  else (f, geo.width - f))
        out.append(np.array([(x0, f), (x1, f), (x1, geo.height - f), (x0, geo.height - f)],
                            np.float64))
    return out


class _Refiner:
    """Moves the board's four corners (and the lens distortion) to where the print's layout
    agrees best with the picture: a coordinate search with shrinking steps. Every group of
    lines counts alike (the mean of their log-ratios): the repeating ones (points' triangles,
    fields' circles) lie on the playing surface and are matched exactly; the others (outline,
    frame, bar, trays) may stand above it or sink below and, seen at a slant, lie a few
    millimetres off, so they are matched within `GROUP_SLACK` — enough to hold the points'
    long, steep edges from sliding along themselves."""

    def __init__(self, edges: LayoutEdges, gradient: np.ndarray,
                 geo: BackgammonGeometry | MaednGeometry, size: tuple[int, int]) -> None:
        self.edges = edges
        self.gradient = gradient
        self.outer = board_corners(geo.width, geo.height)
        self.size = size
        periodic = edges.names.index("points" if "points" in edges.names else "fields")
        normal = edges.right - edges.on
        off = float(np.linalg.norm(normal[0]))
        normal = normal / np.linalg.norm(normal, axis=1, keepdims=True)
        pts, self._parts = [], []
        for g in range(len(edges.names)):
            keep = edges.groups == g
            slack = 0.0 if g == periodic else GROUP_SLACK
            reach = np.arange(-slack, slack + 1e-9, 1.0)
            on = [edges.on[keep] + k * normal[keep] for k in reach]
            side = [edges.on[keep] + s * (off + slack) * normal[keep] for s in (-1.0, 1.0)]
            start = sum(len(p) for p in pts)
            pts += on + side
            self._parts.append((start, int(keep.sum()), len(reach)))
        self._pts = np.concatenate(pts)

    def score(self, corners: np.ndarray, kappa: float) -> float:
        """How well the print lines up with the board's corners at `corners` (undistorted
        px) under the lens `kappa`: the mean over groups of lines of log(on / beside)."""
        hom, _ = cv2.findHomography(self.outer, corners, 0)
        if hom is None:
            return -np.inf
        values = sample(self.gradient, to_image(hom, Lens(kappa, self.size), self._pts))
        total = 0.0
        for start, n, k in self._parts:
            part = values[start:start + (k + 2) * n].reshape(k + 2, n)
            on, side = part[:k].max(axis=0), part[k:].max(axis=0)
            total += float(np.log((on.mean() + 1.0) / (side.mean() + 1.0)))
        return total / len(self._parts)

    def _moves(self) -> int:
        """Eight corner coordinates, the whole board's shift and stretch in x and y (the
        points' long edges let a board slide along them corner by corner), and the lens."""
        return 13

    @staticmethod
    def _moved(corners: np.ndarray, kappa: float, move: int, step: float, kstep: float
               ) -> tuple[np.ndarray, float]:
        trial = corners.copy()
        if move < 8:
            trial[move // 2, move % 2] += step
        elif move < 10:
            trial[:, move - 8] += step
        elif move < 12:
            axis = move - 10
            centre = trial[:, axis].mean()
            size = np.ptp(trial[:, axis]) or 1.0
            trial[:, axis] = centre + (trial[:, axis] - centre) * (1 + step / size)
        else:
            return trial, kappa + kstep
        return trial, kappa

    def nearby(self, hom: np.ndarray, lens: Lens) -> np.ndarray:
        """The best of the board shifted and scaled a little round `hom`: an outline found
        a centimetre off (a raised frame, the box's side seen at a slant) would otherwise let
        the refinement lock the points or fields one off; on this grid one variant lies within
        the refinement's reach of the truth."""
        corners = cv2.perspectiveTransform(self.outer.reshape(-1, 1, 2), hom).reshape(-1, 2)
        centre = corners.mean(axis=0)
        step = NEARBY_STEP * float(np.linalg.norm(corners[2] - corners[0]))
        best, best_corners = -np.inf, corners
        for scale in (0.97, 1.0, 1.03):
            for dy in np.arange(-3, 4) * step:
                for dx in np.arange(-3, 4) * step:
                    trial = centre + (corners - centre) * scale + np.array([dx, dy])
                    score = self.score(trial, lens.kappa)
                    if score > best:
                        best, best_corners = score, trial
        moved, _ = cv2.findHomography(self.outer, best_corners, 0)
        return moved

    def fit(self, hom: np.ndarray, lens: Lens) -> float:
        """How well the print lines up for this homography and lens (what `refine` raises)."""
        corners = cv2.perspectiveTransform(self.outer.reshape(-1, 1, 2), hom).reshape(-1, 2)
        return self.score(corners, lens.kappa)

    def refine(self, hom: np.ndarray, lens: Lens, move: bool = True
               ) -> tuple[np.ndarray, Lens, Agreement]:
        corners = cv2.perspectiveTransform(self.outer.reshape(-1, 1, 2), hom).reshape(-1, 2)
        kappa = lens.kappa
        if move:
            start = corners.copy()
            reach = REFINE_REACH * float(np.linalg.norm(corners[2] - corners[0]))
            best = self.score(corners, kappa)
            step, kstep = max(2.0, reach / 4), 0.02
            while step >= 0.25:
                improved = False
                for move in range(self._moves()):
                    for sign in (1.0, -1.0):
                        trial, tk = self._moved(corners, kappa, move, sign * step,
                                                sign * kstep)
                        if np.linalg.norm(trial - start, axis=1).max() > reach:
                            continue
                        score = self.score(trial, tk)
                        if score > best + 1e-6:
                            best, corners, kappa, improved = score, trial, tk, True
                if not improved:
                    step, kstep = step / 2, kstep / 2
            hom, _ = cv2.findHomography(self.outer, corners, 0)
        lens = Lens(kappa, self.size)
        agree = agreement(self.edges, self.gradient, lambda p: to_image(hom, lens, p))
        return hom / hom[2, 2], lens, agree


def _detect_markers(image: np.ndarray) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
    """The corner markers read (id → 4 corners), and every marker-like square seen, read or
    not: a marker too small or blurred to read still blurs into the board's outline."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, rejected = marker_detector().detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is not None:
        for marker_id, quad in zip(ids.ravel(), corners, strict=True):
            if 0 <= marker_id <= 3:
                found[int(marker_id)] = quad.reshape(4, 2).astype(np.float64)
    log.debug("markers found: %s", sorted(found))
    squares = [q.reshape(4, 2).astype(np.float64) for q in (*corners, *rejected)]
    return found, squares


def marker_quads(image: np.ndarray, fix: BoardFix, geometry: TableGeometry, game: str
                 ) -> Sequence[np.ndarray]:
    """The markers the board was found by, where the calibration puts them in the picture."""
    geo = geometry.board(game)
    known = geometry.markers.corners(geo.width, geo.height)
    return [fix.to_image(np.array(known[i])) for i in fix.markers_found]
