"""Text 003 (the Vegas-Team variant, preset `vegas`): one test per rule sentence.

Expected moves are worked out by hand from the rule text; positions are in each seat's own
counting (-1 house, 0 start field, 1..39 track, 40..43 goal).
"""

from __future__ import annotations

import pytest

from controller.rules import maedn
from controller.rules.errors import InvalidPosition

VEGAS = maedn.Options.preset("vegas")
E = [-1, -1, -1, -1]


def pos(pieces: list[list[int]], turn: int = 0, players: int = 4) -> maedn.Position:
    return maedn.Position.from_pieces(pieces, players, turn, VEGAS)


def pairs(position: maedn.Position, die: int) -> set[tuple[int, int]]:
    return {(m.src, m.dst) for m in position.legal_plays(die)}


def test_003_all_four_pieces_start_in_the_homebase() -> None:
    p = maedn.Position.initial(VEGAS, players=4)
    assert p.pieces == ((-1, -1, -1, -1),) * 4


def test_003_highest_single_roll_begins_then_clockwise() -> None:
    assert maedn.starting_seat({0: 3, 1: 6, 2: 2, 3: 5}, VEGAS) == 1
    p = pos([E, [-1, -1, -1, 5], E, E], turn=1)
    assert p.apply(maedn.Move(1, 5, 7), 2).turn == 2


def test_003_a_tied_highest_first_roll_is_rolled_again() -> None:
    """Decision: the text does not say; a tie for the highest roll rolls again."""
    assert maedn.starting_seat({0: 6, 1: 6, 2: 2}, VEGAS) is None


def test_003_the_piece_moves_by_the_number_on_the_wall_die() -> None:
    assert pairs(pos([[-1, -1, -1, 8], E, E, E]), 5) == {(8, 13)}
    assert VEGAS.die == "electronic"


def test_003_own_and_opponent_pieces_may_be_jumped_and_count() -> None:
    p = pos([[-1, -1, 8, 9], [-1, -1, -1, 0], E, E])  # seat 1 stands on track field 10
    assert (8, 12) in pairs(p, 4)


def test_003_with_several_pieces_on_the_track_the_player_chooses() -> None:
    assert pairs(pos([[-1, -1, 8, 25], E, E, E]), 1) == {(8, 9), (25, 26)}


def test_003_landing_on_an_opponent_captures_it_back_to_its_homebase() -> None:
    p = pos([[-1, -1, -1, 8], [-1, -1, -1, 0], E, E])  # seat 1 on track field 10
    (move,) = p.legal_plays(2)
    after = p.apply(move, 2)
    assert after.pieces[0] == (-1, -1, -1, 10)
    assert after.pieces[1] == (-1, -1, -1, -1)


def test_003_there_is_no_forced_capture() -> None:
    p = pos([[-1, -1, 8, 25], [-1, -1, -1, 0], E, E])
    assert pairs(p, 2) == {(8, 10), (25, 27)}


def test_003_own_pieces_cannot_be_captured_so_another_piece_must_move() -> None:
    p = pos([[-1, -1, 8, 10], E, E, E])
    assert pairs(p, 2) == {(10, 12)}
    assert p.why_not(maedn.Move(0, 8, 10), 2).key == "maedn.own_piece"


def test_003_when_no_piece_can_move_the_turn_is_lost() -> None:
    p = pos([[-1, -1, 8, 10], E, E, E])
    blocked = pos([[-1, -1, 40, 42], E, E, E])
    assert pairs(blocked, 2) == set()
    assert blocked.apply(None, 2).turn == 1
    assert p.why_not(None, 2).key == "maedn.must_move"


def test_003_start_field_must_be_cleared_at_the_first_chance_with_any_roll() -> None:
    p = pos([[-1, -1, 0, 20], E, E, E])
    assert pairs(p, 3) == {(0, 3)}
    assert p.why_not(maedn.Move(0, 20, 23), 3).key == "maedn.start_field_first"


