"""Backgammon rule options: one field per row of the variants table, and named presets.

A variant is data, not a fork of the code: `Options.preset("hofer")` gives the table maker's
rules, and `dataclasses.replace(opts, field=value)` switches any single rule.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.rules.errors import InvalidOption

log = logging.getLogger(__name__)

DOUBLES_FOUR = "four"
DOUBLES_TOP_BOTTOM = "top_bottom"
NON_DOUBLE_EITHER = "either_order"
NON_DOUBLE_LOWER_FIRST = "lower_first"


@dataclass(frozen=True, slots=True)
class Options:
    """Switchable backgammon rules (see /work/shared/rules/VARIANTS.md, backgammon table).

    Fields the engine itself applies: `non_double`, `intermediate_must_be_open`, `doubles`,
    `bar_enters_first`, `bear_off_higher_die`, `gammons`.
    Fields the referee or `match` read: `opening_ties_reroll`, `extra_roll_after_double`,
    `cube`, `crawford`, `jacoby`, `beavers`, `cocked_die_rerolls`, `illegal_move_stands_after_roll`.
    """

    name: str = "standard"
    # opening: one die each; ties roll again; the higher plays both numbers (004)
    opening_ties_reroll: bool = True
    # non-double roll: "either_order" (002, 004) or "lower_first" (001)
    non_double: str = NON_DOUBLE_EITHER
    # one checker moving both numbers: each intermediate landing point must be open (002)
    intermediate_must_be_open: bool = True
    # doubles: "four" (002, 004) or "top_bottom" (001: top face twice, bottom face 7-n twice)
    doubles: str = DOUBLES_FOUR
    # another roll after a double (Hofer manual)
    extra_roll_after_double: bool = False
    # all checkers on the bar enter before any other checker moves (001, 002, 004)
    bar_enters_first: bool = True
    # a higher number bears off from the highest occupied point when none stands higher (004)
    bear_off_higher_die: bool = True
    # gammon x2 and backgammon x3 when the game ends (004)
    gammons: bool = True
    # doubling cube and its match rules (004); off in `hofer` by decision
    cube: bool = True
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    # dice rules the referee applies (004)
    cocked_die_rerolls: bool = True
    illegal_move_stands_after_roll: bool = True

    def __post_init__(self) -> None:
        if self.non_double not in (NON_DOUBLE_EITHER, NON_DOUBLE_LOWER_FIRST):
            raise InvalidOption(
                f"non_double must be {NON_DOUBLE_EITHER!r} or {NON_DOUBLE_LOWER_FIRST!r}, "
                f"not {self.non_double!r}"
            )
        if self.doubles not in (DOUBLES_FOUR, DOUBLES_TOP_BOTTOM):
            raise InvalidOption(
                f"doubles must be {DOUBLES_FOUR!r} or {DOUBLES_TOP_BOTTOM!r}, not {self.doubles!r}"
            )
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool) and not isinstance(value, bool):
                raise InvalidOption(f"option {f.name} must be true or false, not {value!r}")

    @classmethod
    def preset(cls, name: str) -> Options:
        """The named preset ("standard", "hofer"); InvalidOption names the known ones."""
        try:
            return PRESETS[name]
        except KeyError:
            raise InvalidOption(
                f"unknown backgammon variant {name!r}; known: {', '.join(sorted(PRESETS))}"
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
            raise InvalidOption(f"unknown backgammon option(s): {', '.join(unknown)}")
        return dataclasses.replace(self, **items)

    @property
    def electronic_die(self) -> bool:
        """Backgammon is always rolled with dice the camera reads."""
        return False


STANDARD = Options()
HOFER = Options(
    name="hofer",
    non_double=NON_DOUBLE_LOWER_FIRST,
    doubles=DOUBLES_TOP_BOTTOM,
    extra_roll_after_double=True,
    gammons=False,
    cube=False,
    crawford=False,
)
PRESETS: dict[str, Options] = {"standard": STANDARD, "hofer": HOFER}
