"""Where in the top-down warp to look for each field's piece, and which places never hold one.

A piece is tall: seen from a camera off its nadir, a Mensch pawn's head and a stack's top lean
outwards (`vision.camera_pose.CameraPose.lean`). Each field is read on a small disc that the
piece standing *there* always covers — from its base a little way towards where it leans —
and that a neighbour's leaning head does not reach. Backgammon lanes are read along their axis,
a band of pixels wide, shifted sideways by a checker's lean.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera_pose import CameraPose
from vision.geometry import BackgammonGeometry, Lane, MaednGeometry
from vision.lens import WARP_PX_PER_MM

#: A Mensch pawn is about this many times as tall as it is wide at its base.
PAWN_HEIGHT = 1.3
#: The read disc's radius, as a share of the pawn's base.
DISC = 0.3
#: Across a lane, samples at these shares of a checker's diameter from the axis.
ACROSS = (-0.22, 0.0, 0.22)
#: Samples along a lane, every this many mm.
ALONG_STEP = 1.0
#: The hand search looks at every this many mm of the board.
COARSE_MM = 4.0


def to_px(mm: np.ndarray, limit: float) -> np.ndarray:
    top = round(limit * WARP_PX_PER_MM) - 1
    return np.clip(np.floor(np.asarray(mm) * WARP_PX_PER_MM), 0, top).astype(np.intp)


@dataclass(frozen=True)
class FieldDiscs:
    """Per Mensch field (in `MaednGeometry.fields()` order) a disc of warp pixels."""

    names: tuple[str, ...]
    looks: tuple[str, ...]
    centres: np.ndarray  # (F, 2) mm: the fields' centres
    ys: np.ndarray  # (F, K)
    xs: np.ndarray


def field_discs(geo: MaednGeometry, pose: CameraPose) -> FieldDiscs:
    return _field_discs(geo, pose.nadir, pose.height)


@functools.lru_cache(maxsize=8)
def _field_discs(geo: MaednGeometry, nadir: tuple[float, float], height: float) -> FieldDiscs:
    fields = geo.fields()
    centres = np.array([c for _, c, _ in fields], np.float64)
    pose = CameraPose(nadir, height, 1.0)
    lean = pose.lean(centres, PAWN_HEIGHT * geo.piece_diameter)
    reach = np.linalg.norm(lean, axis=1, keepdims=True)
    limit = 0.25 * geo.field_diameter
    shift = 0.4 * lean * np.minimum(1.0, limit / np.maximum(0.4 * reach, 1e-9))
    radius = max(3.0, DISC * geo.piece_diameter)
    grid = np.arange(-radius, radius + 1e-9, 1.0 / WARP_PX_PER_MM)
    dx, dy = np.meshgrid(grid, grid)
    keep = dx * dx + dy * dy <= radius * radius
    dx, dy = dx[keep], dy[keep]
    at = centres + shift
    xs = to_px(at[:, :1] + dx[None, :], geo.width)
    ys = to_px(at[:, 1:] + dy[None, :], geo.height)
    return FieldDiscs(tuple(n for n, _, _ in fields), tuple(lk for _, _, lk in fields),
                      centres, ys, xs)


@dataclass(frozen=True)
class LaneRows:
    """Per lane, rows of pixels across it every `ALONG_STEP` mm from its origin."""

    lanes: tuple[Lane, ...]
    along: tuple[np.ndarray, ...]  # per lane (P,)
    ys: tuple[np.ndarray, ...]  # per lane (P, len(ACROSS))
    xs: tuple[np.ndarray, ...]
    lean: tuple[float, ...]  # per lane: how far a flat checker's top leans along the lane (mm)
    top_lean: tuple[float, ...]  # ... a checker standing on its edge (trays)

    @functools.cached_property
    def all_ys(self) -> np.ndarray:
        """Every lane's rows, one after the other (lane i at `bounds[i]`)."""
        return np.concatenate(self.ys)

    @functools.cached_property
    def all_xs(self) -> np.ndarray:
        return np.concatenate(self.xs)

    @functools.cached_property
    def bounds(self) -> tuple[tuple[int, int], ...]:
        ends = np.cumsum([len(a) for a in self.along])
        return tuple((int(e - len(a)), int(e)) for a, e in zip(self.along, ends, strict=True))


def lane_rows(geo: BackgammonGeometry, pose: CameraPose) -> LaneRows:
    return _lane_rows(geo, pose.nadir, pose.height)


