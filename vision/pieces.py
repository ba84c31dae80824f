"""Field occupancy (Mensch) and checker counts (backgammon) from a top-down warp of the board.

Nothing here is tuned per table: every colour is a class learned during calibration (the mean
and spread of chromaticity and light-corrected brightness), and a pixel or field is assigned to
the nearest class it may be, or marked unexplained when it resembles none (a hand, a shadow).
Sampling positions are computed once from the geometry, so a frame costs one warp and a few
vectorised look-ups.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from vision.geometry import BackgammonGeometry, Lane, MaednGeometry

WARP_PX_PER_MM = 1.0
BACKGAMMON_CLASSES = ("white", "black", "point0", "point1", "felt", "bar", "tray")
_FLOOR = np.array([0.010, 0.010, 0.010, 0.045], np.float32) ** 2
_ACROSS = (-4.0, 0.0, 4.0)
MOST = 15  # checkers of one colour
EDGE_TOLERANCE = 2.0  # mm next to a triangle's edge where point and felt both explain a pixel


def features(bgr: np.ndarray, gain: np.ndarray | float = 1.0) -> np.ndarray:
    """(N, 3) BGR → (N, 4): chromaticity (b, g, r) and brightness divided by the light gain.

    Chromaticity does not change when the light gets brighter or dimmer; the small offsets keep
    it steady on dark pixels, where sensor noise dominates.
    """
    f = np.asarray(bgr, np.float32).reshape(-1, 3)
    total = f.sum(axis=1, keepdims=True)
    chroma = (f + 8.0) / (total + 24.0)
    value = total[:, 0] / (3 * 255.0) / gain
    return np.column_stack([chroma, value]).astype(np.float32)


@dataclass(frozen=True, slots=True)
class ColourModel:
    """Learned colour classes: per class the mean and variance of the four features."""

    names: tuple[str, ...]
    means: tuple[tuple[float, ...], ...]
    variances: tuple[tuple[float, ...], ...]

    @classmethod
    def fit(cls, samples: dict[str, np.ndarray], inflate: float = 2.0) -> ColourModel:
        """Learn each class from its (N, 4) feature samples; `inflate` widens the spread a little
        so that later frames under slightly different light still fit."""
        names, means, variances = [], [], []
        for name, feats in samples.items():
            if len(feats) == 0:
                continue
            names.append(name)
            means.append(tuple(float(v) for v in feats.mean(axis=0)))
            var = np.maximum(feats.var(axis=0) * inflate, _FLOOR)
            variances.append(tuple(float(v) for v in var))
        return cls(tuple(names), tuple(means), tuple(variances))

    def index(self, name: str) -> int:
        return self.names.index(name)

    def distances(self, feats: np.ndarray) -> np.ndarray:
        """(N, 4) features → (N, K) squared distances in units of each class's spread."""
        means, inv_var = self.arrays()
        diff = feats[:, None, :] - means[None, :, :]
        return np.einsum("nkf,kf->nk", diff * diff, inv_var)

    def mixture_distances(self, feats: np.ndarray, first: np.ndarray, second: np.ndarray
                          ) -> np.ndarray:
        """Distance of each pixel to the nearest blend of two classes (a pixel on the border
        between two colours shows some of each)."""
        means, inv_var = self.arrays()
        a, b = means[first], means[second]
        weight = 0.5 * (inv_var[first] + inv_var[second])
        span = a - b
        alpha = ((feats - b) * weight * span).sum(axis=1) / np.maximum(
            (span * weight * span).sum(axis=1), 1e-12)
        nearest = b + np.clip(alpha, 0, 1)[:, None] * span
        diff = feats - nearest
        return (diff * diff * weight).sum(axis=1)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.array(self.means, np.float32), 1.0 / np.array(self.variances, np.float32))

    def to_json(self) -> dict:
        return {name: {"mean": list(m), "var": list(v)}
                for name, m, v in zip(self.names, self.means, self.variances, strict=True)}

    @classmethod
    def from_json(cls, data: dict) -> ColourModel:
        names = tuple(data)
        return cls(names, tuple(tuple(float(x) for x in data[n]["mean"]) for n in names),
                   tuple(tuple(float(x) for x in data[n]["var"]) for n in names))


