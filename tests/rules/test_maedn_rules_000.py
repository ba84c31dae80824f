"""Text 000 (the table maker's manual, preset `hofer`): one test per rule sentence.

Expected moves are worked out by hand from the rule text; positions are in each seat's own
counting (-1 house, 0 start field, 1..39 track, 40..43 goal). Four players start at track
fields 0/10/20/30.
"""

from __future__ import annotations

from controller.rules import maedn

HOFER = maedn.Options.preset("hofer")
E = [-1, -1, -1, -1]  # a seat with every piece in the house


def pos(pieces: list[list[int]], turn: int = 0, players: int = 4, **changes: object):
    return maedn.Position.from_pieces(pieces, players, turn, HOFER.with_changes(changes))


def pairs(position: maedn.Position, die: int) -> set[tuple[int, int]]:
    return {(m.src, m.dst) for m in position.legal_plays(die)}


def test_000_players_roll_in_turn_and_move_forward_by_the_number_rolled() -> None:
    p = pos([[-1, -1, -1, 5], E, E, E])
    assert pairs(p, 4) == {(5, 9)}
    after = p.apply(p.legal_plays(4)[0], 4)
    assert after.pieces[0] == (-1, -1, -1, 9)
    assert after.turn == 1


def test_000_pieces_of_any_colour_may_be_jumped_and_occupied_fields_count() -> None:
    # Own piece on 6, seat 1's piece on 7 (its own field 37): 5 + 3 lands on 8 anyway.
    p = pos([[-1, -1, 5, 6], [-1, -1, -1, 37], E, E])
    assert (5, 8) in pairs(p, 3)


def test_000_with_several_pieces_on_the_track_the_player_chooses() -> None:
    p = pos([[-1, -1, 5, 20], E, E, E])
    assert pairs(p, 2) == {(5, 7), (20, 22)}


def test_000_landing_on_an_opponent_captures_it_back_to_its_house() -> None:
    # Seat 1's piece on its own field 5 = track field 15; seat 0 moves 12 -> 15.
    p = pos([[-1, -1, -1, 12], [-1, -1, -1, 5], E, E])
    (move,) = p.legal_plays(3)
    assert move.captured == 1
    after = p.apply(move, 3)
    assert after.pieces[0] == (-1, -1, -1, 15)
    assert after.pieces[1] == (-1, -1, -1, -1)


def test_000_only_the_last_point_of_the_roll_captures_not_the_fields_passed() -> None:
    p = pos([[-1, -1, -1, 12], [-1, -1, -1, 4], E, E])  # seat 1 on track field 14
    (move,) = p.legal_plays(3)
    assert move.captured is None
    assert p.apply(move, 3).pieces[1] == (-1, -1, -1, 4)


def test_000_there_is_no_forced_capture() -> None:
    p = pos([[-1, -1, 12, 30], [-1, -1, -1, 5], E, E])
    assert pairs(p, 3) == {(12, 15), (30, 33)}


def test_000_a_six_must_bring_a_piece_out_while_the_house_is_not_empty() -> None:
    p = pos([[-1, -1, -1, 20], E, E, E])
    assert pairs(p, 6) == {(-1, 0)}
    assert p.why_not(maedn.Move(0, 20, 26), 6).key == "maedn.six_must_bring_out"


def test_000_an_opponent_on_the_start_field_is_captured_when_coming_out() -> None:
    p = pos([[-1, -1, -1, -1], [-1, -1, -1, 30], E, E])  # seat 1's 30 = track field 0
    (move,) = p.legal_plays(6)
    assert (move.src, move.dst, move.captured) == (-1, 0, 1)
    assert p.apply(move, 6).pieces[1] == (-1, -1, -1, -1)


def test_000_own_piece_on_start_field_must_move_first_with_the_6() -> None:
    p = pos([[-1, -1, 0, 20], E, E, E])
    assert pairs(p, 6) == {(0, 6)}
    assert p.why_not(maedn.Move(0, 20, 26), 6).key == "maedn.start_field_first_six"


def test_000_own_piece_on_start_field_need_not_move_with_other_rolls() -> None:
    """Decision for `hofer`: the sentence names the 6 only, so a 3 may move any piece."""
    p = pos([[-1, -1, 0, 20], E, E, E])
    assert pairs(p, 3) == {(0, 3), (20, 23)}


def test_000_start_piece_blocked_by_own_piece_lets_another_piece_use_the_6() -> None:
    """Decision: when the start piece cannot move, the 6 goes to another piece."""
    p = pos([[-1, 0, 6, 20], E, E, E])
    assert pairs(p, 6) == {(6, 12), (20, 26)}