def test_003_start_field_piece_that_cannot_move_lets_another_piece_move() -> None:
    p = pos([[-1, 0, 3, 20], E, E, E])
    assert pairs(p, 3) == {(3, 6), (20, 23)}


def test_003_only_a_six_brings_a_piece_onto_the_start_field() -> None:
    p = pos([[-1, -1, -1, 20], E, E, E])
    assert pairs(p, 5) == {(20, 25)}
    assert p.why_not(maedn.Move(0, -1, 0), 5).key == "maedn.six_to_leave_house"
    assert pairs(p, 6) == {(-1, 0)}


def test_003_a_six_gives_another_roll_and_again_after_another_six() -> None:
    p = pos([[-1, -1, -1, 20], E, E, E])
    first = p.apply(maedn.Move(0, -1, 0), 6)
    second = first.apply(maedn.Move(0, 0, 6), 6)
    assert (first.turn, second.turn) == (0, 0)
    assert second.apply(maedn.Move(0, 6, 7), 1).turn == 1


def test_003_a_six_must_bring_a_new_piece_out_while_the_homebase_is_not_empty() -> None:
    p = pos([[-1, -1, 12, 20], E, E, E])
    assert pairs(p, 6) == {(-1, 0)}
    assert p.why_not(maedn.Move(0, 12, 18), 6).key == "maedn.six_must_bring_out"


def test_003_own_piece_on_the_start_field_moves_on_first_with_the_six() -> None:
    p = pos([[-1, -1, 0, 20], E, E, E])
    assert pairs(p, 6) == {(0, 6)}


def test_003_an_opponent_on_the_start_field_is_captured() -> None:
    p = pos([E, [-1, -1, -1, 30], E, E])
    (move,) = p.legal_plays(6)
    assert move.captured == 1
    assert p.apply(move, 6).pieces[1] == (-1, -1, -1, -1)


def test_003_six_with_an_empty_homebase_moves_a_track_piece_and_rolls_again() -> None:
    p = pos([[5, 15, 40, 41], E, E, E])
    assert pairs(p, 6) == {(5, 11), (15, 21)}
    assert p.apply(maedn.Move(0, 5, 11), 6).turn == 0


def test_003_last_piece_home_with_a_six_needs_no_further_roll() -> None:
    p = pos([[37, 40, 41, 42], [-1, -1, -1, 5], E, E])
    after = p.apply(maedn.Move(0, 37, 43), 6)
    assert after.finished == (0,)
    assert after.is_over()


def test_003_after_the_whole_track_the_piece_moves_into_its_goal() -> None:
    assert pairs(pos([[-1, -1, -1, 39], E, E, E]), 1) == {(39, 40)}


def test_003_goal_fields_are_counted_singly_and_may_be_jumped() -> None:
    p = pos([[-1, -1, 40, 41], E, E, E])
    assert pairs(p, 2) == {(40, 42), (41, 43)}
    assert pairs(p, 3) == {(40, 43)}


def test_003_other_colours_goal_fields_may_not_be_entered() -> None:
    # Seat 1 passes seat 0's goal entry (between track fields 39 and 0) and stays on the track.
    p = pos([E, [-1, -1, -1, 28], E, E], turn=1)
    assert pairs(p, 4) == {(28, 32)}
    with pytest.raises(InvalidPosition, match="another colour's goal"):
        pos([E, [-1, -1, -1, 44], E, E])


def test_003_the_game_ends_at_the_first_team_with_all_pieces_home() -> None:
    p = pos([[39, 41, 42, 43], [-1, -1, -1, 5], E, E])
    after = p.apply(maedn.Move(0, 39, 40), 1)
    assert after.is_over()
    assert after.legal_plays(3) == []
    assert after.why_not(maedn.Move(1, 5, 8), 3).key == "maedn.game_over"


def test_003_no_three_tries() -> None:
    p = pos([E, E, E, E])
    assert p.tries_allowed() == 1
    assert p.apply(None, 3).turn == 1