@dataclass(frozen=True, slots=True)
class BorderSamples:
    """Segments of the wooden frame: never covered by play, so they measure the light."""

    ys: np.ndarray  # (S, K) warp pixel rows
    xs: np.ndarray
    centres: np.ndarray  # (S, 2) mm

    def means(self, warp: np.ndarray) -> np.ndarray:
        return warp[self.ys, self.xs].astype(np.float32).mean(axis=1)


@functools.lru_cache(maxsize=8)
def border_samples(width: float, height: float, frame: float) -> BorderSamples:
    """The frame's middle line, cut into pieces of about 50 mm, each a band of pixels."""
    half_band = max(1.0, frame * 0.25)
    mid = frame / 2
    ys_list, xs_list, centres = [], [], []
    for (x0, y0), (x1, y1) in (((mid, mid), (width - mid, mid)),
                               ((width - mid, mid), (width - mid, height - mid)),
                               ((width - mid, height - mid), (mid, height - mid)),
                               ((mid, height - mid), (mid, mid))):
        length = math.hypot(x1 - x0, y1 - y0)
        pieces = max(2, round(length / 50))
        for k in range(pieces):
            t = np.linspace(k / pieces + 0.1 / pieces, (k + 0.9) / pieces, 12)
            px, py = x0 + (x1 - x0) * t, y0 + (y1 - y0) * t
            nx, ny = -(y1 - y0) / length, (x1 - x0) / length
            offs = np.linspace(-half_band, half_band, 3)
            gx = (px[:, None] + nx * offs[None, :]).ravel()
            gy = (py[:, None] + ny * offs[None, :]).ravel()
            xs_list.append(_px(gx, width))
            ys_list.append(_px(gy, height))
            centres.append((float(px.mean()), float(py.mean())))
    return BorderSamples(np.array(ys_list), np.array(xs_list), np.array(centres))


def _px(mm: np.ndarray, limit: float) -> np.ndarray:
    top = round(limit * WARP_PX_PER_MM) - 1
    return np.clip(np.floor(np.asarray(mm) * WARP_PX_PER_MM), 0, top).astype(np.intp)


def warp_size(width: float, height: float) -> tuple[int, int]:
    return (round(width * WARP_PX_PER_MM), round(height * WARP_PX_PER_MM))


def fit_gain(centres: np.ndarray, ratios: np.ndarray) -> tuple[np.ndarray, float]:
    """Fit gain = a + b·x + c·y (x, y in metres) to the frame's brightness ratios.

    Returns the coefficients and the largest misfit: a hand or a shadow on the frame shows as
    a segment far off the plane.
    """
    basis = np.column_stack([np.ones(len(centres)), centres / 1000.0])
    coeffs, *_ = np.linalg.lstsq(basis, ratios, rcond=None)
    misfit = np.abs(basis @ coeffs - ratios) / np.maximum(basis @ coeffs, 1e-6)
    return coeffs, float(misfit.max())


def gain_at(coeffs: np.ndarray, xy_mm: np.ndarray) -> np.ndarray:
    return np.maximum(coeffs[0] + xy_mm @ coeffs[1:] / 1000.0, 0.05)


# ---- backgammon -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LaneSamples:
    """Where to look along every lane: P positions × 3 pixels across, 1 mm apart, from 3 mm."""

    lanes: tuple[Lane, ...]
    ys: np.ndarray  # (P, 3)
    xs: np.ndarray  # (P, 3)
    mm: np.ndarray  # (P * 3, 2) board position of each pixel, for the light gain
    along: np.ndarray  # (P,)
    bounds: tuple[tuple[int, int], ...]  # per lane: [start, stop) into P
    background: np.ndarray  # (P * 3, 2) class indices that explain an empty pixel
    covered: tuple[np.ndarray, ...]  # per lane: (16, positions) where n = 0..15 checkers lie

    @functools.cached_property
    def mixed(self) -> np.ndarray:
        """Pixels on a triangle's edge, which may show a blend of point and felt."""
        return np.flatnonzero(self.background[:, 0] != self.background[:, 1])

    @functools.cached_property
    def starts(self) -> np.ndarray:
        return np.array([a for a, _ in self.bounds], np.intp)

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        return np.array([b - a for a, b in self.bounds], np.intp)

    @functools.cached_property
    def covered_all(self) -> np.ndarray:
        """(16, P): where 0..15 checkers lie, all lanes side by side."""
        return np.concatenate(self.covered, axis=1)


