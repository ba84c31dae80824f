"""Mensch ärgere Dich nicht at the table: one die, one piece per roll, the engine says who rolls.

The position decides who rolls next (another roll after a 6, three tries for a 6, finishing
order); this module turns that into signals. An illegal move must always be corrected: the
Mensch rule texts have no "the play stands" rule. Fields are named on the shared track
(``track:N``, N = 0..39 in seat 0's counting, as the engine's `Position.track_field`), plus
``house:S`` and ``goal:S:K`` (K = 1..4).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import replace

from controller.referee.turns import (
    Phase,
    TableSettings,
    TurnReferee,
    expect_roll,
    multiset_diff,
    reroll,
)
from controller.rules import maedn
from controller.rules.errors import InvalidPosition
from controller.rules.games import MAEDN
from controller.words.events import Board, MaednBoard, NewGame
from controller.words.reasons import Reason, reason
from controller.words.signals import (
    EXPECT_MOVE,
    EXPECT_ROLL_AGAIN,
    DiceAccepted,
    ExtraRoll,
    GameOver,
    PlayAccepted,
    RollElectronicDie,
    Signal,
    ThreeTries,
    Turn,
)

log = logging.getLogger(__name__)

GOAL_START = 40

OPENING_TIE = reason("referee.opening_tie_maedn")


def field_name(pos: maedn.Position, seat: int, value: int) -> str:
    """The table-wide name of the field where seat `seat` counts `value` (-1 house, 40+ goal)."""
    if value < 0:
        return f"house:{seat}"
    if value >= GOAL_START:
        return f"goal:{seat}:{value - GOAL_START + 1}"
    return f"track:{pos.track_field(seat, value)}"


def move_notation(move: maedn.Move) -> str:
    """``H/0``, ``12/18``, ``38/41*`` (``H`` the house, ``*`` a capture), seat-relative."""
    src = "H" if move.src < 0 else str(move.src)
    capture = "*" if move.captured is not None else ""
    return f"{src}/{move.dst}{capture}"


class MaednReferee(TurnReferee[maedn.Position]):
    """One Mensch game for `players` seats."""

    game = MAEDN

    def __init__(self, options: maedn.Options, settings: TableSettings, players: int) -> None:
        super().__init__(maedn.Position.initial(options, players=players), settings)
        self.options = options
        self.players = players

    @classmethod
    def start(
        cls, options: maedn.Options, settings: TableSettings, event: NewGame, carry: None
    ) -> MaednReferee:
        return cls(options, settings, event.players)

    def seat(self) -> int:
        return int(self.state.pos.turn)

    def board_of(self, pos: maedn.Position) -> Board:
        return pos.to_board()

    def roll_button(self) -> list[Signal]:
        return [RollElectronicDie(self.seat())]

    def opening(self, values: tuple[int, ...]) -> list[Signal]:
        if len(values) != self.players:
            return []
        first = maedn.starting_seat(dict(enumerate(values)), self.options)
        if first is None:
            return [reroll(self.seat(), OPENING_TIE)]
        pos = maedn.Position.initial(self.options, players=self.players, turn=first)
        self.state = replace(self.state, pos=pos)
        return [expect_roll(first)]

    def accept_dice(self, values: tuple[int, ...]) -> list[Signal]:
        seat = self.seat()
        die = values[0]
        pos = self.state.pos
        out: list[Signal] = [DiceAccepted(seat, values)]
        if pos.legal_plays(die):
            self.state = replace(self.state, phase=Phase.MOVE, dice=values)
            return [*out, Turn(seat, EXPECT_MOVE)]
        self.state = replace(self.state, dice=values)
        return out + self._next(pos.apply(None, die), seat, die)

    def pass_unseen(self) -> list[Signal]:
        seat = self.seat()
        after = self.state.pos.apply_unseen(self.state.dice)
        self.state = replace(self.state, pos=after, phase=Phase.ROLL, dice=())
        if after.turn == seat:
            return [ExtraRoll(seat), Turn(seat, EXPECT_ROLL_AGAIN)]
        return [expect_roll(int(after.turn))]

    def adopt(self, board: Board) -> list[Signal]:
        if not isinstance(board, MaednBoard):
            raise InvalidPosition("a Mensch game needs a Mensch board")
        old = self.state.pos
        seen = maedn.Position.from_board(board, self.seat(), self.options, players=self.players)
        # Seats that finished while nobody watched come after those known, in seat order.
        finished = [s for s in old.finished if s in seen.finished]
        finished += [s for s in seen.finished if s not in finished]
        pos = dataclasses.replace(seen, finished=tuple(finished))
        if pos.is_over():
            self.state = replace(self.state, pos=pos, phase=Phase.OVER, dice=())
            return [GameOver(order=_finishing_order(pos))]
        self.state = replace(self.state, pos=pos)
        return []

    def judge(self, board: Board) -> tuple[bool, maedn.Move | None, Reason | None]:
        verdict = self.state.pos.judge(board, self.state.dice)
        return verdict.legal, verdict.play, verdict.reason

    def results(self) -> list[Board]:
        pos, die = self.state.pos, self.state.dice[0]
        moves = pos.legal_plays(die)
        return [pos.apply(move, die).to_board() for move in moves] or [pos.to_board()]

    def notation(self, play: maedn.Move | None) -> str:
        return move_notation(play) if play is not None else ""

    def accept_play(self, play: maedn.Move | None) -> list[Signal]:
        seat = self.seat()
        die = self.state.dice[0]
        after = self.state.pos.apply(play, die)
        return [PlayAccepted(seat, self.notation(play)), *self._next(after, seat, die)]

    def _next(self, after: maedn.Position, seat: int, die: int) -> list[Signal]:
        if after.is_over():
            self.state = replace(self.state, pos=after, phase=Phase.OVER, dice=())
            return [GameOver(order=_finishing_order(after))]
        self.state = replace(self.state, pos=after, phase=Phase.ROLL, dice=())
        nxt = int(after.turn)
        if nxt != seat:
            return [expect_roll(nxt)]
        if die == 6:
            return [ExtraRoll(seat), Turn(seat, EXPECT_ROLL_AGAIN)]
        return [ThreeTries(seat, int(after.tries_used) + 1), Turn(seat, EXPECT_ROLL_AGAIN)]

    def diff(self, expected: Board, observed: Board) -> tuple[list[str], list[str]]:
        assert isinstance(expected, MaednBoard) and isinstance(observed, MaednBoard)
        fields: list[str] = []
        restore: list[str] = []
        if len(expected.pieces) != len(observed.pieces):
            return ["board"], []
        for seat, (want, got) in enumerate(zip(expected.pieces, observed.pieces, strict=True)):
            missing, extra = multiset_diff(want, got)
            pos = self.state.pos
            for value in extra:
                fields.append(field_name(pos, seat, value))
            for value in missing:
                name = field_name(pos, seat, value)
                fields.append(name)
                restore.append(f"{name}={seat}")
        return sorted(set(fields)), restore


def _finishing_order(pos: maedn.Position) -> tuple[int, ...]:
    """Finished seats first (in order), then the rest by pieces in the goal, then seat."""
    finished = [int(s) for s in pos.finished]
    board = pos.to_board()
    rest = [s for s in range(len(board.pieces)) if s not in finished]
    rest.sort(key=lambda s: (-sum(1 for v in board.pieces[s] if v >= GOAL_START), s))
    return (*finished, *rest)

