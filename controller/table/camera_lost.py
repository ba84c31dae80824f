"""Playing on without a camera: the dice come from the roll button, moves pass unjudged."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.table.notices import CONFIRM_DICE, notice
from controller.words.buttons import Button
from controller.words.events import ButtonPressed, DiceObserved, Event, PlayUnseen
from controller.words.signals import (
    EXPECT_CORRECT,
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_ROLL_AGAIN,
    Signal,
)


@dataclass
class CameraLostMode:
    """Without a camera the dice come from the roll button and the players confirm them.

    The table draws the dice (a fair random source), shows them, and sends them to the referee
    when the seat on turn presses done. Moves cannot be seen: done after a move passes the turn
    unjudged (`PlayUnseen`); once the camera is back, the board it shows before the next roll
    becomes the position, and judging goes on from there.
    """

    dice_count: int
    rng: random.Random = field(default_factory=random.SystemRandom)
    proposed: tuple[int, ...] = ()

    def button(self, event: ButtonPressed, expect: str | None) -> tuple[list[Event], list[Signal]]:
        """(events for the referee, signals for the table) for one button press."""
        if event.name is Button.ROLL and expect in (EXPECT_ROLL, EXPECT_ROLL_AGAIN):
            self.proposed = tuple(self.rng.randint(1, 6) for _ in range(self.dice_count))
            dice = " ".join(str(v) for v in self.proposed)
            return [], [notice(CONFIRM_DICE, dice=dice)]
        if event.name is Button.DONE and self.proposed:
            dice, self.proposed = self.proposed, ()
            return [DiceObserved(values=dice, t=event.t)], []
        if event.name is Button.DONE and expect in (EXPECT_MOVE, EXPECT_CORRECT):
            return [PlayUnseen(seat=event.seat, t=event.t)], []
        return [event], []
