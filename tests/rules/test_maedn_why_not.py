"""Why a move is illegal (German and English), judging observed boards, impossible positions."""

from __future__ import annotations

import pytest

from controller.rules import maedn
from controller.rules.errors import InvalidDice, InvalidPosition, RulesError
from controller.rules.verdict import Verdict
from controller.words.events import MaednBoard
from controller.words.reasons import CATALOG

HOFER = maedn.Options.preset("hofer")
E = [-1, -1, -1, -1]


def pos(pieces: list[list[int]], turn: int = 0, **changes: object) -> maedn.Position:
    return maedn.Position.from_pieces(pieces, len(pieces), turn, HOFER.with_changes(changes))


# (position, die, move, expected reason key): every way a single move can be illegal.
CASES = [
    ("six_must_bring_out", pos([[-1, -1, -1, 12], E]), 6, (0, 12, 18)),
    ("start_field_first_six", pos([[-1, -1, 0, 12], E]), 6, (0, 12, 18)),
    ("start_field_first", pos([[-1, -1, 0, 12], E], start_field_rule="any_roll"), 2, (0, 12, 14)),
    ("own_piece", pos([[-1, -1, 10, 12], E]), 2, (0, 10, 12)),
    ("overshoot", pos([[-1, -1, -1, 41], E]), 3, (0, 41, 44)),
    ("six_to_leave_house", pos([[-1, -1, -1, 12], E]), 5, (0, -1, 0)),
    ("not_your_piece", pos([[-1, -1, -1, 12], [-1, -1, -1, 5]]), 2, (1, 5, 7)),
    ("no_piece_there", pos([[-1, -1, -1, 12], E]), 2, (0, 13, 15)),
    ("wrong_distance", pos([[-1, -1, -1, 12], E]), 2, (0, 12, 15)),
    ("wrong_distance", pos([[-1, -1, -1, 12], E]), 2, (0, 12, 10)),
    ("enter_on_start_field", pos([[-1, -1, -1, 12], E]), 6, (0, -1, 6)),
    ("start_field_own_piece", pos([[-1, 0, 6, 12], E]), 6, (0, -1, 0)),
    (
        "start_field_blocked",
        pos([E, [-1, -1, -1, 20]], capture_on_start_field=False),
        6,
        (0, -1, 0),
    ),
    ("no_jumping", pos([[-1, -1, 10, 12], E], jump_over=False), 3, (0, 10, 13)),
    (
        "must_capture",
        pos([[-1, -1, 10, 30], [-1, -1, -1, 33]], forced_capture=True),
        3,
        (0, 30, 33),
    ),
]


@pytest.mark.parametrize(("key", "position", "die", "move"), CASES)
def test_why_not_names_the_broken_rule_in_german_and_english(
    key: str, position: maedn.Position, die: int, move: tuple[int, int, int]
) -> None:
    why = position.why_not(maedn.Move(*move), die)
    assert why is not None
    assert why.key == f"maedn.{key}"
    assert why.text("de") and why.text("en") and why.text("de") != why.text("en")
    assert (move[1], move[2]) not in {(m.src, m.dst) for m in position.legal_plays(die)}
    with pytest.raises(maedn.IllegalMove) as raised:
        position.apply(maedn.Move(*move), die)
    assert raised.value.reason == why


def test_every_maedn_reason_exists_in_both_languages() -> None:
    keys = [k for k in CATALOG if k.startswith("maedn.")]
    assert len(keys) >= 19
    for key in keys:
        r = CATALOG[key]
        assert r.de.strip() and r.en.strip() and r.de != r.en, key


def test_why_not_is_none_for_every_legal_move_and_a_pass_when_nothing_moves() -> None:
    p = pos([[-1, 0, 12, 41], [-1, -1, -1, 5]])
    for die in range(1, 7):
        for move in p.legal_plays(die):
            assert p.why_not(move, die) is None
    stuck = pos([[-1, -1, 42, 43], E])
    assert stuck.why_not(None, 3) is None
    assert pos([[-1, -1, -1, 12], E]).why_not(None, 3).key == "maedn.must_move"


def test_bad_die_values_raise_invalid_dice() -> None:
    p = pos([E, E])
    for die in (0, 7, True, 2.0, "6"):
        with pytest.raises(InvalidDice, match=r"1\.\.6"):
            p.legal_plays(die)  # type: ignore[arg-type]


def test_judge_accepts_the_observed_legal_move_and_names_it() -> None:
    p = pos([[-1, -1, -1, 12], [-1, -1, -1, 35]])  # seat 1's 35 = track field 15
    seen = MaednBoard(((-1, -1, -1, 15), (-1, -1, -1, -1)))
    verdict = p.judge(seen, 3)
    assert verdict.legal
    assert (verdict.play.src, verdict.play.dst, verdict.play.captured) == (12, 15, 1)
    assert p.judge(p.apply(verdict.play, 3), 3).legal


def test_judge_accepts_an_unchanged_board_only_when_the_turn_passes() -> None:
    stuck = pos([[-1, -1, 42, 43], E])
    assert stuck.judge(stuck.to_board(), 2) == Verdict(True, None)
    p = pos([[-1, -1, -1, 12], E])
    verdict = p.judge(p.to_board(), 2)
    assert not verdict.legal and verdict.reason.key == "maedn.must_move"
    assert [(m.src, m.dst) for m in verdict.nearest] == [(12, 14)]


