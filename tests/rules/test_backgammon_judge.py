"""The transition check the referee uses: observed board after a roll -> Verdict."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from controller.rules import backgammon as bg
from controller.rules import match
from controller.rules.errors import InvalidDice, InvalidPosition
from controller.words.events import BackgammonBoard
from controller.words.reasons import CATALOG, Reason


def _differences(a: bg.Position, b: bg.Position) -> int:
    """Places (points, bars, off trays of both colours) where two boards differ."""
    x, y = a.to_board(), b.to_board()
    return sum(p != q for p, q in zip(x.points, y.points, strict=True)) + sum(
        getattr(x, f) != getattr(y, f) for f in ("bar_white", "bar_black", "off_white", "off_black")
    )


def test_any_order_of_checker_moves_reaching_a_legal_result_is_legal() -> None:
    pos = bg.Position.initial()
    after = pos.apply(bg.Play.parse("13/11 24/21"))  # written 2 first, 3 second
    verdict = pos.judge(after, (3, 2))
    assert verdict.legal and verdict.play is not None and verdict.reason is None


def test_judge_reads_the_camera_board_from_whites_side() -> None:
    pos = bg.Position.initial().with_turn(1)
    board = pos.to_board()
    points = list(board.points)
    points[0] += 2  # Black's 24-point (White's 1-point) loses both checkers ...
    points[4] -= 2  # ... to Black's 20-point (White's 5-point): 24/20(2) with 4-4
    points[11] += 2  # and 13/9(2): White's 12-point to White's 16-point
    points[15] -= 2
    after = dataclasses.replace(board, points=tuple(points))
    verdict = pos.judge(after, (4, 4))
    assert verdict.legal, verdict.reason
    assert str(verdict.play) in {"24/20(2) 13/9(2)", "13/9(2) 24/20(2)"}


def test_illegal_board_gets_a_reason_and_nearest_plays_fewest_differences_first() -> None:
    pos = bg.Position.initial()
    wrong = pos.apply(bg.Play.parse("13/8 13/9"))  # 5 and 4 played instead of 5 and 3
    verdict = pos.judge(wrong, (5, 3))
    assert not verdict.legal and verdict.reason is not None
    assert verdict.reason.key == "wrong_distance"
    distances = [_differences(pos.apply(p), wrong) for p in verdict.nearest]
    assert distances == sorted(distances)
    best = min(_differences(after, wrong) for after in pos.legal_results((5, 3)))
    assert distances[0] == best


def test_opponents_checkers_moved_is_named() -> None:
    pos = bg.Position.initial()
    board = pos.to_board()
    points = list(board.points)
    points[0] = 0  # Black's two back checkers vanish to Black's 22-point (White's 3-point)
    points[2] = -2
    verdict = pos.judge(dataclasses.replace(board, points=tuple(points)), (6, 5))
    assert not verdict.legal and verdict.reason is not None
    assert verdict.reason.key == "opponent_moved"


def test_nothing_moved_when_a_move_was_possible() -> None:
    pos = bg.Position.initial()
    verdict = pos.judge(pos.with_turn(1), (6, 5))
    assert not verdict.legal and verdict.reason is not None
    assert verdict.reason.key == "must_move"


def test_impossible_observed_board_raises_naming_the_problem() -> None:
    pos = bg.Position.initial()
    board = pos.to_board()
    sixteen = dataclasses.replace(board, points=(*board.points[:23], 3))  # 3 on White's 24
    with pytest.raises(InvalidPosition, match="White has 16 checkers"):
        pos.judge(sixteen, (3, 1))
    with pytest.raises(InvalidPosition, match="-1"):
        bg.Position.from_points((0,) * 24, bar=(-1, 0))
    with pytest.raises(InvalidPosition, match="24 points"):
        pos.judge(BackgammonBoard((0,) * 23), (3, 1))


def test_bad_dice_are_refused_by_name() -> None:
    pos = bg.Position.initial()
    with pytest.raises(InvalidDice, match="7"):
        pos.legal_plays((7, 1))
    with pytest.raises(InvalidDice, match="two dice"):
        pos.legal_plays((3,))


def test_every_backgammon_reason_has_german_and_english_text_fitting_the_display() -> None:
    reasons = [r for module in (bg, match) for r in vars(module).values() if isinstance(r, Reason)]
    assert len(reasons) >= 25
    for r in reasons:
        assert CATALOG[r.key] == r and r.de and r.en and r.de != r.en
        for text in (r.de, r.en):  # the serial display shows 4 lines of 20 characters
            assert len(textwrap.wrap(text, 20)) <= 4, text


def test_positions_are_immutable_hashable_values_even_from_lists() -> None:
    sides = [[0] * 5 + [15] + [0] * 19, [0] * 5 + [15] + [0] * 19]
    pos = bg.Position(sides, 0)  # type: ignore[arg-type]
    sides[0][5] = 0
    assert pos.sides[0][5] == 15
    assert {pos: 1}[bg.Position.from_position_id(pos.position_id())] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        pos.turn = 1  # type: ignore[misc]
