"""Every Mensch row of VARIANTS.md: the presets' values, and each option switched on its own.

Each test starts from `hofer` and changes only the option the row names, so a rule that leaks
into another option's behaviour shows up here.
"""

from __future__ import annotations

import dataclasses

import pytest

from controller.rules import maedn
from controller.rules.errors import InvalidDice, InvalidOption
from controller.rules.maedn_options import PRESETS, Options

HOFER = Options.preset("hofer")
E = [-1, -1, -1, -1]


def pos(pieces: list[list[int]], options: Options, turn: int = 0) -> maedn.Position:
    return maedn.Position.from_pieces(pieces, len(pieces), turn, options)


def pairs(position: maedn.Position, die: int) -> set[tuple[int, int]]:
    return {(m.src, m.dst) for m in position.legal_plays(die)}


def test_variants_row_pieces_at_start() -> None:
    for name in ("hofer", "vegas", "openspiel"):
        start = maedn.Position.initial(Options.preset(name), players=3)
        assert start.pieces == ((-1, -1, -1, -1),) * 3
    schmidt = maedn.Position.initial(Options.preset("schmidt"), players=3)
    assert schmidt.pieces == ((-1, -1, -1, 0),) * 3
    one_out = HOFER.with_changes(pieces_on_start_field=1)
    assert maedn.Position.initial(one_out, players=2).pieces[1] == (
        -1,
        -1,
        -1,
        0,
    )


def test_variants_row_who_begins() -> None:
    rolls = {0: 2, 1: 5, 2: 5, 3: 6}
    for name in ("hofer", "vegas", "schmidt"):
        assert maedn.starting_seat(rolls, Options.preset(name)) == 3
        assert maedn.starting_seat({0: 4, 1: 4}, Options.preset(name)) is None
    assert maedn.starting_seat(rolls, Options.preset("openspiel")) == 0
    assert maedn.starting_seat({0: 1, 1: 6}, HOFER.with_changes(who_begins="seat0")) == 0
    with pytest.raises(InvalidDice, match="7"):
        maedn.starting_seat({0: 7, 1: 2}, HOFER)


def test_variants_row_a_six_is_needed_to_leave_the_house() -> None:
    p = [[-1, -1, -1, 20], E]
    assert all(Options.preset(n).six_to_leave_house for n in PRESETS)
    assert pairs(pos(p, HOFER), 3) == {(20, 23)}
    assert pairs(pos(p, HOFER.with_changes(six_to_leave_house=False)), 3) == {(-1, 0), (20, 23)}


def test_variants_row_a_six_must_bring_a_piece_out() -> None:
    p = [[-1, -1, -1, 20], E]
    assert all(Options.preset(n).six_must_bring_out for n in PRESETS)
    assert pairs(pos(p, HOFER), 6) == {(-1, 0)}
    assert pairs(pos(p, HOFER.with_changes(six_must_bring_out=False)), 6) == {(-1, 0), (20, 26)}


def test_variants_row_own_piece_on_own_start_field() -> None:
    p = [[-1, -1, 0, 20], E]
    expected = {"hofer": "with_six", "vegas": "any_roll", "schmidt": "any_roll"}
    for name, rule in expected.items():
        assert Options.preset(name).start_field_rule == rule
    assert Options.preset("openspiel").start_field_rule == "any_roll"
    assert pairs(pos(p, HOFER), 2) == {(0, 2), (20, 22)}
    assert pairs(pos(p, HOFER), 6) == {(0, 6)}
    any_roll = HOFER.with_changes(start_field_rule="any_roll")
    assert pairs(pos(p, any_roll), 2) == {(0, 2)}
    none = HOFER.with_changes(start_field_rule="none")
    # With no start-field rule a 6 still must bring a piece out, but the start is own-occupied.
    assert pairs(pos(p, none), 6) == {(0, 6), (20, 26)}
    # "unless its target holds an own piece" (OpenSpiel's wording): then any piece may move.
    assert pairs(pos([[-1, 0, 2, 20], E], any_roll), 2) == {(2, 4), (20, 22)}


def test_variants_row_own_pieces_block() -> None:
    p = [[-1, -1, 5, 8], E]
    assert all(Options.preset(n).own_pieces_block for n in PRESETS)
    assert pairs(pos(p, HOFER), 3) == {(8, 11)}
    stacking = HOFER.with_changes(own_pieces_block=False)
    stacked = pos(p, stacking)
    assert pairs(stacked, 3) == {(5, 8), (8, 11)}
    after = stacked.apply(maedn.Move(0, 5, 8), 3)
    assert after.pieces[0] == (-1, -1, 8, 8)
    again = maedn.Position.from_pieces(after.pieces, 2, 0, stacking)
    assert pairs(again, 1) == {(8, 9)}
    # An opponent landing on the pair (seat 1's 28 = track field 8) sends both home.
    hit = maedn.Position.from_pieces([[-1, -1, 8, 8], [-1, -1, -1, 25]], 2, 1, stacking)
    assert hit.apply(maedn.Move(1, 25, 28), 3).pieces[0] == (-1, -1, -1, -1)


def test_variants_row_capturing_is_not_compulsory() -> None:
    p = [[-1, -1, 12, 30], [-1, -1, -1, 35]]  # seat 1's 35 = track field 15 (two opposite)
    assert not any(Options.preset(n).forced_capture for n in PRESETS)
    assert pairs(pos(p, HOFER), 3) == {(12, 15), (30, 33)}
    forced = pos(p, HOFER.with_changes(forced_capture=True))
    assert pairs(forced, 3) == {(12, 15)}
    assert forced.why_not(maedn.Move(0, 30, 33), 3).key == "maedn.must_capture"