@functools.lru_cache(maxsize=8)
def _lane_rows(geo: BackgammonGeometry, nadir: tuple[float, float], height: float) -> LaneRows:
    pose = CameraPose(nadir, height, 1.0)
    lanes = geo.lanes()
    alongs, ys, xs, leans, tops = [], [], [], [], []
    for lane in lanes:
        along = np.arange(1.5, lane.stack_length + 8.0, ALONG_STEP)
        mid = np.array([lane.at(lane.stack_length / 2)])
        flat = pose.lean(mid, geo.checker_thickness)[0]
        edge = pose.lean(mid, geo.checker_diameter)[0]
        direction = np.array(lane.direction)
        across_dir = np.array([-direction[1], direction[0]])
        height_here = geo.checker_diameter if not lane.compress else geo.checker_thickness
        side = float(pose.lean(mid, height_here)[0] @ across_dir) * 0.5
        offsets = np.array(ACROSS) * min(lane.width, geo.checker_diameter) + side
        pts = np.array([[lane.at(float(a), float(c)) for c in offsets] for a in along])
        xs.append(to_px(pts[..., 0], geo.width))
        ys.append(to_px(pts[..., 1], geo.height))
        alongs.append(along)
        leans.append(float(flat @ direction))
        tops.append(float(edge @ direction))
    return LaneRows(lanes, tuple(alongs), tuple(ys), tuple(xs), tuple(leans), tuple(tops))


@dataclass(frozen=True)
class CoarseGrid:
    """Every `COARSE_MM` of the board's playing surface, for finding a hand or an object."""

    ys: np.ndarray
    xs: np.ndarray
    shape: tuple[int, int]


@functools.lru_cache(maxsize=8)
def coarse_grid(width: float, height: float) -> CoarseGrid:
    gx = np.arange(COARSE_MM / 2, width, COARSE_MM)
    gy = np.arange(COARSE_MM / 2, height, COARSE_MM)
    mx, my = np.meshgrid(gx, gy)
    return CoarseGrid(to_px(my, height), to_px(mx, width), mx.shape)


def piece_zones(geo: BackgammonGeometry | MaednGeometry, pose: CameraPose, grid: CoarseGrid,
                trays_only: bool = False) -> np.ndarray:
    """(grid shape) True where a piece may show: on a field or lane, and where it leans and
    casts its shadow. Anything else that changes (off the fields, off the points) is not a
    piece: a hand, an arm, an object — or a die, which is small. `trays_only`: only where
    the trays' piles of checkers standing on their edge may show."""
    h, w = grid.shape
    xs = grid.xs.reshape(h, w).astype(np.float64) / WARP_PX_PER_MM
    ys = grid.ys.reshape(h, w).astype(np.float64) / WARP_PX_PER_MM
    zone = np.zeros((h, w), bool)
    if isinstance(geo, BackgammonGeometry):
        for lane in geo.lanes():
            if trays_only and lane.compress:
                continue
            tall = geo.checker_diameter if not lane.compress else 3 * geo.checker_thickness
            lean = pose.lean(np.array([lane.at(lane.stack_length / 2)]), tall)[0]
            reach = float(np.hypot(*lean)) + 6.0
            ends = np.array([lane.at(-2.0), lane.at(lane.stack_length + 4.0)])
            x0, x1 = ends[:, 0].min() - lane.width / 2 - reach, ends[:, 0].max() + \
                lane.width / 2 + reach
            y0, y1 = ends[:, 1].min() - reach, ends[:, 1].max() + reach
            zone |= (xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)
        return zone
    if trays_only:
        return zone
    tall = PAWN_HEIGHT * geo.piece_diameter
    for _, centre, _ in geo.fields():
        lean = pose.lean(np.array([centre]), tall)[0]
        for k in np.linspace(0.0, 1.0, 5):
            cx, cy = centre[0] + k * lean[0], centre[1] + k * lean[1]
            zone |= (xs - cx) ** 2 + (ys - cy) ** 2 <= (geo.field_diameter / 2 + 6.0) ** 2
    return zone


def free_mask(geo: BackgammonGeometry | MaednGeometry, pose: CameraPose) -> np.ndarray:
    """(warp shape) True where no piece can stand or lean: the frame, the bar's and trays'
    rims, the print between the fields. What moves there moved with the board or the camera."""
    grid = coarse_grid(geo.width, geo.height)
    zones = piece_zones(geo, pose, grid).astype(np.uint8)
    w, h = round(geo.width * WARP_PX_PER_MM), round(geo.height * WARP_PX_PER_MM)
    return cv2.resize(zones, (w, h), interpolation=cv2.INTER_NEAREST) == 0
