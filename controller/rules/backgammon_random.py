"""Random reachable backgammon positions, for differential tests, benchmarks and the simulator.

Positions come from games played with random dice and a uniformly random legal play from the
opening set-up, so they are reachable (unlike random checker scatterings).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator

from controller.rules.backgammon import Position
from controller.rules.backgammon_options import STANDARD, Options

log = logging.getLogger(__name__)


def random_game(rng: random.Random, options: Options = STANDARD) -> Iterator[Position]:
    """Every position of one random game (with the side on roll), until the game ends."""
    pos = Position.initial(options)
    if rng.random() < 0.5:
        pos = pos.with_turn(1)
    while pos.result() is None:
        yield pos
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        pos = pos.apply(rng.choice(pos.legal_plays(dice)))


def reachable_positions(count: int, seed: int = 0, options: Options = STANDARD) -> list[Position]:
    """`count` distinct positions taken from random games (each kept with probability 1/3)."""
    rng = random.Random(seed)
    out: list[Position] = []
    seen: set[Position] = set()
    while len(out) < count:
        for pos in random_game(rng, options):
            if pos not in seen and rng.random() < 1 / 3:
                seen.add(pos)
                out.append(pos)
                if len(out) == count:
                    break
    return out
