"""Precise exceptions of the rules engines.

An illegal play is *not* an exception (it is a `Verdict` with a `Reason`): the referee expects
illegal plays as normal input. Exceptions are for inputs that cannot describe a game at all.
"""


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