def test_000_six_with_an_empty_house_moves_any_piece_and_rolls_again() -> None:
    p = pos([[3, 10, 20, 41], E, E, E])
    assert pairs(p, 6) == {(3, 9), (10, 16), (20, 26)}
    assert p.apply(maedn.Move(0, 20, 26), 6).turn == 0


def test_000_bringing_the_last_piece_home_with_a_six_gives_no_extra_roll() -> None:
    p = pos([[37, 40, 41, 42], E, E, E])
    after = p.apply(maedn.Move(0, 37, 43), 6)
    assert after.finished == (0,)
    assert after.turn == 1


def test_000_a_six_gives_another_roll_and_again_after_another_six() -> None:
    p = pos([[-1, -1, -1, -1], E, E, E])
    first = p.apply(maedn.Move(0, -1, 0), 6)
    assert first.turn == 0
    second = first.apply(maedn.Move(0, 0, 6), 6)  # start field must be cleared with the 6
    assert second.turn == 0
    third = second.apply(second.legal_plays(2)[0], 2)
    assert third.turn == 1


def test_000_after_a_full_round_the_piece_enters_its_own_goal() -> None:
    # 37 + 4: 38, 39, then goal fields 40, 41 (not on around the track).
    p = pos([[-1, -1, -1, 37], E, E, E])
    assert pairs(p, 4) == {(37, 41)}


def test_000_goal_fields_are_counted_one_by_one_with_the_exact_roll() -> None:
    p = pos([[-1, -1, -1, 40], E, E, E])
    assert pairs(p, 3) == {(40, 43)}
    assert pairs(p, 4) == set()
    assert p.why_not(maedn.Move(0, 40, 43), 4).key == "maedn.overshoot"


def test_000_pieces_already_in_the_goal_may_be_jumped() -> None:
    p = pos([[-1, -1, 41, 38], E, E, E])
    assert pairs(p, 4) == {(38, 42)}
    assert pairs(p, 2) == {(38, 40), (41, 43)}


def test_000_three_tries_when_every_piece_is_in_the_house() -> None:
    p = pos([E, E, E, E])
    assert p.tries_allowed() == 3
    once = p.apply(None, 2)
    twice = once.apply(None, 5)
    assert (once.turn, once.tries_used, twice.turn, twice.tries_used) == (0, 1, 0, 2)
    assert twice.apply(None, 1).turn == 1


def test_000_three_tries_also_with_goal_pieces_that_cannot_move_on() -> None:
    p = pos([[-1, -1, 42, 43], E, E, E])
    assert p.tries_allowed() == 3


def test_000_no_three_tries_when_a_goal_piece_can_still_move_on() -> None:
    p = pos([[-1, -1, 40, 43], E, E, E])
    assert p.tries_allowed() == 1
    assert p.apply(None, 4).turn == 1


def test_000_no_three_tries_with_a_piece_on_the_track() -> None:
    p = pos([[-1, -1, -1, 0], E, E, E])
    assert p.tries_allowed() == 1


def test_000_the_first_with_all_four_home_wins_and_the_others_play_on() -> None:
    p = pos([[39, 41, 42, 43], [-1, -1, -1, 5], [-1, -1, -1, 5], E])
    after = p.apply(maedn.Move(0, 39, 40), 1)
    assert after.finished == (0,)
    assert not after.is_over()
    assert after.turn == 1


def test_000_finished_seats_are_skipped_and_the_game_ends_with_one_seat_left() -> None:
    p = maedn.Position.from_pieces(
        [[40, 41, 42, 43], [39, 41, 42, 43], [-1, -1, -1, 5], [-1, -1, -1, 5]],
        4,
        1,
        HOFER,
        finished=(0,),
    )
    second = p.apply(maedn.Move(1, 39, 40), 1)
    assert second.finished == (0, 1)
    assert second.turn == 2
    third = maedn.Position.from_pieces(
        [[40, 41, 42, 43], [40, 41, 42, 43], [-1, -1, -1, 5], [39, 41, 42, 43]],
        4,
        3,
        HOFER,
        finished=(0, 1),
    )
    last = third.apply(maedn.Move(3, 39, 40), 1)
    assert last.finished == (0, 1, 3)
    assert last.is_over()
    assert last.places() == (0, 1, 3, 2)
    assert last.legal_plays(6) == []


def test_000_no_points_only_the_finishing_order_counts() -> None:
    p = pos([[39, 41, 42, 43], E, E, E], players=4)
    after = p.apply(maedn.Move(0, 39, 40), 1)
    assert after.finished == (0,)
