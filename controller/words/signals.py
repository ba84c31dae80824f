"""Everything the referee decides is a Signal; LEDs, buzzer, display, journal and logs consume them.

A signal carries no words: a reason is a catalogue key with its parameters (`Reason`), and each
output says it in the table's language. Each signal serialises to one JSON object with a
``"type"`` (see `Signal.to_json`), which is what `spieltisch referee --log FILE --json` prints
and what checks outside this repository read; that contract names reasons in German and
English, so `to_json` puts in those two texts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from controller.words.reasons import Reason

# What the table expects next from the seat on turn.
EXPECT_SETUP = "setup"  # the start position must be set up first
EXPECT_ROLL = "roll"
EXPECT_MOVE = "move"
EXPECT_ROLL_AGAIN = "roll_again"
EXPECT_CORRECT = "correct_board"
EXPECT_ANSWER_DOUBLE = "answer_double"  # backgammon: the opponent must take or drop the cube
EXPECTS = (
    EXPECT_SETUP,
    EXPECT_ROLL,
    EXPECT_MOVE,
    EXPECT_ROLL_AGAIN,
    EXPECT_CORRECT,
    EXPECT_ANSWER_DOUBLE,
)


@dataclass(frozen=True, slots=True)
class Signal:
    type: ClassVar[str] = "signal"

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object: ``{"type": ..., <field>: <value>, ...}`` (tuples become lists)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Turn(Signal):
    """Whose turn it is and what the table expects next (one of `EXPECTS`)."""

    type: ClassVar[str] = "turn"
    seat: int
    expect: str


@dataclass(frozen=True, slots=True)
class DiceAccepted(Signal):
    type: ClassVar[str] = "dice_accepted"
    seat: int
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayAccepted(Signal):
    """A whole turn accepted; `notation` is standard notation (backgammon) or "from/to" moves."""

    type: ClassVar[str] = "play_accepted"
    seat: int
    notation: str


@dataclass(frozen=True, slots=True)
class Illegal(Signal):
    """An illegal move: the rule broken, the fields involved, and the board to go back to."""

    type: ClassVar[str] = "illegal"
    seat: int
    reason: Reason
    fields: tuple[str, ...] = ()
    restore: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "seat": self.seat,
            "reason_key": self.reason.key,
            "reason_de": self.reason.de,
            "reason_en": self.reason.en,
            "fields": list(self.fields),
            "restore": list(self.restore),
        }


@dataclass(frozen=True, slots=True)
class BoardDiffers(Signal):
    """The board is not where it must be (set-up, or after an illegal move): these fields differ."""

    type: ClassVar[str] = "board_differs"
    seat: int
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BoardChoice(Signal):
    """The board was read unsurely and these legal plays fit it about equally: `shown` (from 0)
    is the one on the display; the seat's done button shows the next, a long press takes it."""

    type: ClassVar[str] = "board_choice"
    seat: int
    shown: int
    plays: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Reroll(Signal):
    """The dice must be thrown again (a cocked die, a die outside the tray)."""

    type: ClassVar[str] = "reroll"
    seat: int
    reason: Reason

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "seat": self.seat,
            "reason_de": self.reason.de,
            "reason_en": self.reason.en,
        }


@dataclass(frozen=True, slots=True)
class ThreeTries(Signal):
    """Mensch: the seat may roll up to three times for a 6; `attempt` counts from 1."""

    type: ClassVar[str] = "three_tries"
    seat: int
    attempt: int


@dataclass(frozen=True, slots=True)
class ExtraRoll(Signal):
    """The same seat rolls again (after a 6; after a double in `hofer` backgammon)."""

    type: ClassVar[str] = "extra_roll"
    seat: int


@dataclass(frozen=True, slots=True)
class RollElectronicDie(Signal):
    """The roll button asks for the electronic die; the table loop answers with an
    `ElectronicRoll` event (drawn from a fair random source and journaled)."""

    type: ClassVar[str] = "roll_electronic_die"
    seat: int


@dataclass(frozen=True, slots=True)
class CubeOffered(Signal):
    """`seat` doubles; the opponent takes (the cube goes to `cube`) or drops."""

    type: ClassVar[str] = "double_offered"
    seat: int
    cube: int


@dataclass(frozen=True, slots=True)
class CubeTaken(Signal):
    """`seat` took the double and now owns the cube at `cube`."""

    type: ClassVar[str] = "double_taken"
    seat: int
    cube: int


@dataclass(frozen=True, slots=True)
class GameOver(Signal):
    """The game ended: finishing order (Mensch) or winner with result and match score."""

    type: ClassVar[str] = "game_over"
    order: tuple[int, ...]
    result: str | None = None  # backgammon: "single" | "gammon" | "backgammon" | "drop"
    points: int = 0
    match_score: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Notice(Signal):
    """Something players should read that is not a rule decision (resumed game, camera lost)."""

    type: ClassVar[str] = "notice"
    reason: Reason

    @property
    def key(self) -> str:
        return self.reason.key

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "key": self.reason.key,
            "text_de": self.reason.de,
            "text_en": self.reason.en,
        }
