"""Rule options of Mensch ärgere Dich nicht: one field per row of shared/rules/VARIANTS.md.

A variant is data: `Options.preset("hofer")` gives the table maker's rules, and any single rule
can be switched with `opts.with_changes(three_tries=False)`.
Every value is checked when the object is built, so a wrong option fails early and names itself.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.rules.errors import InvalidOption

log = logging.getLogger(__name__)

WHO_BEGINS = ("highest_roll", "seat0")
START_FIELD_RULES = ("with_six", "any_roll", "none")
EXTRA_ROLL_RULES = ("no", "after_move", "always")
DICE = ("physical", "electronic", "none")


@dataclass(frozen=True, slots=True)
class Options:
    """The rules one game of Mensch ärgere Dich nicht is played by.

    Field order follows the rows of the VARIANTS.md table:

    * `pieces_on_start_field`: pieces standing on the own start field when the game begins
      (0: all in the house; 1: Schmidt's box rules).
    * `who_begins`: "highest_roll" (highest single roll; ties roll again) or "seat0".
    * `six_to_leave_house`: only a 6 brings a piece out (otherwise any roll does).
    * `six_must_bring_out`: with a 6 a piece must come out while the house is not empty.
    * `start_field_rule`: an own piece on the own start field while the house is not empty must
      move first: "with_six" (only when a 6 is rolled, Hofer), "any_roll" (at the first chance,
      whatever the roll), or "none". In every case only if that piece can move at all.
    * `own_pieces_block`: no two own pieces on one field (so an own piece cannot be captured).
    * `forced_capture`: Schlagzwang; when some move captures, one of those must be played.
    * `capture_on_start_field`: an opponent on your start field is captured when you come out
      (otherwise it blocks your piece in the house).
    * `jump_over`: pieces may be jumped over on the track and in the goal.
    * `exact_goal_count`: a roll that would overshoot the goal cannot be played (otherwise the
      piece stops on the last goal field).
    * `extra_roll_after_six`: "after_move" (another roll when the 6 was used), "always" (also
      when the 6 could not be used), or "no".
    * `no_extra_roll_after_last_piece`: a 6 that brings the last piece home gives no extra roll.
      A seat whose pieces are all home never rolls again, so this is always honoured; the field
      records the rule for display and for the table log.
    * `three_tries`: three tries to roll a 6 when no piece is on the track and no goal piece can
      still move.
    * `play_on`: play on for 2nd, 3rd place (otherwise the game ends at the first winner).
    * `die`: how the die is read: "physical" (camera), "electronic" (wall display), "none".
    """

    pieces_on_start_field: int = 0
    who_begins: str = "highest_roll"
    six_to_leave_house: bool = True
    six_must_bring_out: bool = True
    start_field_rule: str = "with_six"
    own_pieces_block: bool = True
    forced_capture: bool = False
    capture_on_start_field: bool = True
    jump_over: bool = True
    exact_goal_count: bool = True
    extra_roll_after_six: str = "after_move"
    no_extra_roll_after_last_piece: bool = True
    three_tries: bool = True
    play_on: bool = True
    die: str = "physical"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool) and not isinstance(value, bool):
                raise InvalidOption(f"option {f.name!r} must be true or false, not {value!r}")
        if (
            isinstance(self.pieces_on_start_field, bool)
            or not isinstance(self.pieces_on_start_field, int)
            or self.pieces_on_start_field not in (0, 1)
        ):
            raise InvalidOption(
                f"option 'pieces_on_start_field' must be 0 or 1, not {self.pieces_on_start_field!r}"
            )
        for name, allowed in (
            ("who_begins", WHO_BEGINS),
            ("start_field_rule", START_FIELD_RULES),
            ("extra_roll_after_six", EXTRA_ROLL_RULES),
            ("die", DICE),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise InvalidOption(
                    f"option {name!r} must be one of {', '.join(allowed)}, not {value!r}"
                )

    @classmethod
    def preset(cls, name: str) -> Options:
        """The named preset (`hofer`, `vegas`, `schmidt`, `openspiel`)."""
        try:
            return PRESETS[name]
        except KeyError:
            raise InvalidOption(
                f"unknown Mensch ärgere Dich nicht variant {name!r}; known: {', '.join(PRESETS)}"
            ) from None

    def with_changes(
        self, changes: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /, **more: Any
    ) -> Options:
        """A copy with some options switched: a mapping, the `(name, value)` pairs
        `NewGame.options` carries, or keywords; an unknown option name is an InvalidOption."""
        items = {**dict(changes), **more}
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(items) - known)
        if unknown:
            raise InvalidOption(
                f"unknown Mensch ärgere Dich nicht option(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known))}"
            )
        return dataclasses.replace(self, **items)

    @property
    def electronic_die(self) -> bool:
        """The roll button asks the table for the die (`die = "electronic"`, Vegas): dice
        lying on the board are not a roll."""
        return self.die == "electronic"


PRESETS: dict[str, Options] = {
    # Table maker's manual (text 000). Ties on the first roll: decision, roll again.
    "hofer": Options(),
    # Vegas-Team (text 003): start field cleared at the first chance, game ends at the winner.
    "vegas": Options(
        start_field_rule="any_roll",
        three_tries=False,
        play_on=False,
        die="electronic",
    ),
    # Official box rules (Schmidt Spiele): one piece starts on the start field.
    "schmidt": Options(
        pieces_on_start_field=1,
        start_field_rule="any_roll",
        three_tries=False,
    ),
    # OpenSpiel's `maedn`, for cross-checking.
    "openspiel": Options(
        who_begins="seat0",
        start_field_rule="any_roll",
        extra_roll_after_six="always",
        three_tries=False,
        play_on=False,
        die="none",
    ),
}
