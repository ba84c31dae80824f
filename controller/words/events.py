"""Everything that enters the referee is an Event; time arrives inside events (`t`, seconds).

Events come from vision (through the stabilizer), buttons and sensors (gpiozero), the display
board, the simulator, or a recorded table log. They are small immutable values so that a journal
can store them and a replay reproduces the same signals.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.words.boards import BackgammonBoard, Board, MaednBoard
from controller.words.buttons import Button


@dataclass(frozen=True, slots=True)
class NewGame:
    game: str  # "backgammon" | "maedn"
    variant: str = "standard"
    players: int = 2
    match_length: int = 1
    options: tuple[tuple[str, object], ...] = ()  # rule options switched away from the preset
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class DiceObserved:
    """Dice seen at rest. `cocked[i]`/`outside[i]` flag a die on its edge or outside the tray."""

    values: tuple[int, ...]
    cocked: tuple[bool, ...] = ()
    outside: tuple[bool, ...] = ()
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class BoardObserved:
    """A stable reading of the whole board (only the stabilizer emits these)."""

    board: Board
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class BoardCandidates:
    """A board read too unsurely to be taken, which two or three legal results of the turn
    fit about equally (`controller/table/board_scoring.py`): the players choose one with the
    seat's done button. Only legal results ever come here, best fit first."""

    boards: tuple[Board, ...]
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class BoardUnsure:
    """The board is not read surely and no legal result of the open turn fits it clearly
    (`controller/table/board_scoring.py`): the referee holds no board until one is read, and
    asks the players to check the pieces."""

    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ViewBlocked:
    """A hand, arm or shadow hides the board: nothing on it can be judged now."""

    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A press of one of the table's `Button`s (a name is taken as its Button; ValueError for a
    name the table has no button for). `seat` says whose done button; `long` marks a long press
    (a long press on undo takes back the last accepted turn).
    """

    name: Button
    seat: int | None = None
    long: bool = False
    t: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, Button):
            object.__setattr__(self, "name", Button(self.name))


@dataclass(frozen=True, slots=True)
class DieThrown:
    """The dice-tray sensor felt a throw."""

    t: float = 0.0


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passes with nothing else happening (lets settle timeouts fire without a clock)."""

    t: float = 0.0


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """One die per seat to decide who begins (backgammon: the higher plays both numbers).

    Table log: ``{"type": "opening_roll", "values": [white, black]}`` (Mensch: one per seat).
    """

    values: tuple[int, ...]
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class ElectronicRoll:
    """The value the electronic die produced (recorded so that a replay rolls the same)."""

    value: int
    t: float = 0.0


@dataclass(frozen=True, slots=True)
class PlayUnseen:
    """Done pressed for a move while the camera is lost: the play happened but nobody saw it.

    The referee passes the turn without judging and takes the board the camera shows next,
    before a roll, as the position (the table cannot know what was played in between).
    """

    seat: int | None = None
    t: float = 0.0


Event = (
    NewGame
    | DiceObserved
    | BoardObserved
    | BoardCandidates
    | BoardUnsure
    | ViewBlocked
    | ButtonPressed
    | DieThrown
    | Tick
    | ElectronicRoll
    | OpeningRoll
    | PlayUnseen
)

EVENT_TYPES: dict[str, type] = {
    "new_game": NewGame,
    "dice": DiceObserved,
    "board": BoardObserved,
    "board_candidates": BoardCandidates,
    "board_unsure": BoardUnsure,
    "view_blocked": ViewBlocked,
    "button": ButtonPressed,
    "die_thrown": DieThrown,
    "tick": Tick,
    "electronic_roll": ElectronicRoll,
    "opening_roll": OpeningRoll,
    "play_unseen": PlayUnseen,
}

__all__ = [
    "EVENT_TYPES",
    "BackgammonBoard",
    "Board",
    "BoardCandidates",
    "BoardObserved",
    "BoardUnsure",
    "ButtonPressed",
    "DiceObserved",
    "DieThrown",
    "ElectronicRoll",
    "Event",
    "MaednBoard",
    "NewGame",
    "OpeningRoll",
    "PlayUnseen",
    "Tick",
    "ViewBlocked",
]
