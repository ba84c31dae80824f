"""The standard rules, sentence by sentence: texts 002 (app rules) and 004 (tournament rules).

Positions are written in the mover's numbering (24 -> 1), see `bg_strategies.position`; the
expected results are read off the rule texts by hand.
"""

from __future__ import annotations

import dataclasses

from controller.rules import backgammon as bg
from controller.rules.backgammon_options import STANDARD
from tests.rules.bg_strategies import position, results


def expect(mover: dict, other: dict | None = None, options: bg.Options = STANDARD) -> bg.Position:
    """The position after the mover's play (so the other side is on roll)."""
    return position(mover, other, options).with_turn(1)


def why(pos: bg.Position, text: str, dice: tuple[int, int]) -> str | None:
    reason = pos.why_not(bg.Play.parse(text), dice)
    return None if reason is None else reason.key


# --- 004: set-up and opening ----------------------------------------------------------------


def test_004_setup_two_five_three_five_for_both_sides() -> None:
    board = bg.Position.initial().to_board()
    assert (board.points[23], board.points[12], board.points[7], board.points[5]) == (2, 5, 3, 5)
    assert (board.points[0], board.points[11], board.points[16], board.points[18]) == (
        -2,
        -5,
        -3,
        -5,
    )
    assert sum(p for p in board.points if p > 0) == 15
    assert sum(-p for p in board.points if p < 0) == 15
    assert (board.bar_white, board.bar_black, board.off_white, board.off_black) == (0, 0, 0, 0)


def test_004_opening_one_die_each_higher_begins_tie_rolls_again() -> None:
    assert bg.opening_roll(5, 3) == 0
    assert bg.opening_roll(2, 6) == 1
    assert bg.opening_roll(4, 4) is None


def test_004_opening_winner_moves_own_and_opponents_number() -> None:
    pos = bg.Position.initial()
    plays = pos.legal_plays((6, 1))
    assert all(len(play.moves) == 2 for play in plays)
    assert expect({24: 2, 13: 4, 8: 2, 7: 2, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}) in set(
        pos.legal_results((6, 1))
    )


# --- 002/004: moving ------------------------------------------------------------------------


def test_002_each_die_moves_one_checker_that_many_points() -> None:
    pos = position({13: 2, 1: 13})
    assert results(pos, (5, 2)) == {expect({11: 1, 8: 1, 1: 13}), expect({13: 1, 6: 1, 1: 13})}


def test_004_numbers_not_added_but_one_checker_may_take_both_in_either_order() -> None:
    # 11 is blocked, so 13/6 is only possible by playing the 5 first: the player may choose.
    pos = position({13: 1, 1: 14}, {11: 2})
    assert results(pos, (5, 2)) == {expect({6: 1, 1: 14}, {11: 2})}
    assert why(pos, "13/8/6", (5, 2)) is None
    assert why(pos, "13/11/6", (5, 2)) == "blocked_point"


def test_002_004_point_with_two_opponent_checkers_cannot_be_used() -> None:
    pos = position({13: 1, 1: 14}, {8: 2, 11: 3})
    assert pos.legal_plays((5, 2)) == [bg.Play(())]
    assert why(pos, "13/8", (5, 2)) == "blocked_point"


def test_002_may_land_on_empty_own_or_single_opponent_point() -> None:
    pos = position({24: 1, 20: 1, 1: 13}, {22: 1})
    after = results(pos, (4, 2))
    assert expect({22: 1, 16: 1, 1: 13}, {"bar": 1}) in after  # onto the single checker (22)
    assert expect({20: 1, 18: 1, 1: 13}, {22: 1}) in after  # 24/20 onto an own checker
    assert expect({24: 1, 14: 1, 1: 13}, {22: 1}) in after  # onto empty points
    assert pos.with_turn(1) not in after  # the roll must be played


def test_002_intermediate_landing_points_must_be_open() -> None:
    pos = position({24: 1, 1: 14}, {18: 2, 19: 2})
    assert pos.legal_plays((6, 5)) == [bg.Play(())]
    assert why(pos, "24/13", (6, 5)) == "intermediate_blocked"


