"""Positions for the photoreal frames, as the table log's `board` JSON (docs/table-log.md).

Drawn here rather than taken from vision/render_dataset.py so that tall stacks (6–10 checkers on
a point) come up often enough to test stacking, and a set-up that shows rows only never needs
more than five checkers in a lane.
"""

from __future__ import annotations

import numpy as np

START_POINTS = (-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2)


def backgammon_start() -> dict:
    return {"points": list(START_POINTS), "bar": {"white": 0, "black": 0},
            "off": {"white": 0, "black": 0}}


def random_backgammon(rng: np.random.Generator, max_stack: int, has_bar: bool = True) -> dict:
    """15 checkers a side over points, bar and off, one colour per point, at most `max_stack`
    on a point or in a bar half; with `max_stack` > 5 one point often carries 6 or more."""
    points = [0] * 24
    bar = {"white": 0, "black": 0}
    off = {"white": 0, "black": 0}
    for sign, colour in ((1, "white"), (-1, "black")):
        left = 15
        if rng.random() < 0.35:
            off[colour] = int(rng.integers(1, 12))
        if has_bar and rng.random() < 0.3:
            bar[colour] = int(rng.integers(1, min(3, max_stack) + 1))
        left -= off[colour] + bar[colour]
        free = [i for i in range(24) if points[i] == 0]
        if max_stack > 5 and left >= 6 and rng.random() < 0.6:
            i = int(rng.choice(free))
            points[i] = sign * int(rng.integers(6, min(max_stack, left) + 1))
            free.remove(i)
            left -= abs(points[i])
        while left:
            i = int(rng.choice(free))
            n = int(rng.integers(1, min(left, 5, max_stack) + 1))
            if rng.random() < 0.5:
                n = min(n, 3)
            points[i] = sign * n
            free.remove(i)
            left -= n
    return {"points": points, "bar": bar, "off": off}


def maedn_start(players: int) -> dict:
    return {"pieces": [[-1, -1, -1, -1] for _ in range(players)]}


def random_maedn(rng: np.random.Generator, seat_colours: tuple[int, ...]) -> dict:
    """Four pieces per seat in its own counting (-1 house, 0..39 track, 40..43 goal), never
    two on one field."""
    taken: set[tuple[str, int]] = set()
    seats = []
    for colour in seat_colours:
        mine: list[int] = []
        for _ in range(4):
            while True:
                roll = rng.random()
                if roll < 0.3:
                    pos = -1
                elif roll < 0.42:
                    pos = int(rng.integers(40, 44))
                else:
                    pos = int(rng.integers(0, 40))
                if pos == -1:
                    break
                key = ("g", colour * 100 + pos) if pos >= 40 else ("t", (10 * colour + pos) % 40)
                if key not in taken:
                    taken.add(key)
                    break
            mine.append(pos)
        seats.append(sorted(mine))
    return {"pieces": seats}
