"""The table maker's rules (text 001, manual page 12 and the lines before it), sentence by
sentence, and the `hofer` column of VARIANTS.md. Positions in the mover's numbering."""

from __future__ import annotations

import dataclasses

from controller.rules import backgammon as bg
from controller.rules.backgammon_options import DOUBLES_TOP_BOTTOM, HOFER, STANDARD
from tests.rules.bg_strategies import position, results


def hofer(mover: dict, other: dict | None = None) -> bg.Position:
    return position(mover, other, HOFER)


def expect(mover: dict, other: dict | None = None, options: bg.Options = HOFER) -> bg.Position:
    return position(mover, other, options).with_turn(1)


def why(pos: bg.Position, text: str, dice: tuple[int, int]) -> str | None:
    reason = pos.why_not(bg.Play.parse(text), dice)
    return None if reason is None else reason.key


def test_001_made_point_band_may_not_be_occupied_by_the_opponent() -> None:
    pos = hofer({13: 1, 1: 14}, {11: 2})
    assert why(pos, "13/11 11/6", (2, 5)) == "blocked_point"


def test_001_made_point_may_be_counted_and_jumped_over() -> None:
    pos = hofer({24: 1, 1: 14}, {20: 2})
    assert results(pos, (6, 1)) == {expect({17: 1, 1: 14}, {20: 2})}


def test_001_bridge_of_made_points_stops_low_numbers() -> None:
    prime = {18: 2, 19: 2, 20: 2, 21: 2, 22: 2, 23: 2}
    pos = hofer({24: 1, 1: 14}, prime)
    assert pos.legal_plays((2, 1)) == [bg.Play(())]


def test_001_one_checker_counts_both_dice_or_one_checker_per_die() -> None:
    pos = hofer({24: 1, 13: 1, 1: 13})
    assert results(pos, (5, 2)) == {
        expect({17: 1, 13: 1, 1: 13}),  # one checker, both dice
        expect({22: 1, 8: 1, 1: 13}),  # one checker per die
        expect({19: 1, 11: 1, 1: 13}),
        expect({24: 1, 6: 1, 1: 13}),
    }


def test_001_lower_number_first_when_moving_two_checkers() -> None:
    pos = hofer({8: 1, 3: 14})
    assert results(pos, (6, 3)) == {expect({3: 14})}  # 8/5 first, then 5/off
    assert why(pos, "8/2 3/off", (6, 3)) == "lower_die_first"
    standard = pos.with_options(STANDARD)
    assert why(standard, "8/2 3/off", (6, 3)) is None


def test_001_lower_number_blocked_forfeits_the_whole_roll() -> None:
    pos = hofer({24: 1, 1: 14}, {22: 2})
    assert pos.legal_plays((2, 5)) == [bg.Play(())]
    assert why(pos, "24/19/17", (2, 5)) == "lower_die_blocked"
    assert pos.judge(pos.with_turn(1), (2, 5)).legal
    standard = pos.with_options(STANDARD)
    assert why(standard, "24/19/17", (2, 5)) is None


def test_001_lower_played_higher_impossible_only_the_higher_is_lost() -> None:
    pos = hofer({24: 1, 1: 14}, {17: 2})
    assert results(pos, (2, 5)) == {expect({22: 1, 1: 14}, {17: 2})}
    standard = pos.with_options(STANDARD)
    assert results(standard, (2, 5)) == {expect({19: 1, 1: 14}, {17: 2}, STANDARD)}


def test_001_intermediate_point_after_the_lower_number_must_be_open() -> None:
    pos = hofer({13: 1, 20: 1, 1: 13}, {11: 2})
    assert why(pos, "13/6", (2, 5)) == "intermediate_blocked"
    assert why(pos.with_options(STANDARD), "13/6", (2, 5)) is None  # via 8, the 5 first
    alone = hofer({13: 1, 1: 14}, {11: 2})
    assert alone.legal_plays((2, 5)) == [bg.Play(())]  # the lower number cannot be played


def test_001_double_bottom_face_not_before_top_face_in_full() -> None:
    pos = hofer({24: 1, 1: 14}, {12: 2})
    assert results(pos, (6, 6)) == {expect({18: 1, 1: 14}, {12: 2})}
    assert why(pos, "24/18 18/17", (6, 6)) == "top_face_first"


def test_001_double_top_face_in_full_bottom_face_need_not_be_used_in_full() -> None:
    pos = hofer({24: 1, 1: 14})
    assert results(pos, (6, 6)) == {
        expect({12: 1, 1: 14}),
        expect({11: 1, 1: 14}),
        expect({10: 1, 1: 14}),
    }


