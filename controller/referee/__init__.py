"""The referee: events in, signals out (`Referee.handle`); a pure, deterministic state machine.

`referee.py` starts games and matches, `turns.py` is the turn cycle both games share,
`backgammon.py` and `maedn.py` what each game adds to it.
"""

from controller.referee.referee import Referee, RefereeInputError, rule_options
from controller.referee.turns import TableSettings

__all__ = ["Referee", "RefereeInputError", "TableSettings", "rule_options"]
