"""A backgammon match: doubling cube (offer, take, drop, beaver), score, Crawford, Jacoby.

`Match` is an immutable value like `Position`: every action returns a new Match, so the referee
can keep it in its state and a replay reproduces it. A cube action that the rules do not allow
raises `CubeError` carrying the Reason to show at the table. `length` 0 is a money game
(unlimited; Jacoby and beavers apply only there).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from controller.rules import gnubg_id
from controller.rules.backgammon import Result
from controller.rules.backgammon_options import STANDARD, Options
from controller.rules.errors import CubeError, RulesError
from controller.words.reasons import Reason, reason

log = logging.getLogger(__name__)

MAX_CUBE = 1 << 15  # the largest value a gnubg Match ID can hold

R_CUBE_OFF = reason("cube_off")
R_CRAWFORD = reason("crawford_no_double")
R_CUBE_OWNED = reason("cube_owned_by_opponent")
R_PENDING = reason("double_pending")
R_NO_DOUBLE = reason("no_double_offered")
R_WRONG_SEAT = reason("answer_by_opponent")
R_NO_BEAVER = reason("beaver_not_allowed")
R_MATCH_OVER = reason("match_over")
R_CUBE_MAX = reason("cube_at_maximum")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game: who won, how ("single", "gammon", "backgammon", "drop"), points."""

    winner: int
    kind: str
    points: int


@dataclass(frozen=True, slots=True)
class Match:
    """Score and cube state of a match to `length` points (0: money game)."""

    length: int = 0
    options: Options = STANDARD
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    owner: int | None = None  # None: centred
    offered_by: int | None = None
    crawford_game: bool = False  # the game being played now is the Crawford game
    crawford_done: bool = False
    games: tuple[GameRecord, ...] = ()

    def __post_init__(self) -> None:
        if self.length < 0:
            raise RulesError(f"match length must be 0 (money game) or more, not {self.length}")

    # state --------------------------------------------------------------------------------

    def winner(self) -> int | None:
        """The seat that won the match (never in a money game)."""
        if self.length:
            for seat in (0, 1):
                if self.score[seat] >= self.length:
                    return seat
        return None

    def why_no_double(self, seat: int) -> Reason | None:
        """None when `seat` may offer a double now, else the reason it may not."""
        if self.winner() is not None:
            return R_MATCH_OVER
        if not self.options.cube:
            return R_CUBE_OFF
        if self.offered_by is not None:
            return R_PENDING
        if self.crawford_game:
            return R_CRAWFORD
        if self.owner is not None and self.owner != seat:
            return R_CUBE_OWNED
        if self.cube * 2 > MAX_CUBE:
            return R_CUBE_MAX
        return None

    # cube actions -------------------------------------------------------------------------

    def offer_double(self, seat: int) -> Match:
        """`seat` turns the cube; CubeError with the reason when it may not."""
        why = self.why_no_double(seat)
        if why is not None:
            raise CubeError(why)
        return dataclasses.replace(self, offered_by=seat)

    def _answering(self, seat: int) -> None:
        if self.offered_by is None:
            raise CubeError(R_NO_DOUBLE)
        if seat == self.offered_by:
            raise CubeError(R_WRONG_SEAT)

    def take(self, seat: int) -> Match:
        """The opponent takes: the cube doubles and belongs to the taker."""
        self._answering(seat)
        return dataclasses.replace(self, cube=self.cube * 2, owner=seat, offered_by=None)

    def beaver(self, seat: int) -> Match:
        """Money game only: take and at once redouble, keeping the cube (value x4)."""
        self._answering(seat)
        if not self.options.beavers or self.length or self.cube * 4 > MAX_CUBE:
            raise CubeError(R_NO_BEAVER)
        return dataclasses.replace(self, cube=self.cube * 4, owner=seat, offered_by=None)

    def drop(self, seat: int) -> Match:
        """The opponent gives up the game: the doubler wins the cube's current value."""
        self._answering(seat)
        doubler = 1 - seat
        return self._finish(GameRecord(doubler, "drop", self.cube))

    # results ------------------------------------------------------------------------------

    def points_for(self, result: Result) -> int:
        """Points a finished game is worth: its multiplier times the cube, with the Jacoby
        rule (money game, cube never turned: gammons count single)."""
        multiplier = result.multiplier
        if self.options.jacoby and not self.length and self.owner is None:
            multiplier = 1
        return multiplier * self.cube

    def end_game(self, result: Result) -> Match:
        """Score a game that ended on the board and set up the next game's cube."""
        if self.winner() is not None:
            raise CubeError(R_MATCH_OVER)
        return self._finish(GameRecord(result.winner, result.kind, self.points_for(result)))

    def _finish(self, record: GameRecord) -> Match:
        score = list(self.score)
        score[record.winner] += record.points
        crawford_done = self.crawford_done or self.crawford_game
        # The first time a player comes within one point of winning, the next game is played
        # without the cube (Crawford rule); every game after it may use the cube again.
        next_crawford = (
            self.options.crawford
            and self.length > 0
            and not crawford_done
            and score[record.winner] == self.length - 1
            and score[1 - record.winner] < self.length - 1
        )
        return Match(
            length=self.length,
            options=self.options,
            score=(score[0], score[1]),
            crawford_game=next_crawford,
            crawford_done=crawford_done or next_crawford,
            games=(*self.games, record),
        )

    def match_id(self, turn: int, dice: tuple[int, int] = (0, 0)) -> str:
        """gnubg Match ID for this state with `turn` to act and `dice` on the board."""
        owner = gnubg_id.CUBE_CENTERED if self.owner is None else self.owner
        acting = turn if self.offered_by is None else 1 - self.offered_by
        state = gnubg_id.MatchState(
            cube_value=self.cube,
            cube_owner=owner,
            dice_owner=turn,
            crawford=self.crawford_game,
            game_state=gnubg_id.GAME_PLAYING if self.winner() is None else gnubg_id.GAME_OVER,
            turn=acting,
            doubled=self.offered_by is not None,
            dice=dice,
            match_length=self.length,
            score=self.score,
            jacoby=self.options.jacoby and not self.length,
        )
        return gnubg_id.encode_match(state)
