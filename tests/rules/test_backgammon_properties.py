"""Properties every position and play must have, on random reachable positions (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import backgammon as bg
from controller.rules.backgammon_movegen import (
    _generic,
    blocked_and_blots,
    find_play,
    legal_table,
)
from controller.rules.errors import InvalidPosition
from tests.rules import bg_strategies as bgs

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(bgs.reachable_positions(), bgs.dice)
def test_checkers_are_conserved_by_every_play(pos: bg.Position, dice: tuple[int, int]) -> None:
    mover, other = pos.turn, 1 - pos.turn
    for play in pos.legal_plays(dice):
        after = pos.apply(play)
        borne_off = sum(1 for m in play.moves if m.dst == 0)
        hits = sum(1 for m in play.moves if m.hit)
        assert after.off[mover] == pos.off[mover] + borne_off
        assert after.off[other] == pos.off[other]
        assert sum(after.sides[other]) == sum(pos.sides[other])
        assert after.bar[other] == pos.bar[other] + hits
        assert sum(after.sides[0]) + after.off[0] == 15
        assert sum(after.sides[1]) + after.off[1] == 15


@PROPERTY
@given(bgs.reachable_positions(), bgs.dice)
def test_every_play_leads_to_a_valid_position_with_the_opponent_on_roll(
    pos: bg.Position, dice: tuple[int, int]
) -> None:
    plays = pos.legal_plays(dice)
    assert plays
    afters = [pos.apply(play) for play in plays]
    assert len(set(afters)) == len(afters)  # one play per distinct result
    for after in afters:
        assert after.turn == 1 - pos.turn
        rebuilt = bg.Position.from_board(after.to_board(), after.turn, after.options)
        assert rebuilt == after
        moved = pos.pip_counts()[pos.turn] - after.pip_counts()[pos.turn]
        # four times the number, or (hofer) the top face twice and the bottom face twice
        most = dice[0] + dice[1] if dice[0] != dice[1] else max(4 * dice[0], 14)
        assert 0 < moved <= most or (moved == 0 and plays == [bg.Play(())])


@PROPERTY
@given(bgs.reachable_positions(), bgs.dice)
def test_apply_then_judge_accepts_and_names_the_same_result(
    pos: bg.Position, dice: tuple[int, int]
) -> None:
    for play in pos.legal_plays(dice):
        after = pos.apply(play)
        verdict = pos.judge(after, dice)
        assert verdict.legal and verdict.play is not None
        assert pos.apply(verdict.play) == after
        assert pos.judge(after.to_board(), dice).legal
        assert pos.why_not(play, dice) is None


@PROPERTY
@given(bgs.reachable_positions(), bgs.dice)
def test_notation_round_trips(pos: bg.Position, dice: tuple[int, int]) -> None:
    for play in pos.legal_plays(dice):
        assert bg.Play.parse(str(play), turn=pos.turn) == play


@PROPERTY
@given(bgs.reachable_positions(), bgs.dice, st.data())
def test_illegal_results_get_a_reason_and_nearest_legal_plays(
    pos: bg.Position, dice: tuple[int, int], data: st.DataObject
) -> None:
    legal = set(pos.legal_results(dice))
    other_roll = data.draw(bgs.dice)
    for after in pos.legal_results(other_roll):
        if after in legal:
            continue
        verdict = pos.judge(after, dice)
        assert not verdict.legal
        assert verdict.reason is not None and verdict.reason.de and verdict.reason.en
        assert verdict.nearest and all(pos.apply(p) in legal for p in verdict.nearest)


@PROPERTY
@given(bgs.reachable_positions())
def test_position_id_round_trips(pos: bg.Position) -> None:
    again = bg.Position.from_position_id(pos.position_id(), pos.turn, pos.options)
    assert again == pos


@PROPERTY
@given(bgs.arbitrary_sides(), st.integers(0, 1))
def test_position_id_round_trips_for_any_valid_placement(
    sides: tuple[tuple[int, ...], tuple[int, ...]], turn: int
) -> None:
    pos = bg.Position(sides, turn)
    assert bg.Position.from_position_id(pos.position_id(), turn) == pos


@given(st.lists(st.integers(-16, 16), min_size=24, max_size=24))
def test_from_board_accepts_exactly_the_possible_boards(points: list[int]) -> None:
    white = sum(p for p in points if p > 0)
    black = sum(-p for p in points if p < 0)
    if white <= 15 and black <= 15:
        pos = bg.Position.from_points(points)
        assert pos.points == tuple(points)
        assert pos.off == (15 - white, 15 - black)
    else:
        try:
            bg.Position.from_points(points)
        except InvalidPosition as exc:
            assert "checkers" in str(exc)
        else:
            raise AssertionError("a side with more than 15 checkers was accepted")


@PROPERTY
@given(bgs.reachable_positions(bg.STANDARD), bgs.dice, bgs.dice)
def test_judge_fast_path_agrees_with_full_enumeration(
    pos: bg.Position, dice: tuple[int, int], other_roll: tuple[int, int]
) -> None:
    mine, theirs = pos.sides[pos.turn], pos.sides[1 - pos.turn]
    table = legal_table(mine, theirs, *dice, pos.options)
    for key in table:
        found = find_play(mine, theirs, *dice, pos.options, *key)
        assert found is not None, (pos.position_id(), dice, key)
        assert pos.apply(bg.Play(found)) == pos.apply(bg.Play(table[key]))
    for key in legal_table(mine, theirs, *other_roll, pos.options):
        if key not in table:
            assert find_play(mine, theirs, *dice, pos.options, *key) is None


@PROPERTY
@given(bgs.reachable_positions(bg.STANDARD), bgs.dice)
def test_generic_phase_generator_equals_the_standard_fast_paths(
    pos: bg.Position, dice: tuple[int, int]
) -> None:
    """The Hofer variant runs on the generic generator; with standard options it must give
    exactly what the fast paths (checked against OpenSpiel and gnubg) give."""
    mine, theirs = pos.sides[pos.turn], pos.sides[1 - pos.turn]
    blocked, blots = blocked_and_blots(theirs)
    generic = _generic(mine, blocked, blots, *dice, bg.STANDARD)
    assert set(generic) == set(legal_table(mine, theirs, *dice, bg.STANDARD))