@functools.lru_cache(maxsize=8)
def lane_samples(geo: BackgammonGeometry) -> LaneSamples:
    lanes = geo.lanes()
    ys, xs, mm, along_all, bg, bounds = [], [], [], [], [], []
    start = 0
    for lane in lanes:
        top = lane.stack_length if lane.compress else lane.pitch * 15
        along = np.arange(3.0, top + 6.0, 1.0)  # the first mm mix with the frame
        for a in along:
            row_x, row_y = [], []
            for c in _ACROSS:
                x, y = lane.at(float(a), c)
                row_x.append(x)
                row_y.append(y)
                mm.append((x, y))
                bg.append(_background(geo, lane, float(a), c))
            xs.append(_px(np.array(row_x), geo.width))
            ys.append(_px(np.array(row_y), geo.height))
        along_all.append(along)
        bounds.append((start, start + len(along)))
        start += len(along)
    names = BACKGAMMON_CLASSES
    bg_idx = np.array([[names.index(a), names.index(b)] for a, b in bg], np.intp)
    covered = tuple(np.array([along < lane.extent(n) for n in range(MOST + 1)], np.float32)
                    for lane, along in zip(lanes, along_all, strict=True))
    return LaneSamples(lanes, np.array(ys), np.array(xs), np.array(mm, np.float64),
                       np.concatenate(along_all), tuple(bounds), bg_idx, covered)


def _background(geo: BackgammonGeometry, lane: Lane, along: float, across: float
                ) -> tuple[str, str]:
    if lane.background in ("bar", "tray"):
        return lane.background, lane.background
    half = lane.width / 2 * (1 - along / geo.point_length)
    if abs(across) < half - EDGE_TOLERANCE:
        return lane.background, lane.background
    if abs(across) > half + EDGE_TOLERANCE:
        return "felt", "felt"
    return lane.background, "felt"


@dataclass(frozen=True, slots=True)
class LaneReading:
    """How many checkers of which colour one lane holds, and how sure that is."""

    count: int
    colour: str  # "white", "black" or "" when empty
    confidence: float
    unexplained: float  # fraction of pixels that fit no class