def test_002_004_single_checker_is_hit_and_put_on_the_bar() -> None:
    pos = position({24: 1, 1: 14}, {22: 1, 23: 2})
    assert results(pos, (2, 1)) == {expect({21: 1, 1: 14}, {"bar": 1, 23: 2})}
    assert pos.legal_plays((2, 1))[0].moves[0].hit


def test_004_hit_also_at_an_intermediate_stop() -> None:
    pos = position({24: 1, 1: 14}, {18: 1})
    assert results(pos, (6, 5)) == {
        expect({13: 1, 1: 14}, {"bar": 1}),  # 24/18*/13
        expect({13: 1, 1: 14}, {18: 1}),  # 24/19/13
    }


# --- 002/004: the bar -----------------------------------------------------------------------


def test_002_004_checkers_on_the_bar_enter_before_any_other_moves() -> None:
    pos = position({"bar": 1, 13: 14})
    assert all(after.sides[0][24] == 0 for after in pos.legal_results((5, 3)))
    assert why(pos, "13/8 13/10", (5, 3)) == "bar_first"


def test_002_004_enter_on_the_third_or_fifth_point_of_opponents_home_board() -> None:
    pos = position({"bar": 1, 13: 14})
    entries = {m.dst for play in pos.legal_plays((5, 3)) for m in play.moves if m.src == 25}
    assert entries == {22, 20}  # the 3rd or 5th point, counted in the own direction
    assert expect({22: 1, 8: 1, 13: 13}) in results(pos, (5, 3))
    assert expect({20: 1, 10: 1, 13: 13}) in results(pos, (5, 3))


def test_004_several_checkers_hit_all_enter_first() -> None:
    pos = position({"bar": 2, 13: 13})
    assert results(pos, (5, 3)) == {expect({22: 1, 20: 1, 13: 13})}
    three = position({"bar": 3, 13: 12})
    assert results(three, (5, 3)) == {expect({"bar": 1, 22: 1, 20: 1, 13: 12})}


def test_002_004_no_checker_can_enter_roll_is_lost() -> None:
    pos = position({"bar": 1, 13: 14}, {22: 2, 20: 2})
    assert pos.legal_plays((5, 3)) == [bg.Play(())]
    assert why(pos, "13/8 13/10", (5, 3)) == "bar_first"
    assert why(pos, "-", (5, 3)) is None


# --- 002/004: forced play -------------------------------------------------------------------


def test_002_004_both_numbers_must_be_played_when_possible() -> None:
    pos = position({24: 1, 13: 14})
    assert all(len(play.moves) == 2 for play in pos.legal_plays((6, 5)))
    assert why(pos, "13/7", (6, 5)) == "must_use_both"


def test_002_004_only_one_number_playable_the_higher_must_be_played() -> None:
    pos = position({24: 1, 1: 14}, {13: 2})
    assert results(pos, (6, 5)) == {expect({18: 1, 1: 14}, {13: 2})}
    assert why(pos, "24/19", (6, 5)) == "must_use_higher"


def test_002_only_the_lower_number_playable_then_the_lower() -> None:
    pos = position({24: 1, 1: 14}, {13: 2, 18: 2})
    assert results(pos, (6, 5)) == {expect({19: 1, 1: 14}, {13: 2, 18: 2})}


def test_002_004_double_is_played_four_times() -> None:
    pos = position({24: 1, 1: 14})
    assert results(pos, (2, 2)) == {expect({16: 1, 1: 14})}
    assert len(pos.legal_plays((2, 2))[0].moves) == 4


def test_002_double_played_as_far_as_possible() -> None:
    pos = position({24: 1, 1: 14}, {18: 2})
    assert results(pos, (2, 2)) == {expect({20: 1, 1: 14}, {18: 2})}
    assert why(pos, "24/22", (2, 2)) == "must_use_double"


def test_004_no_number_playable_player_passes() -> None:
    pos = position({24: 1, 1: 14}, {18: 2, 19: 2})
    assert pos.legal_plays((6, 5)) == [bg.Play(())]
    assert pos.judge(pos.with_turn(1), (6, 5)).legal


# --- 002/004: bearing off -------------------------------------------------------------------


def test_002_004_bear_off_only_with_all_fifteen_in_home_board() -> None:
    pos = position({8: 1, 3: 14})
    assert all(sum(after.sides[0]) == 15 for after in pos.legal_results((3, 1)))
    assert why(pos, "3/off 3/2", (3, 1)) == "bear_off_not_home"