def test_judge_explains_a_wrong_distance_and_offers_the_nearest_legal_move() -> None:
    p = pos([[-1, -1, 3, 12], E])
    verdict = p.judge(MaednBoard(((-1, -1, 3, 15), E)), 2)
    assert not verdict.legal
    assert verdict.reason.key == "maedn.wrong_distance"
    assert (verdict.nearest[0].src, verdict.nearest[0].dst) == (12, 14)


def test_judge_flags_two_pieces_moved_and_an_opponent_piece_moved() -> None:
    p = pos([[-1, -1, 3, 12], [-1, -1, -1, 5]])
    two = p.judge(MaednBoard(((-1, -1, 5, 14), (-1, -1, -1, 5))), 2)
    assert two.reason.key == "maedn.several_pieces_moved"
    other = p.judge(MaednBoard(((-1, -1, 3, 12), (-1, -1, -1, 7))), 2)
    assert other.reason.key == "maedn.other_piece_moved"
    both = p.judge(MaednBoard(((-1, -1, 3, 14), (-1, -1, -1, 7))), 2)
    assert both.reason.key == "maedn.other_piece_moved"


def test_judge_flags_a_captured_piece_left_on_the_board() -> None:
    # Seat 0 lands on seat 1's piece (track field 15) but seat 1's piece shows up on field 16.
    p = pos([[-1, -1, -1, 12], [-1, -1, -1, 35]])
    verdict = p.judge(MaednBoard(((-1, -1, -1, 15), (-1, -1, -1, 36))), 3)
    assert verdict.reason.key == "maedn.captured_not_home"


def test_after_rejects_moves_once_the_game_is_over() -> None:
    over = maedn.Position.from_pieces(
        [[40, 41, 42, 43], [-1, -1, -1, 5]], 2, 1, maedn.Options.preset("vegas")
    )
    assert over.is_over()
    with pytest.raises(RulesError, match="over"):
        over.apply(maedn.Move(1, 5, 8), 3)


@pytest.mark.parametrize(
    ("pieces", "players", "turn", "message"),
    [
        ([[-1, -1, -1, 44], E], 2, 0, "another colour's goal"),
        ([[-1, -1, -1, -1, 3], E], 2, 0, "5 pieces"),
        ([[-1, -1, 3], E], 2, 0, "3 pieces"),
        ([[-1, -1, 7, 7], E], 2, 0, "two pieces on its field 7"),
        ([[-1, -1, 42, 42], E], 2, 0, "two pieces on its field 42"),
        ([[-1, -1, -1, 25], [-1, -1, -1, 5]], 2, 0, "both have a piece on track field 25"),
        ([[-1, -1, -1, 15], [-1, -1, -1, 5], E], 3, 0, "both have a piece on track field 15"),
        ([[-1, -1, -1, -2], E], 2, 0, "-2"),
        ([E, E], 2, 2, "seat number out of range"),
        ([E, E, E, E], 4, -1, "seat number out of range"),
        ([E, E, E], 2, 0, "3 seats of pieces given for 2 players"),
        ([E] * 5, 5, 0, "players must be 2, 3 or 4"),
        ([[-1, -1, -1, "x"], E], 2, 0, "not a whole number"),
    ],
)
def test_impossible_positions_raise_invalid_position_naming_the_problem(
    pieces: list, players: int, turn: int, message: str
) -> None:
    with pytest.raises(InvalidPosition, match=message):
        maedn.Position.from_pieces(pieces, players, turn, HOFER)


def test_finished_seats_must_match_the_pieces_and_be_in_range() -> None:
    home = [[40, 41, 42, 43], E, E]
    assert maedn.Position.from_pieces(home, 3, 1, HOFER).finished == (0,)
    with pytest.raises(InvalidPosition, match="out of range"):
        maedn.Position.from_pieces(home, 3, 1, HOFER, finished=(0, 3))
    with pytest.raises(InvalidPosition, match="do not match"):
        maedn.Position.from_pieces(home, 3, 1, HOFER, finished=(1,))
    with pytest.raises(InvalidPosition, match="out of range"):
        maedn.Position.from_pieces(home, 3, 1, HOFER, tries_used=3)


def test_start_offsets_put_two_players_opposite() -> None:
    assert [maedn.start_offset(s, 4) for s in range(4)] == [0, 10, 20, 30]
    assert [maedn.start_offset(s, 3) for s in range(3)] == [0, 10, 20]
    assert [maedn.start_offset(s, 2) for s in range(2)] == [0, 20]
    assert maedn.start_offset(1, 2, opposite=False) == 10
    two = maedn.Position.initial(HOFER, players=2)
    assert (two.track_field(1, 25), two.track_field(1, 0), two.track_field(0, 41)) == (5, 20, None)
    with pytest.raises(InvalidPosition, match="seat 4 out of range"):
        maedn.start_offset(4, 4)


def test_seat_numbers_out_of_range_raise_invalid_position() -> None:
    p = pos([[-1, -1, -1, 12], E])
    with pytest.raises(InvalidPosition, match="seat 2 out of range"):
        p.why_not(maedn.Move(2, 12, 14), 2)
    with pytest.raises(InvalidPosition, match="3 players, this game 2"):
        p.judge(maedn.Position.initial(HOFER, players=3), 2)
    with pytest.raises(InvalidPosition, match="seat -1"):
        maedn.starting_seat({-1: 6, 0: 3}, HOFER)


def test_move_notation_writes_the_house_as_h_and_marks_captures() -> None:
    p = pos([[-1, -1, -1, 12], [-1, -1, -1, 35]])  # seat 1's 35 = track field 15
    assert [m.notation() for m in p.legal_plays(3)] == ["12/15*"]
    assert [m.notation() for m in p.legal_plays(6)] == ["H/0"]
