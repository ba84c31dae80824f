"""Recombine a found outline's sides from the picture's long straight lines.

An outline can take a wrong line for one of its sides — a plank seam a few centimetres beyond
the board's far edge, a tray's edge, the table's shadow — and the refinement, which moves the
corners a little at a time, cannot climb from there to the board: the points or fields must
line up exactly, so the fit between the two is rugged. The board's true sides are nearly always
among the picture's long lines, only not among the strongest. So each side may be swapped for
any long line running near it, two sides at a time (one wrong side bends its neighbours'
corners too), and a swap is kept when the print lines up better. The score decides, never the
line's strength.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from vision.board_outline import Line, intersect, is_clockwise_convex

#: A side may be swapped for a line this near it (share of the board's diagonal, at both ends)
#: and at most this many degrees off its direction.
REACH = 0.12
ANGLE_DEG = 10.0
#: Lines nearer each other than this (px, at both ends of the side) count as one.
SAME_PX = 1.5
#: Rounds of pairwise swaps at most (each round tries every pair of sides).
ROUNDS = 3


def side_options(corners: np.ndarray, lines: Sequence[Line], reach: float) -> list[list[Line]]:
    """For each side (top-left → top-right first), the side itself and the distinct lines near
    it, strongest first."""
    options = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        direction = (b - a) / np.linalg.norm(b - a)
        normal = np.array([-direction[1], direction[0]])
        near: list[Line] = [(a, direction, 0.0)]
        ends: list[tuple[float, float]] = [(0.0, 0.0)]
        for point, d, support in lines:
            if abs(float(d @ direction)) < np.cos(np.radians(ANGLE_DEG)):
                continue
            # where the line crosses the side's two ends' normals, as offsets along them
            offsets = []
            for end in (a, b):
                hit = intersect((end, normal, 0.0), (point, d, support))
                offsets.append(np.inf if hit is None else float((hit - end) @ normal))
            if max(abs(o) for o in offsets) > reach:
                continue
            if any(abs(offsets[0] - e0) < SAME_PX and abs(offsets[1] - e1) < SAME_PX
                   for e0, e1 in ends):
                continue
            near.append((point, d, support))
            ends.append((offsets[0], offsets[1]))
        options.append(near)
    return options


def _corners(sides: Sequence[Line]) -> np.ndarray | None:
    out = [intersect(sides[i - 1], sides[i]) for i in range(4)]
    if any(p is None for p in out):
        return None
    corners = np.array(out)
    return corners if is_clockwise_convex(corners) else None


def recombined(corners: np.ndarray, lines: Sequence[Line],
               score: Callable[[np.ndarray], float]) -> np.ndarray:
    """The outline (corners top-left first, clockwise, in the lines' undistorted picture) with
    its sides swapped, two at a time, for the nearby lines under which `score` is highest;
    `corners` themselves when no swap scores better."""
    reach = REACH * float(np.linalg.norm(corners[2] - corners[0]))
    options = side_options(corners, lines, reach)
    chosen = [0, 0, 0, 0]
    best, best_corners = score(corners), corners
    for _ in range(ROUNDS):
        improved = False
        for i, j in itertools.combinations(range(4), 2):
            for a, b in itertools.product(range(len(options[i])), range(len(options[j]))):
                trial = list(chosen)
                trial[i], trial[j] = a, b
                found = _corners([options[k][trial[k]] for k in range(4)])
                if found is None:
                    continue
                value = score(found)
                if value > best + 1e-6:
                    best, best_corners, chosen, improved = value, found, trial, True
        if not improved:
            break
    return best_corners
