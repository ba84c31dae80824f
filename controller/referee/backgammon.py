"""Backgammon at the table: two dice, a whole play judged at once, illegal plays may stand.

Rule text 004: once the opponent has rolled, an illegal play stands (unless the table is set to
`must_correct`). Rule text 001 with the `hofer` preset: a double earns another roll. The
doubling cube (004; off in `hofer`) follows `controller.rules.match.Match`: the seat on roll
may press "double" before rolling, the opponent "take" or "drop".
"""

from __future__ import annotations

import logging
from dataclasses import replace

from controller.referee.turns import (
    Phase,
    TableSettings,
    TurnReferee,
    expect_roll,
    notice,
    reroll,
)
from controller.rules import backgammon as bg
from controller.rules.errors import CubeError, InvalidPosition, RulesError
from controller.rules.games import BACKGAMMON
from controller.rules.match import R_PENDING, Match
from controller.words.buttons import Button
from controller.words.events import BackgammonBoard, Board, ButtonPressed, NewGame
from controller.words.reasons import Reason, reason
from controller.words.signals import (
    EXPECT_ANSWER_DOUBLE,
    EXPECT_MOVE,
    EXPECT_ROLL_AGAIN,
    CubeOffered,
    CubeTaken,
    DiceAccepted,
    ExtraRoll,
    GameOver,
    PlayAccepted,
    Signal,
    Turn,
)

log = logging.getLogger(__name__)

OPENING_TIE = reason("referee.opening_tie")
ILLEGAL_STANDS = reason("referee.illegal_play_stands")
NO_LEGAL_PLAY = reason("referee.no_legal_play")
DOUBLE_BEFORE_ROLL = reason("referee.double_before_roll")
SIDES = ("white", "black")


