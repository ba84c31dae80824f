"""Backgammon dice: validation, the opening roll, and which die values a roll lets a player move.

Kept apart from the position logic so that the referee can check dice before any board exists.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from controller.rules.backgammon_options import (
    DOUBLES_TOP_BOTTOM,
    NON_DOUBLE_LOWER_FIRST,
    STANDARD,
    Options,
)
from controller.rules.errors import InvalidDice

log = logging.getLogger(__name__)

ALL_ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


def check_dice(dice: Sequence[int]) -> tuple[int, int]:
    """The two dice as a tuple; InvalidDice says what is wrong (count, type or range)."""
    if isinstance(dice, str | bytes) or len(dice) != 2:
        raise InvalidDice(f"backgammon needs exactly two dice, got {dice!r}")
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise InvalidDice(f"a die shows 1..6, got {d!r}")
    return int(dice[0]), int(dice[1])


def opening_roll(white_die: int, black_die: int) -> int | None:
    """Who begins after the opening roll (one die each, 004): 0 White, 1 Black, None: roll again.

    The winner plays both numbers as his first roll.
    """
    check_dice((white_die, black_die))
    if white_die == black_die:
        return None
    return 0 if white_die > black_die else 1


def is_double(dice: Sequence[int]) -> bool:
    """Both dice show the same number (a Pasch)."""
    return dice[0] == dice[1]


def die_phases(dice: tuple[int, int], options: Options = STANDARD) -> tuple[tuple[int, ...], ...]:
    """The die values to play, in phases: within a phase any order, phases in sequence.

    standard: ((d1, d2),) or ((n, n, n, n),); hofer lower-first: ((low,), (high,));
    hofer doubles: ((n, n), (7-n, 7-n)).
    """
    a, b = dice
    if a == b:
        if options.doubles == DOUBLES_TOP_BOTTOM:
            return ((a, a), (7 - a, 7 - a))
        return ((a, a, a, a),)
    if options.non_double == NON_DOUBLE_LOWER_FIRST:
        return ((min(a, b),), (max(a, b),))
    return ((a, b),)
