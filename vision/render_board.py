"""Top-down drawing of a board in millimetre space: the "sheet" the renderer's camera looks at.

The sheet is the board plus a margin of table top (where the ArUco markers lie), drawn at
`PX_PER_MM` pixels per millimetre. The empty board is drawn once and cached; pieces, checkers
and dice are drawn on a copy for every frame.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision.geometry import (
    DIE_SIZE_MM,
    BackgammonGeometry,
    Lane,
    MaednGeometry,
    MarkerGeometry,
)

PX_PER_MM = 2.0
MARGIN_MM = 70.0

BGR = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours of one table (vision learns them at calibration; nothing is tuned to these).

    `checkers` and `checker_rims` are (White's, Black's); `pieces` and `tints` per colour 0..3.
    """

    table: BGR
    frame: BGR
    felt: BGR
    points: tuple[BGR, BGR]  # even, odd points
    tray: BGR
    checkers: tuple[BGR, BGR]
    checker_rims: tuple[BGR, BGR]
    maedn_background: BGR
    track_field: BGR
    pieces: tuple[BGR, BGR, BGR, BGR]
    tints: tuple[BGR, BGR, BGR, BGR]


HOFER = Palette(
    table=(125, 168, 200), frame=(38, 72, 118), felt=(45, 85, 35),
    points=((165, 205, 225), (40, 45, 165)), tray=(80, 120, 70),
    checkers=((222, 230, 234), (40, 42, 52)), checker_rims=((140, 150, 158), (105, 108, 118)),
    maedn_background=(170, 214, 232), track_field=(240, 242, 242),
    pieces=((20, 200, 235), (50, 160, 40), (40, 40, 200), (190, 90, 30)),
    tints=((150, 228, 242), (165, 215, 165), (165, 165, 240), (235, 195, 160)),
)
# Another table: walnut and maple, burgundy felt, ivory and red checkers, other piece colours.
WALNUT = Palette(
    table=(150, 150, 145), frame=(30, 45, 72), felt=(45, 35, 115),
    points=((130, 180, 210), (30, 50, 75)), tray=(60, 70, 80),
    checkers=((185, 222, 238), (35, 35, 175)), checker_rims=((110, 150, 170), (90, 90, 215)),
    maedn_background=(205, 210, 215), track_field=(250, 250, 250),
    pieces=((0, 130, 245), (140, 40, 130), (150, 150, 0), (35, 35, 35)),
    tints=((140, 200, 250), (200, 160, 200), (200, 200, 140), (150, 150, 150)),
)
PALETTES = {"hofer": HOFER, "walnut": WALNUT}
DIE_BODIES: tuple[tuple[BGR, BGR], ...] = (
    ((235, 238, 240), (25, 25, 25)),    # white with black pips
    ((40, 40, 190), (240, 240, 240)),   # red with white pips
    ((30, 30, 30), (235, 235, 235)),    # black with white pips
    ((190, 225, 235), (30, 30, 120)),   # ivory with dark red pips
    ((170, 110, 40), (240, 240, 240)),  # blue with white pips
)
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-0.5, -0.5), (0.5, 0.5)),
    3: ((-0.5, -0.5), (0, 0), (0.5, 0.5)),
    4: ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)),
    5: ((-0.5, -0.5), (0.5, -0.5), (0, 0), (-0.5, 0.5), (0.5, 0.5)),
    6: ((-0.5, -0.55), (0.5, -0.55), (-0.5, 0), (0.5, 0), (-0.5, 0.55), (0.5, 0.55)),
}


#: Each face of a die as (outward normal, in-face axes u and v) in the die's own frame, z up:
#: top, bottom, then the four sides.
_FACES: tuple[tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]], ...] = (
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, 1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
    ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
)


def _face_values(top: int) -> tuple[int, ...]:
    """The values on `_FACES` for a die showing `top`: opposite faces add up to seven."""
    first, second = (v for v in range(1, 7) if v not in (top, 7 - top) and v < 7 - v)
    return (top, 7 - top, first, second, 7 - first, 7 - second)


