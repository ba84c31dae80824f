"""Plays nobody could see (camera lost): the turn passes on done, the next board seen before a
roll becomes the position, and judging resumes from it. Boards come from the real engines."""

from __future__ import annotations

import dataclasses

from controller import table_log
from controller.referee import Referee
from controller.referee.turns import BOARD_TAKEN, IMPOSSIBLE_BOARD, PLAY_UNSEEN
from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.words.events import BoardObserved, ButtonPressed, DiceObserved, NewGame, PlayUnseen
from controller.words.signals import (
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_ROLL_AGAIN,
    DiceAccepted,
    ExtraRoll,
    GameOver,
    Illegal,
    Notice,
    PlayAccepted,
    Turn,
)

STANDARD = bg.Options.preset("standard")


def _keys(signals: list) -> list[str]:
    return [s.key for s in signals if isinstance(s, Notice)]


def _backgammon() -> Referee:
    referee = Referee()
    referee.handle(NewGame("backgammon", "standard"))
    start = bg.Position.initial(STANDARD).to_board()
    referee.handle(BoardObserved(start))
    return referee


def test_backgammon_turns_pass_unjudged_and_the_seen_board_is_taken() -> None:
    referee = _backgammon()
    referee.handle(DiceObserved((3, 1)))
    out = referee.handle(PlayUnseen(seat=0))
    assert _keys(out) == [PLAY_UNSEEN.key] and out[-1] == Turn(1, EXPECT_ROLL)
    assert not any(isinstance(s, PlayAccepted | Illegal) for s in out)
    # Black's roll: the table cannot know whether a move exists, so it waits for done.
    assert referee.handle(DiceObserved((6, 6))) == [DiceAccepted(1, (6, 6)), Turn(1, EXPECT_MOVE)]
    out = referee.handle(ButtonPressed("done", seat=1))
    assert out[-1] == Turn(0, EXPECT_ROLL)
    # Back in sight: the board White and Black left (8/5 6/5; 24/18(2) 13/7(2)) counts now.
    white = bg.Position.initial(STANDARD).apply(bg.Play.parse("8/5 6/5"))
    both = white.with_turn(1).apply(bg.Play.parse("24/18(2) 13/7(2)")).with_turn(0)
    out = referee.handle(BoardObserved(both.to_board()))
    assert _keys(out) == [BOARD_TAKEN.key]
    # White's next play is judged from that board: 13/11 13/10 is legal there.
    referee.handle(DiceObserved((2, 3)))
    after = both.apply(bg.Play.parse("13/11 13/10"))
    referee.handle(BoardObserved(after.to_board()))
    out = referee.handle(ButtonPressed("done", seat=0))
    assert isinstance(out[0], PlayAccepted) and out[0].seat == 0
    assert out[-1] == Turn(1, EXPECT_ROLL)


def test_an_unseen_double_gives_the_extra_roll_where_the_rules_do() -> None:
    referee = Referee()
    referee.handle(NewGame("backgammon", "hofer"))
    referee.handle(BoardObserved(bg.Position.initial(bg.Options.preset("hofer")).to_board()))
    referee.handle(DiceObserved((2, 2)))
    out = referee.handle(PlayUnseen(seat=0))
    assert ExtraRoll(0) in out and out[-1] == Turn(0, EXPECT_ROLL_AGAIN)


def test_an_impossible_board_after_unseen_plays_is_named_and_not_taken() -> None:
    referee = _backgammon()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(PlayUnseen(seat=0))
    start = bg.Position.initial(STANDARD).to_board()
    short = dataclasses.replace(start, points=(0, *start.points[1:]))  # Black's two back men gone
    assert _keys(referee.handle(BoardObserved(short))) == [IMPOSSIBLE_BOARD.key]
    assert _keys(referee.handle(BoardObserved(start))) == [BOARD_TAKEN.key]


def test_unseen_play_by_the_wrong_seat_is_refused() -> None:
    referee = _backgammon()
    referee.handle(DiceObserved((3, 1)))
    out = referee.handle(PlayUnseen(seat=1))
    assert _keys(out) == ["referee.not_your_turn"]


def test_mensch_unseen_turns_follow_the_six_and_a_finished_seat_ends_the_game() -> None:
    options = maedn.Options.preset("hofer")
    referee = Referee()
    referee.handle(NewGame("maedn", "hofer", players=2))
    start = maedn.Position.initial(options, players=2)
    referee.handle(BoardObserved(start.to_board()))
    referee.handle(DiceObserved((6,)))
    out = referee.handle(PlayUnseen(seat=0))
    assert ExtraRoll(0) in out and out[-1] == Turn(0, EXPECT_ROLL_AGAIN)
    referee.handle(DiceObserved((3,)))
    assert referee.handle(PlayUnseen(seat=0))[-1] == Turn(1, EXPECT_ROLL)
    # The camera comes back on a board where seat 0 has brought every piece home (nobody saw
    # how): seat 0 has won; with two players the game is over.
    home = maedn.Position.from_pieces(((40, 41, 42, 43), (-1, -1, -1, 5)), 2, 1, options)
    out = referee.handle(BoardObserved(home.to_board()))
    assert _keys(out) == [BOARD_TAKEN.key]
    assert isinstance(out[-1], GameOver) and out[-1].order[0] == 0


def test_unseen_play_lines_round_trip_through_the_table_log() -> None:
    for event in (PlayUnseen(seat=2, t=4.5), PlayUnseen()):
        assert table_log.parse_line(table_log.dumps(event)) == event
