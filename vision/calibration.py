"""Calibration: find the board in the picture, learn its colours, save what was learned.

The board is found from the four ArUco markers at its corners or, without markers, from its
outline against the table top; either gives the homography board mm → image pixel. The
colours of checkers, pieces and empty fields are learned from one frame of the known starting
position, so no threshold is tuned by hand for a table or a lamp. The frame's wooden border is
remembered too: later frames compare against it to correct uneven light and to notice a hand.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard, Reason, reason
from vision import pieces
from vision.geometry import (
    DIE_SIZE_MM,
    BackgammonGeometry,
    MaednGeometry,
    TableGeometry,
    load_geometry,
)
from vision.markers import marker_detector
from vision.parallax import DEFAULT_CAMERA_HEIGHT_MM, Parallax
from vision.sharpness import marker_blur_px

log = logging.getLogger(__name__)

TOO_DIM = reason("vision_too_dim", "Zu wenig Licht über dem Brett",
                 "Too little light on the board")
PARTLY_OUTSIDE = reason("vision_partly_outside", "Brett liegt teilweise außerhalb des Bildes",
                        "Part of the board is outside the picture")
MARKERS_MISSING = reason("vision_markers_missing", "Nicht alle Eckmarken sichtbar",
                         "Not all corner markers are visible")
NO_BOARD = reason("vision_no_board", "Brett nicht gefunden", "Board not found")
DICE_TOO_SMALL = reason("vision_dice_too_small",
                        "Würfel im Bild zu klein: höhere Auflösung oder Kamera tiefer hängen",
                        "Dice look too small: use a higher resolution or hang the camera lower")
BLURRED = reason("vision_blurred",
                 "Bild unscharf: Kamera scharf stellen und fest montieren",
                 "The picture is blurred: focus the camera and mount it firmly")
#: A blur (`vision.sharpness`) of this share of a die's width or more leaves the dice often
#: unread. Chosen on the simulated evenings' mounts (seeds 100–119 per board): the four of 40
#: on which a quarter of the flat dice went unread measure 0.232–0.280, the others 0.02–0.217
#: and one 0.243 (98 of 100 read right). Checked on Mensch mounts 120–147: 6 warned, 7.8 % of
#: their flat dice unread; 22 not warned, 1.3 % (docs/calibration.md).
BLURRED_DIE_SHARE = 0.225
#: Dice narrower than this (pixels) are not read reliably. Rendered dice on 15 camera mounts per
#: board, every value: 640×360 (dice ~7 px) 98 of 270 read wrong, 960×540 (~11 px) 15 of 270,
#: 1280×720 (13–18 px) about 1 in 100.
MIN_DIE_PX = 12.0

STANDARD_BACKGAMMON = BackgammonBoard(points=(
    -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
EMPTY_HOUSE_LIMIT = 25.0  # squared spread units between a piece colour and its empty field
DIM_LEVEL = 0.22  # median board brightness (0..1) below which reading becomes unreliable
MIN_MARKERS = 2
FORMAT_VERSION = 1


class CalibrationError(ValueError):
    """Calibration is impossible from this picture or file; the message says why."""

    def __init__(self, message: str, why: Reason | None = None) -> None:
        super().__init__(message)
        self.reason = why


def maedn_start(players: int, geometry: MaednGeometry | None = None) -> MaednBoard:
    """The Hofer start: every seat's four pieces in its house."""
    (geometry or MaednGeometry()).seat_colours(players)
    return MaednBoard(pieces=tuple((-1, -1, -1, -1) for _ in range(players)))


