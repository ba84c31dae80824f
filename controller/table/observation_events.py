"""Observation → events: the few events the referee needs from vision's stream of readings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from controller.words.events import BoardObserved, DiceObserved, Event, ViewBlocked

Place = tuple[float, float, float]  # a die's centre x, y and size in pixels


def _left_to_right(observation: Any) -> list[Any]:
    return sorted(getattr(observation, "dice", ()) or (), key=lambda d: tuple(d.box))


def dice_of(observation: Any) -> tuple[tuple[int, bool], ...]:
    """The dice of an Observation as (value, cocked) pairs from left to right (0 = unread)."""
    readings = _left_to_right(observation)
    return tuple((int(d.value or 0), bool(d.cocked or d.value is None)) for d in readings)


def places_of(observation: Any) -> tuple[Place, ...]:
    """Where the dice of an Observation lie, in the order of `dice_of`."""
    readings = _left_to_right(observation)
    return tuple(
        ((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2, max(d.box[2] - d.box[0], 1))
        for d in readings
    )


def any_die_stayed(now: Sequence[Place], before: Sequence[Place]) -> bool:
    """True when some die lies where a die lay before (within half a die): the same throw."""
    return any(
        math.dist(a[:2], b[:2]) < 0.5 * max(a[2], b[2]) for a in now for b in before
    )


@dataclass
class ObservationEvents:
    """Turns the stream of Observations into the few events the referee needs.

    The referee gets `ViewBlocked` once when a hand covers the board, `BoardObserved` when the
    stable board changed (and again after every block, so it knows the hand is gone), and
    `DiceObserved` when new dice come to rest. A die cannot change its face without moving:
    while any die lies where one lay before, it is the same throw (a reading that changes there
    is a misread, and two dice side by side may swap order); dice that all lie somewhere new, or
    any dice after the tray sensor felt a throw, are a new roll, even with the same values.
    """

    board: Any = None
    dice: tuple[tuple[int, bool], ...] = ()
    places: tuple[Place, ...] = ()
    blocked: bool = False
    physical_dice: bool = True  # False with the electronic die (`vegas`): nothing to read

    def update(self, observation: Any, stable: Any | None, t: float) -> list[Event]:
        out: list[Event] = []
        if getattr(observation, "blocked", False):
            if not self.blocked:
                self.blocked = True
                out.append(ViewBlocked(t=t))
            return out
        if stable is None or getattr(stable, "blocked", False):
            return out
        board = getattr(stable, "board", None)
        if board is not None and (board != self.board or self.blocked):
            self.board = board
            self.blocked = False
            out.append(BoardObserved(board=board, t=t))
        dice = dice_of(stable) if self.physical_dice else ()
        places = places_of(stable) if dice else ()
        if not dice:
            self.dice, self.places = (), ()
        elif not self.dice or not any_die_stayed(places, self.places):
            self.dice, self.places = dice, places
            out.append(
                DiceObserved(
                    values=tuple(v for v, _ in dice),
                    cocked=tuple(c for _, c in dice),
                    t=t,
                )
            )
        return out

    def forget_dice(self) -> None:
        """The tray sensor felt a throw: whatever comes to rest next is a new roll."""
        self.dice, self.places = (), ()
