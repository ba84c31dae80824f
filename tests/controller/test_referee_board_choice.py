"""The referee and unsure readings: the legal results it offers for scoring, the choice among
results that fit alike (`BoardCandidates`, the seat's done button), and a board no result fits
(`BoardUnsure`). Boards are made with the engines, never by the referee under test."""

from __future__ import annotations

from controller.referee import Referee
from controller.referee.turns import TableSettings
from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.words.events import (
    BoardCandidates,
    BoardObserved,
    BoardUnsure,
    ButtonPressed,
    DiceObserved,
    NewGame,
    ViewBlocked,
)
from controller.words.signals import BoardChoice, DiceAccepted, Illegal, PlayAccepted, Turn

START = bg.Position.initial()
DONE0 = ButtonPressed("done", seat=0)
HOLD0 = ButtonPressed("done", seat=0, long=True)


def _after(notation: str) -> bg.BackgammonBoard:
    return START.apply(bg.Play.parse(notation)).to_board()


def _rolled(dice: tuple[int, int] = (3, 1), settings: TableSettings | None = None) -> Referee:
    referee = Referee(settings)
    referee.handle(NewGame("backgammon", "standard"))
    referee.handle(DiceObserved(dice))
    return referee


def _same_play(a: str, b: str) -> bool:
    return sorted(bg.Play.parse(a).moves) == sorted(bg.Play.parse(b).moves)


def test_the_candidates_are_the_distinct_legal_results_of_the_open_turn() -> None:
    referee = Referee()
    referee.handle(NewGame("backgammon", "standard"))
    assert referee.candidate_boards() == ()  # no dice yet: no play open
    referee.handle(DiceObserved((3, 1)))
    boards = referee.candidate_boards()
    assert set(boards) == {p.to_board() for p in START.legal_results((3, 1))}
    assert len(boards) == len(set(boards)) and START.to_board() not in boards
    assert referee.position_board() == START.to_board()


def test_the_unchanged_board_is_a_candidate_only_when_nothing_can_move() -> None:
    referee = Referee()
    referee.handle(NewGame("maedn", "hofer", players=2))
    referee.handle(DiceObserved((6,)))  # a 6 brings a piece out: the house may not stay full
    start = maedn.Position.initial(maedn.Options.preset("hofer"), players=2)
    assert referee.candidate_boards() == (start.apply(start.legal_plays(6)[0], 6).to_board(),)
    assert start.to_board() not in referee.candidate_boards()


def test_two_results_that_fit_alike_are_stepped_through_with_done_and_taken_with_a_hold() -> None:
    referee = _rolled()
    first, second = _after("8/5 6/5"), _after("24/21 6/5")
    out = referee.handle(BoardCandidates((first, second)))
    assert len(out) == 1 and isinstance(out[0], BoardChoice)
    assert out[0].seat == 0 and out[0].shown == 0 and len(out[0].plays) == 2
    assert _same_play(out[0].plays[0], "8/5 6/5") and _same_play(out[0].plays[1], "24/21 6/5")
    stepped = referee.handle(DONE0)
    assert stepped == [BoardChoice(0, 1, out[0].plays)]
    assert referee.handle(DONE0) == [BoardChoice(0, 0, out[0].plays)]  # round again
    referee.handle(DONE0)
    taken = referee.handle(HOLD0)
    assert isinstance(taken[0], PlayAccepted) and _same_play(taken[0].notation, "24/21 6/5")
    assert taken[-1] == Turn(1, "roll")


def test_an_illegal_board_among_the_candidates_is_never_offered() -> None:
    referee = _rolled()
    illegal = _after("13/7")  # 6 pips for a roll of 3 and 1
    out = referee.handle(BoardCandidates((illegal, _after("8/5 6/5"))))
    assert out == []  # one legal result left: it is the board read, judged at done
    accepted = referee.handle(DONE0)
    assert isinstance(accepted[0], PlayAccepted) and _same_play(accepted[0].notation, "8/5 6/5")
    referee = _rolled()
    assert referee.handle(BoardCandidates((illegal, _after("13/8")))) == []
    assert isinstance(referee.handle(DONE0)[0], Illegal)  # the board read before: none moved


def test_a_board_read_surely_ends_the_choice() -> None:
    referee = _rolled()
    referee.handle(BoardCandidates((_after("8/5 6/5"), _after("24/21 6/5"))))
    referee.handle(ViewBlocked())  # the players put the pieces right
    assert referee.handle(BoardObserved(_after("13/10 6/5"))) == []
    accepted = referee.handle(HOLD0)  # no choice left: a hold is a press of done
    assert isinstance(accepted[0], PlayAccepted) and _same_play(accepted[0].notation, "13/10 6/5")


def test_the_next_roll_waits_for_the_choice() -> None:
    referee = _rolled()
    choice = referee.handle(BoardCandidates((_after("8/5 6/5"), _after("24/21 6/5"))))[0]
    out = referee.handle(DiceObserved((5, 2)))
    assert [s.type for s in out] == ["notice", "board_choice"]
    assert out[0].key == "referee.choose_first" and out[1] == choice
    assert referee.handle(ButtonPressed("done", seat=1))[0].key == "referee.not_your_turn"
    referee.handle(HOLD0)
    assert referee.handle(DiceObserved((5, 2)))[0] == DiceAccepted(1, (5, 2))


def test_without_done_buttons_there_is_no_choice_the_board_must_be_fixed() -> None:
    referee = _rolled(settings=TableSettings(done_button=False))
    out = referee.handle(BoardCandidates((_after("8/5 6/5"), _after("24/21 6/5"))))
    assert [s.key for s in out] == ["referee.board_unsure"]


def test_a_board_no_result_fits_is_not_judged_until_one_is_read() -> None:
    referee = _rolled()
    referee.handle(BoardObserved(_after("8/5")))  # half the play, read surely
    assert [s.key for s in referee.handle(BoardUnsure())] == ["referee.board_unsure"]
    assert [s.key for s in referee.handle(DONE0)] == ["referee.board_unsure"]  # not judged
    assert [s.key for s in referee.handle(DiceObserved((5, 2)))] == ["referee.board_unsure"]
    accepted = referee.handle(BoardObserved(_after("8/5 6/5")))  # done was pressed: judged now
    assert isinstance(accepted[0], PlayAccepted) and _same_play(accepted[0].notation, "8/5 6/5")


def test_unsure_readings_outside_an_open_play_change_nothing() -> None:
    referee = Referee()
    referee.handle(NewGame("backgammon", "standard"))
    assert referee.handle(BoardUnsure()) == []
    assert referee.handle(BoardCandidates((_after("8/5 6/5"), _after("24/21 6/5")))) == []
    assert referee.handle(DiceObserved((3, 1)))[0] == DiceAccepted(0, (3, 1))