def test_manual_six_double_two_checkers_six_points_two_checkers_one_point() -> None:
    pos = bg.Position.initial(HOFER)
    assert why(pos, "24/18(2) 6/5(2)", (6, 6)) is None
    assert why(pos, "13/7(2) 8/7 6/5", (6, 6)) is None
    assert why(pos, "24/18(2) 13/7(2)", (6, 6)) is not None  # the 6 four times is standard


def test_manual_another_roll_after_a_double() -> None:
    assert HOFER.extra_roll_after_double
    assert not STANDARD.extra_roll_after_double


def test_manual_higher_roll_begins() -> None:
    assert bg.opening_roll(6, 2) == 0
    assert bg.opening_roll(1, 3) == 1
    assert HOFER.opening_ties_reroll  # decision: like standard


def test_001_single_opposing_checker_may_be_hit() -> None:
    pos = hofer({24: 1, 1: 14}, {22: 1})
    assert expect({17: 1, 1: 14}, {"bar": 1}) in results(pos, (2, 5))


def test_001_several_checkers_hit_in_one_turn_two_and_six() -> None:
    pos = hofer({20: 1, 1: 14}, {18: 1, 12: 1})
    assert expect({12: 1, 1: 14}, {"bar": 2}) in results(pos, (2, 6))


def test_001_hit_checkers_enter_before_any_other_checker_moves() -> None:
    pos = hofer({"bar": 1, 13: 14})
    assert why(pos, "13/11 13/8", (2, 5)) == "bar_first"
    assert why(pos, "bar/23 13/8", (2, 5)) is None


def test_001_entering_by_the_number_into_the_opponents_home_board() -> None:
    pos = hofer({"bar": 2, 13: 13})
    assert results(pos, (2, 5)) == {expect({23: 1, 20: 1, 13: 13})}


def test_001_no_checker_can_enter_whole_roll_lost() -> None:
    pos = hofer({"bar": 1, 13: 14}, {23: 2, 20: 2})
    assert pos.legal_plays((2, 5)) == [bg.Play(())]


def test_001_several_hit_all_enter_before_moving_on() -> None:
    pos = hofer({"bar": 3, 13: 12})
    assert results(pos, (2, 5)) == {expect({"bar": 1, 23: 1, 20: 1, 13: 12})}


def test_001_bearing_off_once_all_in_the_last_quarter() -> None:
    pos = hofer({8: 1, 2: 14})
    assert why(pos, "2/off 8/7", (2, 1)) == "bear_off_not_home"
    assert why(pos, "8/7/5", (2, 1)) is None
    home = hofer({7: 1, 2: 14})
    assert why(home, "7/5 5/off", (2, 5)) is None


def test_001_checkers_removed_by_the_numbers_rolled() -> None:
    pos = hofer({5: 1, 2: 1}, {12: 15})
    assert results(pos, (2, 5)) == {expect({}, {12: 15}), expect({2: 1}, {12: 15})}


def test_001_first_to_bear_off_all_wins() -> None:
    pos = hofer({1: 1}, {12: 15})
    won = pos.apply(bg.Play.parse("1/off"))
    assert won.result() == bg.Result(0, "single", 1)  # decision: no gammons by default


def test_variants_hofer_cube_and_gammons_off_by_default_but_available() -> None:
    assert not (HOFER.cube or HOFER.gammons or HOFER.crawford)
    with_gammons = dataclasses.replace(HOFER, gammons=True)
    won = position({1: 1}, {12: 15}, with_gammons).apply(bg.Play.parse("1/off"))
    assert won.result() == bg.Result(0, "gammon", 2)


def test_variants_each_hofer_rule_switches_alone_on_standard() -> None:
    lower_first = dataclasses.replace(STANDARD, non_double="lower_first")
    pos = position({24: 1, 1: 14}, {22: 2}, lower_first)
    assert pos.legal_plays((2, 5)) == [bg.Play(())]
    top_bottom = dataclasses.replace(STANDARD, doubles=DOUBLES_TOP_BOTTOM)
    single = position({24: 1, 1: 14}, options=top_bottom)
    assert len(results(single, (6, 6))) == 3
    jump = dataclasses.replace(STANDARD, intermediate_must_be_open=False)
    blocked = position({13: 1, 1: 14}, {11: 2, 8: 2}, jump)
    assert results(blocked, (5, 2)) == {expect({6: 1, 1: 14}, {11: 2, 8: 2}, jump)}
    assert position({13: 1, 1: 14}, {11: 2, 8: 2}).legal_plays((5, 2)) == [bg.Play(())]
