"""Standard notation: reading and writing plays from the mover's side."""

from __future__ import annotations

import pytest

from controller.rules import backgammon as bg
from controller.rules.errors import InvalidNotation
from controller.rules.notation import Move


def test_reads_points_bar_off_hits_chains_and_repeats() -> None:
    assert bg.Play.parse("24/18 13/11").moves == (Move(24, 18), Move(13, 11))
    assert bg.Play.parse("bar/22*").moves == (Move(25, 22, True),)
    assert bg.Play.parse("6/off 5/OFF").moves == (Move(6, 0), Move(5, 0))
    assert bg.Play.parse("24/18*/13").moves == (Move(24, 18, True), Move(18, 13))
    assert bg.Play.parse("8/5(2) 6/5(2)").moves == (Move(8, 5),) * 2 + (Move(6, 5),) * 2
    assert bg.Play.parse("-").moves == ()


def test_writes_standard_notation() -> None:
    assert str(bg.Play((Move(25, 22, True), Move(13, 11)))) == "bar/22* 13/11"
    assert str(bg.Play((Move(8, 5), Move(8, 5), Move(6, 5), Move(6, 5)))) == "8/5(2) 6/5(2)"
    assert str(bg.Play((Move(6, 0),))) == "6/off"
    assert str(bg.Play(())) == "-"


def test_same_text_means_the_same_for_black() -> None:
    white = bg.Position.initial()
    black = white.with_turn(1)
    play = bg.Play.parse("13/7 8/7", turn=1)
    assert black.why_not(play, (6, 1)) is None
    assert black.apply(play).sides[1] == white.apply(play).sides[0]


@pytest.mark.parametrize(
    ("text", "complaint"),
    [("24-18", "24-18"), ("26/20", "range"), ("13/7(9)", "13/7(9)"), ("8/5(4) 6/5(4) 3/1", "more")],
)
def test_unreadable_text_names_the_problem(text: str, complaint: str) -> None:
    with pytest.raises(InvalidNotation, match=complaint.replace("(", r"\(").replace(")", r"\)")):
        bg.Play.parse(text)


def test_apply_refuses_a_move_the_board_does_not_allow() -> None:
    pos = bg.Position.initial()
    with pytest.raises(bg.IllegalMove, match="no own checker"):
        pos.apply(bg.Play.parse("23/20"))
    with pytest.raises(bg.IllegalMove, match="blocked"):
        pos.apply(bg.Play.parse("13/12"))
