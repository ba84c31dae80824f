"""The table's shared words, at the bottom of everything: what a board reading is (`boards`),
what enters the referee (`events`), what leaves it (`signals`), the buttons (`buttons`) and the
reasons shown at the table (`reasons`).

This package imports nothing of the project above it. It is the only part of `controller`
that `vision/` and `hardware/` may import (docs/architecture.md); the names they use are
re-exported here.
"""

from controller.words.boards import BackgammonBoard, Board, MaednBoard
from controller.words.buttons import TABLE_BUTTONS, Button
from controller.words.events import (
    BoardCandidates,
    BoardObserved,
    BoardUnsure,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    ElectronicRoll,
    Event,
    NewGame,
    OpeningRoll,
    PlayUnseen,
    Tick,
    ViewBlocked,
)
from controller.words.reasons import CATALOG, Reason, lookup, reason
from controller.words.signals import Signal

__all__ = [
    "CATALOG",
    "TABLE_BUTTONS",
    "BackgammonBoard",
    "Board",
    "BoardCandidates",
    "BoardObserved",
    "BoardUnsure",
    "Button",
    "ButtonPressed",
    "DiceObserved",
    "DieThrown",
    "ElectronicRoll",
    "Event",
    "MaednBoard",
    "NewGame",
    "OpeningRoll",
    "PlayUnseen",
    "Reason",
    "Signal",
    "Tick",
    "ViewBlocked",
    "lookup",
    "reason",
]