def read_lanes(samples: LaneSamples, warp: np.ndarray, gain: np.ndarray, model: ColourModel,
               max_distance: float, rim_signs: tuple[float, float] = (-1.0, 1.0),
               ) -> list[LaneReading]:
    """Count the checkers on every lane of a warped backgammon board.

    `rim_signs` (white, black): +1 where the rim between two checkers looks lighter than the
    checkers, -1 where darker (learned at calibration, see `rim_sign`). Everything that does
    not depend on the count is computed for all lanes at once.
    """
    feats = features(warp[samples.ys, samples.xs].reshape(-1, 3), gain)
    means, inv_var = model.arrays()
    white, black = model.index("white"), model.index("black")
    bg0, bg1 = samples.background[:, 0], samples.background[:, 1]
    d_white = _distance(feats, means[white], inv_var[white])
    d_black = _distance(feats, means[black], inv_var[black])
    d_bg = _distance(feats, means[bg0], inv_var[bg0])
    mixed = samples.mixed
    d_bg[mixed] = np.minimum.reduce([
        d_bg[mixed], _distance(feats[mixed], means[bg1[mixed]], inv_var[bg1[mixed]]),
        model.mixture_distances(feats[mixed], bg0[mixed], bg1[mixed])])
    nearest = np.minimum(np.minimum(d_white, d_black), d_bg)
    white_n = ((d_white == nearest).reshape(-1, 3)).sum(axis=1)
    black_n = ((d_black == nearest).reshape(-1, 3)).sum(axis=1)
    bad_n = (nearest > max_distance).reshape(-1, 3).sum(axis=1)
    value = feats[:, 3].reshape(-1, 3).mean(axis=1)
    starts = samples.starts
    lengths = samples.lengths
    is_white = np.add.reduceat(white_n, starts) >= np.add.reduceat(black_n, starts)
    occupied = np.where(np.repeat(is_white, lengths), white_n >= 2, black_n >= 2)
    misfit = np.add.reduceat(np.abs(samples.covered_all - occupied[None, :]), starts, axis=1)
    agreement = 1.0 - misfit.T / lengths[:, None]  # (lanes, 0..15 checkers)
    order = np.argsort(-agreement, axis=1)[:, :2]
    bad = np.add.reduceat(bad_n, starts) / (3.0 * lengths)
    out = []
    for i, lane in enumerate(samples.lanes):
        a, b = samples.bounds[i]
        best, second = agreement[i, order[i, 0]], agreement[i, order[i, 1]]
        count = int(order[i, 0])
        conf = float(np.clip((best - second) / (lane.pitch / (b - a)), 0, 1))
        colour = "white" if is_white[i] else "black"
        sign = rim_signs[0] if is_white[i] else rim_signs[1]
        if lane.compress and count >= int(lane.stack_length // lane.pitch):
            count, conf = _count_by_rims(lane, samples.along[a:b],
                                         sign * _line_profile(value[a:b], 3))
        elif not lane.compress and count:
            count, conf = _count_on_edge(lane, samples.along[a:b], occupied[a:b],
                                         sign * _line_profile(value[a:b], 2), MOST)
        conf *= float(np.clip(1 - bad[i] * 4, 0, 1)) * float(best)
        out.append(LaneReading(count, colour if count else "", conf, float(bad[i])))
    return out


def _distance(feats: np.ndarray, mean: np.ndarray, inv_var: np.ndarray) -> np.ndarray:
    diff = feats - mean
    return (diff * diff * inv_var).sum(axis=1)


def _count_on_edge(lane: Lane, along: np.ndarray, occupied: np.ndarray, line: np.ndarray,
                   most: int) -> tuple[int, float]:
    """Checkers standing on their edge in a tray are thin: a couple of mm of homography error
    move the end of the stack by a good part of a checker. The lines between them show where
    the grid of checkers really lies (`line` is positive on a rim); the end of the stack,
    snapped to that grid, gives the count. The shift searched stays well below half a checker,
    so the middle of a checker is never taken for its rim. Below three checkers there are too
    few rims: the end alone decides."""
    # The last occupied sample lies about half a mm beyond the stack: the rim line on its edge
    # and the blur spread it outwards.
    if not occupied.any():
        return 0, 0.0
    end = float(along[occupied > 0].max()) - 0.5
    pitch = lane.pitch
    inside = (along > 2) & (along < end - 2)
    pos, line = along[inside], line[inside]
    best_shift, best = 0.0, -np.inf
    if round(end / pitch) >= 3:
        for shift in np.arange(-0.3 * pitch, 0.3 * pitch + 0.01, 0.5):
            phase = np.abs(((pos - shift + pitch / 2) % pitch) - pitch / 2) <= 1.0
            if phase.all() or not phase.any():
                continue
            score = line[phase].mean() - line[~phase].mean()
            if score > best:
                best_shift, best = float(shift), score
    exact = (end - best_shift) / pitch
    count = int(np.clip(round(exact), 0, most))
    return count, float(np.clip(1 - 2 * abs(exact - round(exact)), 0, 1))


def rim_sign(along: np.ndarray, value: np.ndarray, lane: Lane, count: int) -> float:
    """+1 if the rims between `count` known checkers look lighter than the checkers, else -1.

    Known from the start position, so the rim counters need not guess (guessing both ways
    would let the spaces between rims pass for rims).
    """
    line = _line_profile(value, 3)
    junctions = np.array(lane.offsets(count)[1:])
    near = np.abs(along[:, None] - junctions[None, :]).min(axis=1) <= 1.0
    inside = along < lane.extent(count) - 2
    return 1.0 if line[near & inside].mean() > line[~near & inside].mean() else -1.0


def _line_profile(value: np.ndarray, reach: int) -> np.ndarray:
    """Thin lines across the lane (rims): each sample against the mean of its neighbours
    `reach` mm away, signed."""
    padded = np.pad(value, reach, mode="edge")
    return value - 0.5 * (padded[:-2 * reach] + padded[2 * reach:])


def _count_by_rims(lane: Lane, along: np.ndarray, line: np.ndarray) -> tuple[int, float]:
    """Count a full lane (5..15 checkers) by the rims where one checker overlaps the next.

    Each candidate count predicts rims at known distances; the count whose comb of predicted
    rims correlates best with the measured rim lines wins, so a count whose rims are a subset
    of the true ones loses. A small shift (homography error) is searched too; the combs depend
    only on the lane's sizes and are built once.
    """
    candidates, inside, combs = _rim_combs(lane.pitch, lane.stack_length, float(along[0]),
                                           len(along))
    part = line[inside]
    centred = part - part.mean()
    spread = float(np.sqrt((centred * centred).sum())) + 1e-9
    scores = (combs @ centred).max(axis=1) / spread
    ranked = np.argsort(scores)[::-1]
    conf = float(np.clip((scores[ranked[0]] - scores[ranked[1]]) * 4, 0, 1))
    return candidates[int(ranked[0])], conf


@functools.lru_cache(maxsize=16)
def _rim_combs(pitch: float, stack_length: float, first: float, count: int,
               ) -> tuple[range, np.ndarray, np.ndarray]:
    """Unit-length, zero-mean combs (candidates, shifts, positions) for `_count_by_rims`."""
    lane = Lane("comb", (0.0, 0.0), (0.0, 1.0), pitch, pitch, stack_length, True, "")
    along = first + np.arange(count, dtype=np.float64)
    inside = (along > 4.0) & (along < stack_length - 4.0)
    pos = along[inside]
    candidates = range(int(stack_length // pitch), MOST + 1)
    shifts = np.arange(-5.0, 5.25, 0.5)
    combs = []
    for n in candidates:
        rims = np.array(lane.offsets(n)[1:])[None, :, None] + shifts[:, None, None]
        near = (np.abs(pos[None, None, :] - rims).min(axis=1) <= 1.5).astype(np.float32)
        near -= near.mean(axis=1, keepdims=True)
        near /= np.sqrt((near * near).sum(axis=1, keepdims=True)) + 1e-9
        combs.append(near)
    return candidates, inside, np.array(combs, np.float32)


# ---- Mensch ärgere Dich nicht ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldSamples:
    """A small disc of pixels at the centre of every field."""

    names: tuple[str, ...]
    looks: tuple[str, ...]  # the class an empty field shows
    ys: np.ndarray  # (F, K)
    xs: np.ndarray
    centres: np.ndarray  # (F, 2) mm

    def means(self, warp: np.ndarray) -> np.ndarray:
        return warp[self.ys, self.xs].astype(np.float32).mean(axis=1)


@functools.lru_cache(maxsize=8)
def field_samples(geo: MaednGeometry) -> FieldSamples:
    radius = geo.piece_diameter * 0.23
    step = 1.0 / WARP_PX_PER_MM
    grid = np.arange(-radius, radius + 1e-9, step)
    dx, dy = np.meshgrid(grid, grid)
    keep = dx * dx + dy * dy <= radius * radius
    dx, dy = dx[keep], dy[keep]
    fields = geo.fields()
    centres = np.array([c for _, c, _ in fields])
    xs = _px(centres[:, :1] + dx[None, :], geo.width)
    ys = _px(centres[:, 1:] + dy[None, :], geo.height)
    return FieldSamples(tuple(n for n, _, _ in fields), tuple(look for _, _, look in fields),
                        ys, xs, centres)


@dataclass(frozen=True, slots=True)
class FieldReading:
    name: str
    colour: int | None  # the piece colour standing there, None when empty
    confidence: float
    unexplained: bool


def read_fields(samples: FieldSamples, warp: np.ndarray, gain: np.ndarray, model: ColourModel,
                piece_colours: tuple[int, ...], max_distance: float) -> list[FieldReading]:
    """Say for every field whether it is empty or which colour's piece stands on it."""
    feats = features(samples.means(warp), gain)
    dist = model.distances(feats)
    piece_idx = [model.index(f"piece{c}") for c in piece_colours]
    out = []
    for i, (name, look) in enumerate(zip(samples.names, samples.looks, strict=True)):
        cand = [model.index(look), *piece_idx]
        d = dist[i, cand]
        order = np.argsort(d)
        best, second = float(d[order[0]]), float(d[order[1]])
        unexplained = best > max_distance
        conf = 0.0 if unexplained else float(np.clip((second - best) / (second + 1.0), 0, 1))
        colour = None if order[0] == 0 else piece_colours[order[0] - 1]
        out.append(FieldReading(name, colour, conf, unexplained))
    return out