def test_variants_row_opponent_on_start_field_is_captured_when_coming_out() -> None:
    p = [E, [-1, -1, -1, 20]]  # seat 1's 20 = track field 0 = seat 0's start field
    assert all(Options.preset(n).capture_on_start_field for n in PRESETS)
    (move,) = pos(p, HOFER).legal_plays(6)
    assert move.captured == 1
    protected = pos(p, HOFER.with_changes(capture_on_start_field=False))
    assert protected.legal_plays(6) == []
    assert protected.why_not(maedn.Move(0, -1, 0), 6).key == "maedn.start_field_blocked"


def test_variants_row_pieces_may_be_jumped_on_track_and_in_goal() -> None:
    track = [[-1, -1, 5, 7], [-1, -1, -1, 29]]  # seat 1's 29 = track field 9
    goal = [[-1, -1, 38, 41], E]
    assert all(Options.preset(n).jump_over for n in PRESETS)
    assert (5, 10) in pairs(pos(track, HOFER), 5)
    assert (38, 42) in pairs(pos(goal, HOFER), 4)
    no_jump = HOFER.with_changes(jump_over=False)
    assert pairs(pos(track, no_jump), 5) == set()
    assert pos(track, no_jump).why_not(maedn.Move(0, 5, 10), 5).key == "maedn.no_jumping"
    assert pairs(pos(goal, no_jump), 4) == set()
    assert pairs(pos(goal, no_jump), 2) == {(38, 40), (41, 43)}


def test_variants_row_exact_count_needed_in_the_goal() -> None:
    p = [[-1, -1, -1, 41], E]
    assert all(Options.preset(n).exact_goal_count for n in PRESETS)
    assert pairs(pos(p, HOFER), 5) == set()
    loose = HOFER.with_changes(exact_goal_count=False)
    assert pairs(pos(p, loose), 5) == {(41, 43)}
    assert pairs(pos([[-1, -1, -1, 43], E], loose), 5) == set()


def test_variants_row_another_roll_after_a_six() -> None:
    moved = [[-1, -1, 5, 20], E]
    unusable = [[38, 40, 41, 42], E]  # 38 + 6 overshoots, the goal is packed at the end
    for name in ("hofer", "vegas", "schmidt"):
        assert Options.preset(name).extra_roll_after_six == "after_move"
    assert Options.preset("openspiel").extra_roll_after_six == "always"
    assert pos(moved, HOFER).apply(maedn.Move(0, -1, 0), 6).turn == 0
    assert pos(unusable, HOFER).apply(None, 6).turn == 1
    always = HOFER.with_changes(extra_roll_after_six="always")
    assert pos(unusable, always).apply(None, 6).turn == 0
    never = HOFER.with_changes(extra_roll_after_six="no")
    assert pos(moved, never).apply(maedn.Move(0, -1, 0), 6).turn == 1


def test_variants_row_no_further_roll_when_a_six_brings_the_last_piece_home() -> None:
    p = [[37, 40, 41, 42], [-1, -1, -1, 5], [-1, -1, -1, 5]]
    for name in ("hofer", "vegas", "schmidt"):
        assert Options.preset(name).no_extra_roll_after_last_piece
    after = pos(p, HOFER).apply(maedn.Move(0, 37, 43), 6)
    assert (after.finished, after.turn) == ((0,), 1)


def test_variants_row_three_tries_to_roll_a_six() -> None:
    p = [E, E]
    assert HOFER.three_tries
    assert not any(Options.preset(n).three_tries for n in ("vegas", "schmidt", "openspiel"))
    assert pos(p, HOFER).tries_allowed() == 3
    assert pos(p, HOFER.with_changes(three_tries=False)).tries_allowed() == 1
    assert pos(p, HOFER.with_changes(three_tries=False)).apply(None, 1).turn == 1


def test_variants_row_play_on_for_second_and_third_place() -> None:
    p = [[39, 41, 42, 43], [-1, -1, -1, 5], [-1, -1, -1, 5]]
    assert HOFER.play_on and Options.preset("schmidt").play_on
    assert not Options.preset("vegas").play_on and not Options.preset("openspiel").play_on
    assert not pos(p, HOFER).apply(maedn.Move(0, 39, 40), 1).is_over()
    assert pos(p, HOFER.with_changes(play_on=False)).apply(maedn.Move(0, 39, 40), 1).is_over()


def test_variants_row_the_die() -> None:
    expected = {"hofer": "physical", "vegas": "electronic", "schmidt": "physical"}
    for name, die in expected.items():
        assert Options.preset(name).die == die
    with pytest.raises(InvalidOption, match="'die'"):
        HOFER.with_changes(die="loaded")


def test_options_are_one_frozen_field_per_row_and_reject_bad_values() -> None:
    assert len(dataclasses.fields(Options)) == 15
    with pytest.raises(dataclasses.FrozenInstanceError):
        HOFER.three_tries = False  # type: ignore[misc]
    with pytest.raises(InvalidOption, match="three_tries"):
        HOFER.with_changes(three_tries="yes")
    with pytest.raises(InvalidOption, match="no_such_rule"):
        HOFER.with_changes(no_such_rule=True)
    with pytest.raises(InvalidOption, match="pieces_on_start_field"):
        dataclasses.replace(HOFER, pieces_on_start_field=2)
    with pytest.raises(InvalidOption, match=r"unknown .* variant 'ludo'"):
        Options.preset("ludo")
    assert HOFER.with_changes([("play_on", False)]) == HOFER.with_changes({"play_on": False})