@dataclass(frozen=True, slots=True)
class Lens:
    """Radial lens distortion about the picture's centre, which a homography cannot model:
    undistorted = c + (p − c)·(1 + kappa·r²), with r = |p − c| / picture width."""

    kappa: float
    size: tuple[int, int]

    def undistort(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.kappa == 0.0:
            return pts
        centre = np.array(self.size, np.float64) / 2
        rel = pts - centre
        r2 = (rel * rel).sum(axis=1, keepdims=True) / (self.size[0] ** 2)
        return centre + rel * (1 + self.kappa * r2)

    def distort(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.kappa == 0.0:
            return pts
        centre = np.array(self.size, np.float64) / 2
        rel_u = pts - centre
        rel = rel_u.copy()
        for _ in range(10):
            r2 = (rel * rel).sum(axis=1, keepdims=True) / (self.size[0] ** 2)
            rel = rel_u / (1 + self.kappa * r2)
        return centre + rel


@dataclass(frozen=True, slots=True)
class BoardFix:
    """Where the board lies in the picture: homography board mm → undistorted pixel, and the
    lens distortion on top of it."""

    homography: np.ndarray
    method: str  # "markers" or "outline"
    markers_found: tuple[int, ...]
    warnings: tuple[Reason, ...]
    lens: Lens

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Board mm → pixel in the picture as taken."""
        return _to_image(self.homography, self.lens, points_mm)


def _to_image(homography: np.ndarray, lens: Lens, points_mm: np.ndarray) -> np.ndarray:
    pts = np.asarray(points_mm, np.float64).reshape(1, -1, 2)
    return lens.distort(cv2.perspectiveTransform(pts, homography)[0])


@dataclass(frozen=True, slots=True)
class Calibration:
    """Everything the frame reader needs for one camera position and one board."""

    game: str
    image_size: tuple[int, int]
    homography: tuple[float, ...]  # 9 values, row by row
    method: str
    colours: pieces.ColourModel
    border_values: tuple[float, ...]
    border_chroma: tuple[tuple[float, float, float], ...]
    piece_colours: tuple[int, ...] = ()
    warnings: tuple[str, ...] = ()
    geometry_file: str | None = None
    rim_signs: tuple[float, float] = (-1.0, 1.0)  # white, black (see `pieces.rim_sign`)
    lens_kappa: float = 0.0
    camera_height_mm: float = DEFAULT_CAMERA_HEIGHT_MM  # lens above the board, as measured

    @property
    def matrix(self) -> np.ndarray:
        return np.array(self.homography, np.float64).reshape(3, 3)

    @property
    def lens(self) -> Lens:
        return Lens(self.lens_kappa, self.image_size)

    def parallax(self) -> Parallax:
        """How far a flat die's top face shows beyond its base: the camera's nadir taken as
        the picture's centre (the lens hangs level to within a few degrees)."""
        w, h = self.image_size
        return Parallax.of_camera((w / 2, h / 2), self.camera_height_mm)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Board mm → pixel in the picture as taken."""
        return _to_image(self.matrix, self.lens, points_mm)

    def geometry(self) -> TableGeometry:
        return load_geometry(self.geometry_file)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION, "game": self.game, "image_size": list(self.image_size),
            "homography": list(self.homography), "method": self.method,
            "colours": self.colours.to_json(), "border_values": list(self.border_values),
            "border_chroma": [list(c) for c in self.border_chroma],
            "piece_colours": list(self.piece_colours), "warnings": list(self.warnings),
            "geometry_file": self.geometry_file, "rim_signs": list(self.rim_signs),
            "lens_kappa": self.lens_kappa, "camera_height_mm": self.camera_height_mm,
        }

    def save(self, path: Path | str) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1), "utf-8")

    @classmethod
    def load(cls, path: Path | str) -> Calibration:
        """Read a calibration file; a missing or wrong key is named with the file."""
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{path}: cannot read calibration: {exc}") from exc
        try:
            if data["version"] != FORMAT_VERSION:
                raise CalibrationError(f"{path}: calibration version {data['version']!r} "
                                       f"is not {FORMAT_VERSION}; calibrate again")
            calib = cls(
                game=str(data["game"]), image_size=tuple(int(v) for v in data["image_size"]),
                homography=tuple(float(v) for v in data["homography"]),
                method=str(data["method"]),
                colours=pieces.ColourModel.from_json(data["colours"]),
                border_values=tuple(float(v) for v in data["border_values"]),
                border_chroma=tuple(tuple(float(x) for x in c) for c in data["border_chroma"]),
                piece_colours=tuple(int(v) for v in data["piece_colours"]),
                warnings=tuple(str(v) for v in data["warnings"]),
                geometry_file=data["geometry_file"],
                rim_signs=(float(data["rim_signs"][0]), float(data["rim_signs"][1])),
                lens_kappa=float(data["lens_kappa"]),
                # Files written before the height was asked for: the default mount.
                camera_height_mm=float(data.get("camera_height_mm", DEFAULT_CAMERA_HEIGHT_MM)),
            )
        except KeyError as exc:
            raise CalibrationError(f"{path}: calibration lacks key {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise CalibrationError(f"{path}: malformed calibration: {exc}") from exc
        if calib.game not in ("backgammon", "maedn") or len(calib.homography) != 9:
            raise CalibrationError(f"{path}: malformed calibration (game or homography)")
        return calib


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


def find_board(image: np.ndarray, game: str, geometry: TableGeometry | None = None,
               use_markers: bool = True) -> BoardFix:
    """Locate the board: from the ArUco markers when at least two are seen, else its outline."""
    check_image(image)
    geometry = geometry or load_geometry()
    width, height = geometry.board_size(game)
    warnings: list[Reason] = []
    read, squares = _detect_markers(image)
    found = read if use_markers else {}
    if use_markers and len(found) < 4:
        warnings.append(MARKERS_MISSING)
    h, w = image.shape[:2]
    try:
        outline: tuple[np.ndarray, np.ndarray] | None = _board_outline(image, squares)
        problem = None
    except CalibrationError as exc:
        outline, problem = None, exc
    lens = Lens(_estimate_kappa(*outline, (w, h)) if outline is not None else 0.0, (w, h))
    if len(found) >= MIN_MARKERS:
        known = geometry.markers.corners(width, height)
        src = np.concatenate([np.array(known[i]) for i in sorted(found)])
        dst = lens.undistort(np.concatenate([found[i] for i in sorted(found)]))
        hom, _ = cv2.findHomography(src, dst, 0)
        method = "markers"
        if len(found) < 4 and outline is not None and hom is not None:
            hom = _with_outline_corners(hom, src, dst, outline, lens, width, height)
    else:
        if outline is None:
            raise problem  # type: ignore[misc]
        hom, _ = cv2.findHomography(_board_corners(width, height), _outline_corners(outline, lens),
                                    0)
        method = "outline"
    if hom is None:
        raise CalibrationError("no homography from the board found", NO_BOARD)
    fix = BoardFix(hom / hom[2, 2], method, tuple(sorted(found)), tuple(warnings), lens)
    corners = fix.to_image(_board_corners(width, height))
    if (corners < -1).any() or (corners[:, 0] > w + 1).any() or (corners[:, 1] > h + 1).any():
        fix = BoardFix(fix.homography, method, fix.markers_found,
                       (*warnings, PARTLY_OUTSIDE), lens)
    return fix


#: An outline corner this far (board mm) from where the markers put the board's corner is the
#: same corner: it joins the fit. Three markers alone leave the far corner's region several mm
#: off; a farther outline corner is something else (a hand, a tray's edge) and is ignored.
OUTLINE_AGREES_MM = 25.0


def _with_outline_corners(hom: np.ndarray, src: np.ndarray, dst: np.ndarray,
                          outline: tuple[np.ndarray, np.ndarray], lens: Lens, width: float,
                          height: float) -> np.ndarray:
    """Refit a homography from fewer than four markers with the board outline's corners that
    agree with it: the outline spans the whole board where the markers seen do not."""
    corners = _outline_corners(outline, lens)
    board = _board_corners(width, height)
    predicted = cv2.perspectiveTransform(board.reshape(-1, 1, 2), hom).reshape(-1, 2)
    px_per_mm = float(np.linalg.norm(predicted[2] - predicted[0])) / float(np.hypot(width, height))
    agree = np.linalg.norm(corners - predicted, axis=1) <= OUTLINE_AGREES_MM * px_per_mm
    if not agree.any():
        return hom
    refit, _ = cv2.findHomography(np.concatenate([src, board[agree]]),
                                  np.concatenate([dst, corners[agree]]), 0)
    return refit if refit is not None else hom


def _marker_blur(image: np.ndarray, fix: BoardFix, geometry: TableGeometry, width: float,
                 height: float) -> float | None:
    """The picture's blur measured on the markers the board was found by (None without)."""
    known = geometry.markers.corners(width, height)
    quads = [fix.to_image(np.array(known[i])) for i in fix.markers_found]
    return marker_blur_px(image, quads)


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


#: Marker-like squares are blanked before the outline is traced: at most this share of the
#: picture (the board, seen as one big square, is far larger), at most this long for their
#: width (the detector also offers thin slivers of wood grain and the points' triangles).
MARKER_MAX_AREA = 0.01
MARKER_MAX_ASPECT = 1.5


def _marker_like(quad: np.ndarray, picture_area: float) -> bool:
    """True for a square small enough to be a corner marker (read or not)."""
    _, (a, b), _ = cv2.minAreaRect(quad.astype(np.float32))
    short, long = min(a, b), max(a, b)
    small = a * b <= MARKER_MAX_AREA * picture_area
    return short > 0 and long <= MARKER_MAX_ASPECT * short and small


def _board_outline(image: np.ndarray, squares: Sequence[np.ndarray] = ()
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The board is full of edges, the table top around it is plain: the outer contour of the
    edge map is the board's outline. Marker-like `squares` are blanked first, grown by half
    their size: a small marker near a corner blurs into the board's edges and would pull the
    outline's corner out to itself. Returns the contour's points and its four rough corners."""
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
        raise CalibrationError("board outline not found: no edges in the picture", NO_BOARD)
    contour = max(contours, key=lambda c: cv2.contourArea(cv2.convexHull(c)))
    hull = cv2.convexHull(contour)
    if cv2.contourArea(hull) < 0.05 * h * w:
        raise CalibrationError("board outline not found: the largest outlined area is too small",
                               NO_BOARD)
    x, y, bw, bh = cv2.boundingRect(contour)
    if x <= 2 or y <= 2 or x + bw >= w - 2 or y + bh >= h - 2:
        raise CalibrationError("board outline touches the picture's edge: part of the board is "
                               "outside the picture", PARTLY_OUTSIDE)
    approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(approx) != 4:
        raise CalibrationError(f"board outline has {len(approx)} corners, not 4", NO_BOARD)
    return contour.reshape(-1, 2).astype(np.float64), approx.astype(np.float64)


def _side_points(points: np.ndarray, approx: np.ndarray) -> list[np.ndarray]:
    """The contour points along each side between two rough corners (ends left out)."""
    sides = []
    for i in range(4):
        a, b = approx[i], approx[(i + 1) % 4]
        seg = b - a
        length = float(np.linalg.norm(seg))
        rel = points - a
        t = rel @ seg / (length * length)
        dist = np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / length
        sides.append(points[(t > 0.1) & (t < 0.9) & (dist < max(3.0, 0.03 * length))])
    return sides


def _estimate_kappa(points: np.ndarray, approx: np.ndarray, size: tuple[int, int]) -> float:
    """The lens distortion that makes the board's four sides straightest (plumb lines).

    Returns 0 when the outline is too ragged to tell (then nothing is corrected)."""

    def crookedness(kappa: float) -> float:
        lens = Lens(kappa, size)
        total, count = 0.0, 0
        for side in _side_points(lens.undistort(points), lens.undistort(approx)):
            if len(side) < 20:
                return float("inf")
            centred = side - side.mean(axis=0)
            total += float(np.linalg.eigvalsh(centred.T @ centred)[0])
            count += len(side)
        return total / count

    coarse = np.arange(-0.4, 0.4001, 0.02)
    best = float(coarse[int(np.argmin([crookedness(k) for k in coarse]))])
    fine = np.arange(best - 0.02, best + 0.0201, 0.002)
    scores = [crookedness(k) for k in fine]
    kappa = float(fine[int(np.argmin(scores))])
    if not np.isfinite(min(scores)) or min(scores) > 2.0 or abs(kappa) > 0.38:
        return 0.0
    return kappa


OUTLINE_INSET_PX = 1.5  # the traced contour runs this far outside the edge (dilated edges)


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
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        mat = np.array([d1, -d2]).T
        if abs(np.linalg.det(mat)) < 1e-9:
            out.append(approx[i])
            continue
        s, _ = np.linalg.solve(mat, p2 - p1)
        out.append(p1 + s * d1)
    return np.array(out)


def _board_corners(width: float, height: float) -> np.ndarray:
    """The board's corners in mm, in the order `_order_corners` gives the picture's."""
    return np.array([(0, 0), (width, 0), (width, height), (0, height)], np.float64)


def _outline_corners(outline: tuple[np.ndarray, np.ndarray], lens: Lens) -> np.ndarray:
    """The board's four corners from its traced outline, undistorted, top-left first."""
    points, approx = outline
    return _order_corners(_refine_corners(lens.undistort(points), lens.undistort(approx)))


def _order_corners(corners: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left as the camera sees them."""
    s = corners.sum(axis=1)
    d = corners[:, 0] - corners[:, 1]
    return np.array([corners[s.argmin()], corners[d.argmax()], corners[s.argmax()],
                     corners[d.argmin()]])


def warp_board(image: np.ndarray, homography: np.ndarray, width: float, height: float,
               lens: Lens | None = None) -> np.ndarray:
    """A top-down picture of the board at `pieces.WARP_PX_PER_MM` (only this region is warped).

    With a distorting lens the pixel lookup table is computed once per calibration."""
    if lens is None or lens.kappa == 0.0:
        scale = np.diag([1 / pieces.WARP_PX_PER_MM, 1 / pieces.WARP_PX_PER_MM, 1.0])
        return cv2.warpPerspective(image, homography @ scale, pieces.warp_size(width, height),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    map_x, map_y = _warp_maps(tuple(homography.ravel()), lens, width, height)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=8)
def _warp_maps(homography: tuple[float, ...], lens: Lens, width: float, height: float
               ) -> tuple[np.ndarray, np.ndarray]:
    w, h = pieces.warp_size(width, height)
    xs, ys = np.meshgrid(np.arange(w) / pieces.WARP_PX_PER_MM,
                         np.arange(h) / pieces.WARP_PX_PER_MM)  # as cv2.warpPerspective
    mm = np.column_stack([xs.ravel(), ys.ravel()])
    pixels = _to_image(np.array(homography).reshape(3, 3), lens, mm)
    return (pixels[:, 0].reshape(h, w).astype(np.float32),
            pixels[:, 1].reshape(h, w).astype(np.float32))


def calibrate(image: np.ndarray, game: str, start: BackgammonBoard | MaednBoard | None = None,
              geometry_file: str | None = None, use_markers: bool = True,
              players: int = 4,
              camera_height_mm: float = DEFAULT_CAMERA_HEIGHT_MM) -> Calibration:
    """Find the board and learn its colours from a picture of the starting position.

    `start` is the position on the board (default: the standard backgammon set-up, or every
    Mensch piece of `players` seats in its house). Warnings (dim light, board partly outside,
    markers missing) are logged and kept in the result. `camera_height_mm` (the lens above the
    board, measured when mounting) tells the dice reader how much side face a flat die shows.
    """
    check_image(image)
    Parallax.check_height(camera_height_mm)  # a height no table has: ValueError now
    geometry = load_geometry(geometry_file)
    board_geo = geometry.board(game)
    fix = find_board(image, game, geometry, use_markers)
    warp = warp_board(image, fix.homography, board_geo.width, board_geo.height, fix.lens)
    warnings = list(fix.warnings)
    if float(np.median(warp)) / 255.0 < DIM_LEVEL:
        warnings.append(TOO_DIM)
    die_px = die_size_px(fix.to_image, board_geo.width, board_geo.height)
    if die_px < MIN_DIE_PX:
        log.warning("calibration: dice will be %.1f px wide (at least %.0f read well)", die_px,
                    MIN_DIE_PX)
        warnings.append(DICE_TOO_SMALL)
    blur = _marker_blur(image, fix, geometry, board_geo.width, board_geo.height)
    if blur is not None and blur >= BLURRED_DIE_SHARE * die_px:
        log.warning("calibration: edges blurred by %.1f px, %.0f %% of a die's width", blur,
                    100 * blur / die_px)
        warnings.append(BLURRED)
    border = pieces.border_samples(board_geo.width, board_geo.height, board_geo.frame)
    border_feats = pieces.features(border.means(warp))
    values = border_feats[:, 3]
    coeffs, _ = pieces.fit_gain(border.centres, values / float(np.median(values)))
    gain_border = pieces.gain_at(coeffs, border.centres)
    intrinsic = values / gain_border
    if isinstance(board_geo, BackgammonGeometry):
        start = start if start is not None else STANDARD_BACKGAMMON
        if not isinstance(start, BackgammonBoard):
            raise ValueError("a backgammon calibration needs a BackgammonBoard start position")
        model, rims = _learn_backgammon(board_geo, warp, coeffs, start)
        colours: tuple[int, ...] = ()
    else:
        start = start if start is not None else maedn_start(players, board_geo)
        if not isinstance(start, MaednBoard):
            raise ValueError("a Mensch calibration needs a MaednBoard start position")
        model, colours = _learn_maedn(board_geo, warp, coeffs, start, fix, image.shape[:2])
        rims = (-1.0, 1.0)
    for warning in warnings:
        log.warning("calibration: %s / %s", warning.de, warning.en)
    return Calibration(
        game=game, image_size=(image.shape[1], image.shape[0]),
        homography=tuple(float(v) for v in fix.homography.ravel()), method=fix.method,
        colours=model, border_values=tuple(float(v) for v in intrinsic),
        border_chroma=tuple(tuple(float(x) for x in c) for c in border_feats[:, :3]),
        piece_colours=colours, warnings=tuple(w.key for w in warnings),
        geometry_file=geometry_file, rim_signs=rims, lens_kappa=fix.lens.kappa,
        camera_height_mm=float(camera_height_mm),
    )


def _learn_backgammon(geo: BackgammonGeometry, warp: np.ndarray, coeffs: np.ndarray,
                      start: BackgammonBoard) -> tuple[pieces.ColourModel, tuple[float, float]]:
    samples = pieces.lane_samples(geo)
    feats = pieces.features(warp[samples.ys, samples.xs], pieces.gain_at(coeffs, samples.mm))
    feats = feats.reshape(-1, 3, 4)
    bg = samples.background.reshape(-1, 3, 2)
    counts = [*start.points, start.bar_white, start.bar_black, start.off_white, start.off_black]
    colours = ["white" if c > 0 else "black" for c in start.points] + \
        ["white", "black", "white", "black"]
    groups: dict[str, list[np.ndarray]] = {name: [] for name in pieces.BACKGAMMON_CLASSES}
    signs: dict[str, list[float]] = {"white": [], "black": []}
    value = feats[..., 3].mean(axis=1)
    for lane, (a, b), count, colour in zip(samples.lanes, samples.bounds, counts, colours,
                                           strict=True):
        along = samples.along[a:b]
        extent = lane.extent(abs(count))
        on_checker = (along > 2) & (along < extent - 2)
        groups[colour].append(feats[a:b][on_checker].reshape(-1, 4))
        if abs(count) >= 2:
            signs[colour].append(pieces.rim_sign(along, value[a:b], lane, abs(count)))
        empty = along > extent + 4
        lane_bg = bg[a:b][empty]
        sure = lane_bg[..., 0] == lane_bg[..., 1]
        empty_feats = feats[a:b][empty][sure]
        for idx in np.unique(lane_bg[..., 0][sure]):
            name = pieces.BACKGAMMON_CLASSES[idx]
            groups[name].append(empty_feats[lane_bg[..., 0][sure] == idx])
    data = {k: np.concatenate(v) if v else np.empty((0, 4), np.float32)
            for k, v in groups.items()}
    missing = [k for k, v in data.items() if len(v) == 0]
    missing += [f"stack of two {k} checkers" for k, v in signs.items() if not v]
    if missing:
        raise CalibrationError(f"the start position shows no {', '.join(missing)}: "
                               "set up the standard start position")
    rims = (float(np.sign(np.sum(signs["white"]))) or -1.0,
            float(np.sign(np.sum(signs["black"]))) or 1.0)
    return pieces.ColourModel.fit(data), rims


def _learn_maedn(geo: MaednGeometry, warp: np.ndarray, coeffs: np.ndarray, start: MaednBoard,
                 fix: BoardFix, shape: tuple[int, ...],
                 ) -> tuple[pieces.ColourModel, tuple[int, ...]]:
    samples = pieces.field_samples(geo)
    feats = pieces.features(samples.means(warp), pieces.gain_at(coeffs, samples.centres))
    occupied = occupancy(geo, start)
    centres = fix.to_image(samples.centres)
    margin = geo.field_diameter * _px_per_mm(fix)
    visible = ((centres >= margin) & (centres <= np.array(shape[1::-1]) - margin)).all(axis=1)
    groups: dict[str, list[np.ndarray]] = {}
    for i, (name, look) in enumerate(zip(samples.names, samples.looks, strict=True)):
        if not visible[i]:
            continue  # outside the picture: nothing to learn there
        cls = f"piece{occupied[name]}" if name in occupied else look
        groups.setdefault(cls, []).append(feats[i])
    piece_colours = tuple(sorted(int(k[5:]) for k in groups if k.startswith("piece")))
    if not piece_colours:
        raise CalibrationError("the start position shows no pieces")
    model = pieces.ColourModel.fit({k: np.array(v) for k, v in groups.items()})
    missing = [k for k in ("track", "tint0", "tint1", "tint2", "tint3") if k not in model.names]
    if missing:
        raise CalibrationError(f"no empty field of kind {', '.join(missing)} is visible")
    index = {name: i for i, name in enumerate(samples.names)}
    if PARTLY_OUTSIDE in fix.warnings:
        return model, piece_colours  # far from the markers seen, too unsure to judge houses
    for colour in piece_colours:
        # A house said to be full must not look like the (empty) goal of the same colour.
        goal = [index[f"g{colour}{i}"] for i in range(4) if visible[index[f"g{colour}{i}"]]]
        if not goal:
            continue
        dist = model.distances(feats[goal])[:, model.index(f"piece{colour}")]
        if float(np.median(dist)) < EMPTY_HOUSE_LIMIT:
            raise CalibrationError(
                f"the house of colour {colour} looks empty: put its four pieces in, or "
                f"calibrate with fewer players (--players)")
    return model, piece_colours


def die_size_px(to_image: Callable[[np.ndarray], np.ndarray], width: float,
                height: float) -> float:
    """A die's width in pixels at the middle of a board `width` x `height` mm (`to_image`: a
    calibration's board mm → picture pixel): what the dice reader is told."""
    centre = np.array([(width / 2, height / 2), (width / 2 + 100, height / 2)])
    near, far = to_image(centre)
    return DIE_SIZE_MM * float(np.linalg.norm(far - near)) / 100


def _px_per_mm(fix: BoardFix) -> float:
    a, b = fix.to_image(np.array([(0.0, 0.0), (100.0, 0.0)]))
    return float(np.linalg.norm(b - a) / 100.0)


def occupancy(geo: MaednGeometry, board: MaednBoard) -> dict[str, int]:
    """Field name → colour of the piece standing there; raises when two pieces share a field."""
    colours = geo.seat_colours(len(board.pieces))
    out: dict[str, int] = {}
    for seat, positions in enumerate(board.pieces):
        house = 0
        for pos in sorted(positions):
            name = geo.field_name(colours[seat], pos, house)
            house += pos == -1
            if name in out:
                raise ValueError(f"two pieces on field {name}")
            out[name] = colours[seat]
    return out


def overlay(image: np.ndarray, calib: Calibration) -> np.ndarray:
    """A copy of `image` with every field outlined, for a person to check the calibration."""
    check_image(image)
    geometry = calib.geometry()
    board_geo = geometry.board(calib.game)
    out = image.copy()

    def poly(points: list[tuple[float, float]], colour: tuple[int, int, int]) -> None:
        pts = calib.to_image(np.array(points, np.float64))
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, 2, cv2.LINE_AA)

    w, h = board_geo.width, board_geo.height
    poly([(0, 0), (w, 0), (w, h), (0, h)], (0, 255, 255))
    if isinstance(board_geo, BackgammonGeometry):
        for point in range(1, 25):
            poly(list(board_geo.point_triangle(point)), (255, 0, 255))
        for lane in board_geo.lanes()[24:]:
            half = lane.width / 2 - 2
            end = lane.stack_length
            poly([lane.at(0, -half), lane.at(0, half), lane.at(end, half), lane.at(end, -half)],
                 (255, 255, 0))
    else:
        r = board_geo.field_diameter / 2
        ring = [(r * np.cos(a), r * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 24,
                                                                      endpoint=False)]
        for _, (cx, cy), _ in board_geo.fields():
            poly([(cx + dx, cy + dy) for dx, dy in ring], (255, 0, 255))
    x0, y0, x1, y1 = board_geo.dice_area
    poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], (0, 200, 0))
    return out
