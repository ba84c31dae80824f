"""Checkers by their rims: a checker is a disc, and its rim draws a circle the empty point
does not have.

Colour alone cannot tell a white checker on a cream point from the point (their colours differ
by little more than the camera's noise), but its rim — the edge of a raised disc, its shading
and its shadow — is new structure in the picture. Along each lane, at every millimetre, a ring
the size of a checker is laid where a checker's top would show (its lean included) and scored
by the edges there that the empty board does not have. A count of checkers predicts rings at
its positions and none where the next checker would lie; `vision.board_evidence` weighs those
predictions against the scores. The scale of a ring's score is learned at calibration, per
colour (rings of the checkers the position puts down, against the empty lanes): a white
checker on a cream point draws a far fainter rim than a black one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from vision.board_regions import LaneRows, to_px
from vision.geometry import BackgammonGeometry, Lane
from vision.piece_edges import EdgeLevels

#: Samples on each ring.
RING_SAMPLES = 24
#: A ring's score is this percentile of its samples: the rim must show round 70 % of it
#: (of the half of the ring facing along the lane, see `_ring_places`).
RIM_SHARE = 30
#: The ring lies this far (mm) inside a checker's edge: the rim's inner bevel and its shadow
#: line both fall within a millimetre or two of it.
RING_INSET = 1.0


@dataclass(frozen=True)
class RingPlaces:
    """Per lane, the warp pixels of a ring centred at every millimetre along it:
    (positions, samples) arrays."""

    along: tuple[np.ndarray, ...]
    ys: tuple[np.ndarray, ...]
    xs: tuple[np.ndarray, ...]


def ring_places(geo: BackgammonGeometry, rows: LaneRows) -> RingPlaces:
    return _ring_places(geo, rows.lean)


@functools.lru_cache(maxsize=8)
def _ring_places(geo: BackgammonGeometry, leans: tuple[float, ...]) -> RingPlaces:
    turn = np.linspace(0, 2 * np.pi, RING_SAMPLES, endpoint=False)
    radius = geo.checker_diameter / 2 - RING_INSET
    ring = np.column_stack([np.cos(turn), np.sin(turn)]) * radius
    alongs, ys, xs = [], [], []
    for lane, lean in zip(geo.lanes(), leans, strict=True):
        # Only the half of the rim facing along the lane: the other half of a row's first
        # checker lies against the frame, whose edge the empty board has already and which
        # a raised frame hides and shades (the end points p1, p12, p13, p24 read empty).
        circle = ring[ring @ np.array(lane.direction) >= -1e-6]
        # Rings are looked for where a row's checkers begin (a checker standing on its edge in
        # a tray shows no ring); a flat checker's top shows beyond its centre by the lean.
        starts = [k * lane.pitch for k in range(lane.row + 1)] if lane.compress else []
        along = np.array(sorted({a for s in starts for a in range(round(s) - RING_SLACK,
                                                                  round(s) + RING_SLACK + 1)
                                 if 0 <= a <= lane.stack_length}), np.float64)
        centres = np.array([lane.at(float(a) + geo.checker_diameter / 2 + lean)
                            for a in along]).reshape(-1, 2)
        pts = centres[:, None, :] + circle[None, :, :]
        xs.append(to_px(pts[..., 0], geo.width))
        ys.append(to_px(pts[..., 1], geo.height))
        alongs.append(along)
    return RingPlaces(tuple(alongs), tuple(ys), tuple(xs))


@dataclass(frozen=True)
class RingScores:
    """Per lane, where rings were laid (mm along it, a checker's start) and their scores."""

    along: tuple[np.ndarray, ...]
    scores: tuple[np.ndarray, ...]

    def near(self, lane: int, start: float) -> float:
        """The best score within `RING_SLACK` of `start` on lane `lane` (0 if none laid)."""
        close = np.abs(self.along[lane] - start) <= RING_SLACK
        return float(self.scores[lane][close].max()) if close.any() else 0.0


def ring_scores(new: np.ndarray, places: RingPlaces) -> RingScores:
    """Per lane, the new structure on each ring laid: a low percentile round the ring, so that
    a rim must show most of the way round and a neighbour touching it on one side does not
    make one."""
    return RingScores(places.along, tuple(
        _low(new[ys, xs]) if len(ys) else np.empty(0)
        for ys, xs in zip(places.ys, places.xs, strict=True)))


def _low(samples: np.ndarray) -> np.ndarray:
    """Per ring, its samples' `RIM_SHARE` percentile."""
    k = samples.shape[1] * RIM_SHARE // 100
    return np.partition(samples, k, axis=1)[:, k]


#: A checker's rim is looked for this far (mm) before and after where its place begins: the
#: camera's pose, and so a checker's lean, is known to a few millimetres.
RING_SLACK = 6


def learn_levels(scores: RingScores, lanes: tuple[Lane, ...], counts: dict[str, int]
                 ) -> tuple[EdgeLevels | None, EdgeLevels | None]:
    """From a frame of a known position: per colour (white, black), the scores where its
    checkers start, against those on lanes the position leaves empty. A colour's levels are
    None when its rims do not stand out (then its rims are not used)."""
    present: tuple[list[float], list[float]] = ([], [])
    absent = []
    for i, lane in enumerate(lanes):
        if not lane.compress:
            continue
        n = counts.get(lane.name, 0)
        if n == 0:
            absent.append(scores.scores[i])
        elif abs(n) <= lane.row:
            present[n < 0].extend(scores.near(i, o) for o in lane.offsets(abs(n)))
    empty = np.concatenate(absent) if absent else np.empty(0)
    return EdgeLevels.learn(present[0], empty), EdgeLevels.learn(present[1], empty)