@dataclass(frozen=True, slots=True)
class PlacedDie:
    """A die on the board: its value, centre (mm), turn about the vertical and, when cocked,
    how far (radians) it is tilted onto one bottom edge, leaning on something.

    The die is a cube of `DIE_SIZE_MM`: seen from a camera off to the side it shows the side
    faces facing the camera as well as its top (half a die wide 25 cm off the lens's axis at
    half a metre), which is what a reader must tell apart from a die on its edge.
    """

    value: int
    centre: tuple[float, float]
    angle: float
    cocked: bool
    body: int  # index into DIE_BODIES
    tilt: float = 0.0

    def _to_board(self, local: np.ndarray) -> np.ndarray:
        """Points of the die's own frame (centre of the bottom face at 0, z up) → board mm."""
        half = DIE_SIZE_MM / 2
        x, y, z = local[:, 0], local[:, 1], local[:, 2]
        if self.cocked:  # turned about the bottom edge at x = -half, lifting the +x side
            lift, ct, st = x + half, math.cos(self.tilt), math.sin(self.tilt)
            x, z = -half + lift * ct - z * st, lift * st + z * ct
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.column_stack([self.centre[0] + x * c - y * s, self.centre[1] + x * s + y * c, z])

    def vertices(self) -> np.ndarray:
        """The cube's eight corners in board mm (x, y, height above the board)."""
        a = DIE_SIZE_MM
        local = np.array([(x, y, z) for z in (0.0, a) for x in (-a / 2, a / 2)
                          for y in (-a / 2, a / 2)])
        return self._to_board(local)

    def faces(self, eye: tuple[float, float, float]) -> list[tuple[np.ndarray, float]]:
        """The faces the camera at `eye` (board mm and height) sees: each as its four corners
        and then its pips' centres (board mm, with height) and how steeply it faces up (0..1)."""
        a = DIE_SIZE_MM
        centre = np.array([0.0, 0.0, a / 2])
        seen = []
        for (normal, u, v), value in zip(_FACES, _face_values(self.value), strict=True):
            n, u_, v_ = (np.array(d, np.float64) for d in (normal, u, v))
            mid = centre + n * a / 2
            corners = np.array([mid + (su * u_ + sv * v_) * a / 2
                                for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
            world = self._to_board(np.vstack([corners, mid, mid + n]))
            outward = world[5] - world[4]
            if outward @ (np.array(eye) - world[4]) <= 0:
                continue
            pips = [mid + (px * u_ + py * v_) * a / 2 * 0.62 for px, py in PIPS[value]]
            seen.append((np.vstack([world[:4], self._to_board(np.array(pips))]),
                         float(outward[2])))
        return seen

    def outline(self, eye: tuple[float, float, float]) -> np.ndarray:
        """Where the die's corners appear on the board plane, seen from `eye`."""
        return see_from(eye, self.vertices())


def see_from(eye: tuple[float, float, float], points: np.ndarray) -> np.ndarray:
    """The board-plane point (mm) behind each 3D point (mm, height) on the line from `eye`:
    drawn there on the sheet, the camera shows it where it would show the raised point."""
    ex, ey, height = eye
    scale = height / (height - points[:, 2])
    return np.column_stack([ex + (points[:, 0] - ex) * scale, ey + (points[:, 1] - ey) * scale])


class Sheet:
    """Maps board millimetres to sheet pixels for one board size."""

    def __init__(self, width_mm: float, height_mm: float) -> None:
        self.width_mm = width_mm
        self.height_mm = height_mm
        self.size = (round((width_mm + 2 * MARGIN_MM) * PX_PER_MM),
                     round((height_mm + 2 * MARGIN_MM) * PX_PER_MM))

    def px(self, x: float, y: float) -> tuple[int, int]:
        return (round((x + MARGIN_MM) * PX_PER_MM), round((y + MARGIN_MM) * PX_PER_MM))

    def pts(self, points: np.ndarray | list) -> np.ndarray:
        arr = (np.asarray(points, dtype=np.float64) + MARGIN_MM) * PX_PER_MM
        return np.round(arr).astype(np.int32)

    @staticmethod
    def mm(length: float) -> int:
        return max(1, round(length * PX_PER_MM))


def _grain(shape: tuple[int, int], seed: int) -> np.ndarray:
    """A fixed wood-grain-like brightness texture (values around 1.0)."""
    rng = np.random.default_rng(seed)
    h, w = shape
    small = rng.normal(0, 1, (max(2, h // 24), max(2, w // 3))).astype(np.float32)
    grain = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return 1.0 + 0.04 * grain


def _base(sheet: Sheet, palette: Palette, markers: MarkerGeometry | None) -> np.ndarray:
    w, h = sheet.size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = palette.table
    img = np.clip(img * _grain((h, w), 7)[..., None], 0, 255).astype(np.uint8)
    x0, y0 = sheet.px(0, 0)
    x1, y1 = sheet.px(sheet.width_mm, sheet.height_mm)
    board = np.full((y1 - y0, x1 - x0, 3), palette.frame, np.uint8)
    img[y0:y1, x0:x1] = np.clip(board * _grain(board.shape[:2], 11)[..., None], 0, 255)
    if markers is not None:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        for marker_id, corners in markers.corners(sheet.width_mm, sheet.height_mm).items():
            (mx0, my0), (mx1, my1) = sheet.px(*corners[0]), sheet.px(*corners[2])
            side = mx1 - mx0
            quiet = sheet.mm(6)
            cv2.rectangle(img, (mx0 - quiet, my0 - quiet), (mx1 + quiet, my1 + quiet),
                          (245, 245, 245), -1)
            marker = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
            img[my0:my0 + side, mx0:mx0 + side] = marker[..., None]
    return img


@functools.lru_cache(maxsize=8)
def backgammon_base(geo: BackgammonGeometry, markers: MarkerGeometry | None,
                    palette: Palette = HOFER) -> np.ndarray:
    """The empty backgammon board (cached; callers must copy before drawing)."""
    sheet = Sheet(geo.width, geo.height)
    img = _base(sheet, palette, markers)
    _, y0, _, y1 = geo.inner_rect
    for left in (geo.left_x, geo.right_x):
        cv2.rectangle(img, sheet.px(left, y0), sheet.px(left + 6 * geo.point_width, y1),
                      palette.felt, -1)
    for point in range(1, 25):
        tri = sheet.pts(geo.point_triangle(point))
        cv2.fillConvexPoly(img, tri, palette.points[point % 2], lineType=cv2.LINE_AA)
    for colour in ("white", "black"):
        tx0, ty0, tx1, ty1 = geo.tray_rect(colour)
        cv2.rectangle(img, sheet.px(tx0, ty0), sheet.px(tx1, ty1), palette.tray, -1)
    img.flags.writeable = False
    return img


@functools.lru_cache(maxsize=8)
def maedn_base(geo: MaednGeometry, markers: MarkerGeometry | None,
               palette: Palette = HOFER) -> np.ndarray:
    """The empty Mensch board (cached; callers must copy before drawing)."""
    sheet = Sheet(geo.width, geo.height)
    img = _base(sheet, palette, markers)
    f = geo.frame
    cv2.rectangle(img, sheet.px(f, f), sheet.px(geo.width - f, geo.height - f),
                  palette.maedn_background, -1)
    track = geo.track()
    line = sheet.mm(2)
    for i in range(40):
        cv2.line(img, sheet.px(*track[i]), sheet.px(*track[(i + 1) % 40]), (60, 60, 60), line)
    radius = sheet.mm(geo.field_diameter / 2)
    for _name, centre, look in geo.fields():
        colour = palette.track_field if look == "track" else palette.tints[int(look[-1])]
        cv2.circle(img, sheet.px(*centre), radius, colour, -1, cv2.LINE_AA)
        cv2.circle(img, sheet.px(*centre), radius, (40, 40, 40), sheet.mm(1.2), cv2.LINE_AA)
    img.flags.writeable = False
    return img


def _shade(colour: BGR, factor: float) -> BGR:
    return tuple(int(np.clip(c * factor, 0, 255)) for c in colour)  # type: ignore[return-value]


def draw_checkers(img: np.ndarray, sheet: Sheet, lane: Lane, count: int, colour: str,
                  rng: np.random.Generator, palette: Palette = HOFER) -> None:
    """Draw `count` checkers on a lane, overlapping like shingles where the lane is full."""
    side = 0 if colour == "white" else 1
    body, rim = palette.checkers[side], palette.checker_rims[side]
    if lane.compress:
        r = lane.pitch / 2
        for off in lane.offsets(count):
            jitter = rng.normal(0, 0.4, 2)
            cx, cy = lane.at(off + r + jitter[0], jitter[1])
            centre = sheet.px(cx, cy)
            shadow = tuple(int(c * 0.55) for c in img[centre[1], centre[0]])
            cv2.circle(img, sheet.px(cx + 1.5, cy + 1.5), sheet.mm(r), shadow, -1, cv2.LINE_AA)
            shade = _shade(body, rng.uniform(0.94, 1.04))
            cv2.circle(img, centre, sheet.mm(r), shade, -1, cv2.LINE_AA)
            cv2.circle(img, centre, sheet.mm(r - 0.8), rim, sheet.mm(1.6), cv2.LINE_AA)
        return
    half = 15.0
    for off in lane.offsets(count):
        corners = [lane.at(off, -half), lane.at(off, half), lane.at(off + lane.pitch, half),
                   lane.at(off + lane.pitch, -half)]
        cv2.fillConvexPoly(img, sheet.pts(corners), _shade(body, rng.uniform(0.9, 1.0)),
                           cv2.LINE_AA)
        cv2.polylines(img, [sheet.pts(corners)], True, rim, sheet.mm(1.2), cv2.LINE_AA)


def draw_backgammon(img: np.ndarray, geo: BackgammonGeometry, board: BackgammonBoard,
                    rng: np.random.Generator, palette: Palette = HOFER) -> None:
    sheet = Sheet(geo.width, geo.height)
    lanes = geo.lanes()
    for i, n in enumerate(board.points):
        if n:
            draw_checkers(img, sheet, lanes[i], abs(n), "white" if n > 0 else "black", rng,
                          palette)
    extra = (board.bar_white, board.bar_black, board.off_white, board.off_black)
    for lane, n, colour in zip(lanes[24:], extra, ("white", "black", "white", "black"),
                               strict=True):
        draw_checkers(img, sheet, lane, n, colour, rng, palette)


def draw_maedn(img: np.ndarray, geo: MaednGeometry, board: MaednBoard,
               rng: np.random.Generator, palette: Palette = HOFER) -> None:
    sheet = Sheet(geo.width, geo.height)
    colours = geo.seat_colours(len(board.pieces))
    centres = {name: centre for name, centre, _ in geo.fields()}
    r = geo.piece_diameter / 2
    for seat, pieces in enumerate(board.pieces):
        colour = colours[seat]
        house = 0
        for pos in sorted(pieces):
            name = geo.field_name(colour, pos, house)
            house += pos == -1
            jitter = rng.normal(0, 0.8, 2)
            cx, cy = centres[name][0] + jitter[0], centres[name][1] + jitter[1]
            base = palette.pieces[colour]
            shadow = tuple(int(c * 0.5) for c in img[sheet.px(cx, cy)[::-1]])
            cv2.circle(img, sheet.px(cx + 2.5, cy + 2.5), sheet.mm(r), shadow, -1, cv2.LINE_AA)
            cv2.circle(img, sheet.px(cx, cy), sheet.mm(r), _shade(base, 0.8), -1, cv2.LINE_AA)
            cv2.circle(img, sheet.px(cx, cy), sheet.mm(r * 0.8), base, -1, cv2.LINE_AA)
            cv2.circle(img, sheet.px(cx - 0.8, cy - 0.8), sheet.mm(r * 0.42),
                       _shade(base, 1.15), -1, cv2.LINE_AA)


#: A die's shadow keeps this share of the light on the board beneath it (as the checkers' and
#: pieces' shadows do): a shadow darkens the felt or wood, it does not paint it black.
DIE_SHADOW = 0.5


def _darken(img: np.ndarray, polygon: np.ndarray, keep: float) -> None:
    """Multiply the pixels under `polygon` (sheet pixels) by `keep`, edges anti-aliased."""
    x, y, w, h = cv2.boundingRect(polygon)
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(img.shape[1], x + w), min(img.shape[0], y + h)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, polygon - np.array([x0, y0], np.int32), 1.0, cv2.LINE_AA)
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1.0 - (1.0 - keep) * mask[..., None])).astype(np.uint8)


def draw_die(img: np.ndarray, sheet: Sheet, die: PlacedDie,
             eye: tuple[float, float, float]) -> None:
    """Draw a die as the camera at `eye` sees it: its shadow, then every face turned towards
    the camera, shaded by how steeply it faces up, with its pips."""
    body, pip = DIE_BODIES[die.body]
    lamp = die.vertices()
    lamp = lamp[:, :2] + 0.2 * lamp[:, 2:3]  # a lamp high up and a little to one side
    _darken(img, cv2.convexHull(sheet.pts(lamp).reshape(-1, 1, 2)), DIE_SHADOW)
    for points, facing_up in die.faces(eye):
        flat = see_from(eye, points)
        shade = 0.55 + 0.45 * max(0.0, facing_up)
        outline = sheet.pts(flat[:4])
        cv2.fillConvexPoly(img, outline, _shade(body, shade), cv2.LINE_AA)
        cv2.polylines(img, [outline], True, _shade(body, 0.75 * shade), sheet.mm(0.8),
                      cv2.LINE_AA)
        ring = _pip_ring(points[:4])
        for centre in points[4:]:
            cv2.fillConvexPoly(img, sheet.pts(see_from(eye, centre + ring)),
                               _shade(pip, shade), cv2.LINE_AA)


def _pip_ring(face: np.ndarray) -> np.ndarray:
    """Offsets (mm, in the face's plane) of a round pip's edge: 1.5 mm radius."""
    u = (face[1] - face[0]) / np.linalg.norm(face[1] - face[0])
    v = (face[3] - face[0]) / np.linalg.norm(face[3] - face[0])
    turn = np.linspace(0, 2 * math.pi, 12, endpoint=False)[:, None]
    return 1.5 * (np.cos(turn) * u + np.sin(turn) * v)
