"""The table's buttons by name: the same word in the pin map, the events, the table log and
the self-test."""

from __future__ import annotations

import enum


class Button(enum.StrEnum):
    """A button a player presses. A StrEnum, so it is its name in JSON and compares equal to it.

    `done` is each seat's own button; the others are shared by the table. `double`, `take` and
    `drop` work the backgammon doubling cube.
    """

    DONE = "done"
    UNDO = "undo"
    ROLL = "roll"
    NEW_GAME = "new_game"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"


#: The buttons the table shares (every seat has its own `done`), in pin-map order.
TABLE_BUTTONS: tuple[Button, ...] = tuple(b for b in Button if b is not Button.DONE)
