"""Precise exceptions of the rules engines.

An illegal play is *not* an exception (it is a `Verdict` with a `Reason`): the referee expects
illegal plays as normal input. Exceptions are for inputs that cannot describe a game at all,
and for a play applied that the rules forbid (`IllegalMove`: ask `judge` or `why_not` first).
One hierarchy for both games: everything here is a `RulesError`, so a `ValueError`.
"""

from __future__ import annotations

from controller.words.reasons import Reason


class RulesError(ValueError):
    """Base class: the input cannot be handled by the rules engine."""


class InvalidPosition(RulesError):
    """The position cannot occur (16 checkers, two colours on one point, ...); says which."""


class InvalidPositionId(InvalidPosition):
    """A GNU Backgammon Position ID or Match ID that does not decode to a valid position."""


class InvalidDice(RulesError):
    """Dice values outside 1..6 or the wrong number of dice for the game."""


class InvalidNotation(RulesError):
    """A play written in standard notation that cannot be parsed."""


class InvalidOption(RulesError):
    """An unknown variant preset or rule option, or a wrong value for one."""


class IllegalMove(RulesError):
    """A play was applied that the rules forbid (`Position.apply` of either game): `reason`
    says which rule, `move` which step broke it (None: the whole turn, e.g. passing)."""

    def __init__(self, why: Reason, move: object | None = None) -> None:
        super().__init__(f"illegal move {move}: {why.en}")
        self.reason = why
        self.move = move


class CubeError(RulesError):
    """A cube action the rules do not allow now; `reason` is what the table shows."""

    def __init__(self, why: Reason) -> None:
        super().__init__(why.en)
        self.reason = why