def test_002_example_five_and_three_rolled_six_five_both_from_the_five() -> None:
    pos = position({5: 2, 3: 2})
    assert results(pos, (6, 5)) == {expect({3: 2})}


def test_002_example_four_two_must_move_inside_home_board() -> None:
    pos = position({5: 2, 3: 2})
    assert results(pos, (4, 2)) == {expect({3: 3, 1: 1}), expect({5: 1, 3: 1, 1: 2})}


def test_004_example_two_four_checker_above_must_move_regularly() -> None:
    pos = position({5: 1, 2: 2})
    assert results(pos, (4, 2)) == {expect({2: 1, 1: 1}), expect({2: 2})}
    assert why(pos, "2/off 2/off", (4, 2)) == "bear_off_higher_point"


def test_004_example_two_four_points_above_empty_next_lower_point_bears_off() -> None:
    pos = position({2: 2, 1: 1})
    assert results(pos, (4, 2)) == {expect({1: 1})}


def test_004_example_single_checker_on_six_with_six_one_either_way() -> None:
    pos = position({6: 1, 3: 2})
    assert results(pos, (6, 1)) == {expect({3: 1, 2: 1}), expect({3: 2})}
    assert why(pos, "6/5 5/off", (6, 1)) is None


def test_004_pips_cannot_be_split_between_checkers() -> None:
    pos = position({6: 1, 4: 1})
    assert why(pos, "6/off 4/2", (5, 3)) == "wrong_distance"


def test_002_not_enough_to_bear_off_moves_closer() -> None:
    pos = position({6: 3})
    assert results(pos, (2, 1)) == {expect({6: 2, 3: 1}), expect({6: 1, 5: 1, 4: 1})}


# --- 002/004 and VARIANTS: the end of the game ----------------------------------------------


def test_002_004_first_to_bear_off_all_wins_single() -> None:
    pos = position({1: 1}, {12: 14})
    final = pos.apply(bg.Play.parse("1/off"))
    assert final.result() == bg.Result(0, "single", 1)


def test_variants_gammon_counts_double_when_loser_bore_off_none() -> None:
    pos = position({1: 1}, {12: 15})
    assert pos.apply(bg.Play.parse("1/off")).result() == bg.Result(0, "gammon", 2)


def test_variants_backgammon_counts_triple_with_loser_in_winners_home_or_bar() -> None:
    in_home = position({1: 1}, {12: 14, 3: 1})
    assert in_home.apply(bg.Play.parse("1/off")).result() == bg.Result(0, "backgammon", 3)
    on_bar = position({1: 1}, {12: 14, "bar": 1})
    assert on_bar.apply(bg.Play.parse("1/off")).result() == bg.Result(0, "backgammon", 3)


def test_variants_game_not_over_while_both_have_checkers() -> None:
    assert bg.Position.initial().result() is None


# --- VARIANTS rows the referee applies (the options exist and default as tabulated) ---------


def test_004_cocked_die_rerolls_and_illegal_move_stands_after_roll_are_on() -> None:
    for preset in ("standard", "hofer"):
        opts = bg.Options.preset(preset)
        assert opts.cocked_die_rerolls and opts.illegal_move_stands_after_roll
        assert opts.opening_ties_reroll


def test_variants_standard_has_no_extra_roll_after_double_and_offers_the_cube() -> None:
    assert not STANDARD.extra_roll_after_double
    assert STANDARD.cube and STANDARD.gammons


def test_variants_each_option_switches_alone() -> None:
    pos = position({"bar": 1, 13: 14})
    free = dataclasses.replace(STANDARD, bar_enters_first=False)
    assert why(pos.with_options(free), "13/8 13/10", (5, 3)) is None
    exact = dataclasses.replace(STANDARD, bear_off_higher_die=False)
    bearing = position({2: 2, 1: 1}, options=exact)
    assert results(bearing, (4, 2)) == {expect({2: 1, 1: 1}, options=exact)}
    no_gammons = dataclasses.replace(STANDARD, gammons=False)
    won = position({1: 1}, {12: 15}, options=no_gammons).apply(bg.Play.parse("1/off"))
    assert won.result() == bg.Result(0, "single", 1)