class BackgammonReferee(TurnReferee[bg.Position]):
    """One backgammon game; `match` carries score and Crawford state from the previous game."""

    game = BACKGAMMON

    def __init__(
        self,
        options: bg.Options,
        settings: TableSettings,
        match_length: int = 1,
        match: Match | None = None,
    ) -> None:
        super().__init__(bg.Position.initial(options).with_turn(0), settings)
        self.options = options
        self.match_length = match_length
        start = match if match is not None else Match(length=match_length, options=options)
        self.state = replace(self.state, match=start)

    @classmethod
    def start(
        cls, options: bg.Options, settings: TableSettings, event: NewGame, carry: Match | None
    ) -> BackgammonReferee:
        return cls(options, settings, event.match_length, carry)

    def seat(self) -> int:
        return int(self.state.pos.turn)

    def board_of(self, pos: bg.Position) -> Board:
        return pos.to_board()

    def cocked_rerolls(self) -> bool:
        return bool(self.options.cocked_die_rerolls)

    def accept_dice(self, values: tuple[int, ...]) -> list[Signal]:
        seat = self.seat()
        self.state = replace(self.state, phase=Phase.MOVE, dice=values)
        out: list[Signal] = [DiceAccepted(seat, values), Turn(seat, EXPECT_MOVE)]
        if self.state.pos.legal_plays(values) == [bg.Play(())]:
            out.append(notice(NO_LEGAL_PLAY))
        return out

    def pass_unseen(self) -> list[Signal]:
        seat, dice = self.seat(), self.state.dice
        if dice[0] == dice[1] and self.options.extra_roll_after_double:
            self.state = replace(self.state, phase=Phase.ROLL, dice=())
            return [ExtraRoll(seat), Turn(seat, EXPECT_ROLL_AGAIN)]
        pos = self.state.pos.with_turn(1 - seat)
        self.state = replace(self.state, pos=pos, phase=Phase.ROLL, dice=())
        return [expect_roll(1 - seat)]

    def adopt(self, board: Board) -> list[Signal]:
        if not isinstance(board, BackgammonBoard):
            raise InvalidPosition("a backgammon game needs a backgammon board")
        pos = bg.Position.from_board(board, self.seat(), self.options)
        result = pos.result()
        if result is not None:
            self.state = replace(self.state, pos=pos, phase=Phase.OVER, dice=())
            return [self._game_over(result)]
        self.state = replace(self.state, pos=pos)
        return []

    def opening(self, values: tuple[int, ...]) -> list[Signal]:
        if len(values) != 2:
            return [reroll(self.seat(), OPENING_TIE)]
        first = bg.opening_roll(values[0], values[1])
        if first is None:
            return [reroll(self.seat(), OPENING_TIE)]
        self.state = replace(self.state, pos=self.state.pos.with_turn(first), first_roll_done=True)
        dice = (values[first], values[1 - first])
        return self.accept_dice(dice)

    def judge(self, board: Board) -> tuple[bool, bg.Play | None, Reason | None]:
        verdict = self.state.pos.judge(board, self.state.dice)
        return verdict.legal, verdict.play, verdict.reason

    def results(self) -> list[Board]:
        return [after.to_board() for after in self.state.pos.legal_results(self.state.dice)]

    def notation(self, play: bg.Play) -> str:
        return str(play)

    def accept_play(self, play: bg.Play) -> list[Signal]:
        seat = self.seat()
        dice = self.state.dice
        after = self.state.pos.apply(play)
        out: list[Signal] = [PlayAccepted(seat, self.notation(play))]
        result = after.result()
        if result is not None:
            self.state = replace(self.state, pos=after, phase=Phase.OVER, dice=())
            return [*out, self._game_over(result)]
        if dice[0] == dice[1] and self.options.extra_roll_after_double:
            self.state = replace(self.state, pos=after.with_turn(seat), phase=Phase.ROLL, dice=())
            return [*out, ExtraRoll(seat), Turn(seat, EXPECT_ROLL_AGAIN)]
        self.state = replace(self.state, pos=after, phase=Phase.ROLL, dice=())
        return [*out, expect_roll(self.seat())]

    def illegal_stands(self, board: Board) -> list[Signal] | None:
        stands = self.options.illegal_move_stands_after_roll
        if self.settings.must_correct or not stands or not isinstance(board, BackgammonBoard):
            return None
        opponent = 1 - self.seat()
        try:
            after = bg.Position.from_board(board, opponent, self.options)
        except RulesError as exc:
            log.info("illegal play cannot stand, the board is impossible: %s", exc)
            return None
        self.state = replace(self.state, pos=after, phase=Phase.ROLL, dice=(), differs=False)
        result = after.result()
        if result is not None:
            self.state = replace(self.state, phase=Phase.OVER)
            return [notice(ILLEGAL_STANDS), self._game_over(result)]
        return [notice(ILLEGAL_STANDS)]

    def _game_over(self, result: bg.Result) -> GameOver:
        match = self.state.match.end_game(result)
        self.state = replace(self.state, match=match)
        return self._scored(match)

    def _scored(self, match: Match) -> GameOver:
        record = match.games[-1]
        return GameOver(
            order=(record.winner, 1 - record.winner),
            result=record.kind,
            points=record.points,
            match_score=match.score,
        )

    @property
    def score(self) -> tuple[int, int]:
        return self.state.match.score

    def carry(self) -> Match | None:
        return self.state.match if self.match_length > 1 else None

    def match_over(self) -> bool:
        return self.state.match.winner() is not None

    def roll_blocked(self) -> list[Signal] | None:
        return [notice(R_PENDING)] if self.state.match.offered_by is not None else None

    def other_button(self, event: ButtonPressed) -> list[Signal]:
        """The doubling cube: double before rolling, take or drop by the opponent."""
        s = self.state
        match: Match = s.match
        try:
            if event.name is Button.DOUBLE:
                seat = self.seat() if event.seat is None else event.seat
                if s.phase is not Phase.ROLL or not s.first_roll_done or seat != self.seat():
                    return [notice(DOUBLE_BEFORE_ROLL)]
                offered = match.offer_double(seat)
                self.state = replace(s, match=offered)
                return [CubeOffered(seat, offered.cube * 2), Turn(1 - seat, EXPECT_ANSWER_DOUBLE)]
            if event.name in (Button.TAKE, Button.DROP):
                doubler = match.offered_by
                answering = event.seat
                if answering is None:
                    answering = 1 - doubler if doubler is not None else 1 - self.seat()
                if event.name is Button.TAKE:
                    taken = match.take(answering)
                    self.state = replace(s, match=taken)
                    return [CubeTaken(answering, taken.cube), expect_roll(self.seat())]
                dropped = match.drop(answering)
                self.state = replace(s, match=dropped, phase=Phase.OVER, dice=())
                return [self._scored(dropped)]
        except CubeError as exc:
            return [notice(exc.reason)]
        return []

    def diff(self, expected: Board, observed: Board) -> tuple[list[str], list[str]]:
        assert isinstance(expected, BackgammonBoard) and isinstance(observed, BackgammonBoard)
        fields: list[str] = []
        restore: list[str] = []
        for i, (want, got) in enumerate(zip(expected.points, observed.points, strict=True)):
            if want != got:
                fields.append(str(i + 1))
                restore.append(f"{i + 1}={want}")
        for name, want_pair, got_pair in (
            ("bar", _bar(expected), _bar(observed)),
            ("off", _off(expected), _off(observed)),
        ):
            for side, want, got in zip(SIDES, want_pair, got_pair, strict=True):
                if want != got:
                    fields.append(f"{name}:{side}")
                    restore.append(f"{name}:{side}={want}")
        return fields, restore


def _bar(board: BackgammonBoard) -> tuple[int, int]:
    return board.bar_white, board.bar_black


def _off(board: BackgammonBoard) -> tuple[int, int]:
    return board.off_white, board.off_black
