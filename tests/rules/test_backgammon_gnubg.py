"""GNU Backgammon (PyPI gnubg) as the oracle: Position IDs, Match IDs and legal moves."""

from __future__ import annotations

import pytest

from controller.rules import backgammon as bg
from controller.rules import gnubg_id
from controller.rules.backgammon_random import reachable_positions
from controller.rules.dice import ALL_ROLLS
from controller.rules.errors import InvalidPositionId
from tests.rules.bg_strategies import position

gnubg = pytest.importorskip("gnubg", reason="needs GNU Backgammon's Python module (PyPI gnubg)")


def _gnubg_board(pos: bg.Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board: (side not on roll, side on roll), each from its own ace point to bar."""
    return pos.sides[1 - pos.turn], pos.sides[pos.turn]


def test_known_ids_from_the_brief() -> None:
    assert bg.Position.initial().position_id() == "4HPwATDgc/ABMA"
    # side on roll: 14 on its 6-point and 1 on the bar; the other side: 15 on its 6-point
    pos = position({6: 14, "bar": 1}, {19: 15})
    assert pos.position_id() == "4P8PAADg/wcAQA"


def test_position_ids_equal_gnubgs_on_random_reachable_positions() -> None:
    for pos in reachable_positions(300, seed=11):
        board = _gnubg_board(pos)
        assert pos.position_id() == gnubg.position_id(board)
        assert tuple(map(tuple, gnubg.position_from_id(pos.position_id()))) == board


def test_bad_position_ids_name_the_problem() -> None:
    with pytest.raises(InvalidPositionId, match="14 characters"):
        bg.Position.from_position_id("4HPwATDgc")
    with pytest.raises(InvalidPositionId, match="base64"):
        bg.Position.from_position_id("4HPwATDgc/AB!A")
    with pytest.raises(InvalidPositionId, match="two sides"):
        bg.Position.from_position_id("//////////////")
    sixteen = gnubg_id.encode_position((16,) + (0,) * 24, (0,) * 25)
    with pytest.raises(InvalidPositionId, match="16 checkers"):
        bg.Position.from_position_id(sixteen)
    clash = gnubg_id.encode_position((1,) + (0,) * 24, (0,) * 23 + (1, 0))
    with pytest.raises(InvalidPositionId, match="both colours"):
        bg.Position.from_position_id(clash)


def test_match_ids_equal_gnubgs() -> None:
    cases = [
        # cube value, owner (-1 centred), player on roll, length, score, crawford, dice
        (1, -1, 0, 7, (0, 0), 0, (3, 1)),
        (2, 0, 1, 7, (3, 2), 0, (5, 3)),
        (4, 1, 0, 11, (9, 10), 0, (6, 6)),
        (1, -1, 1, 5, (4, 2), 1, (2, 1)),
        (8, 0, 0, 25, (17, 3), 0, (4, 2)),
    ]
    for cube, owner, turn, length, score, crawford, dice in cases:
        expected = gnubg.match_id(
            gnubg.cubeinfo(cube, owner, turn, length, score, crawford, 0),
            gnubg.posinfo(turn, 0, 0, gnubg_id.GAME_PLAYING, dice),
        )
        state = gnubg_id.MatchState(
            cube_value=cube,
            cube_owner=gnubg_id.CUBE_CENTERED if owner == -1 else owner,
            dice_owner=turn,
            crawford=bool(crawford),
            turn=turn,
            dice=dice,
            match_length=length,
            score=score,
        )
        assert gnubg_id.encode_match(state) == expected
        assert gnubg_id.decode_match(expected) == state


def _gnubg_result_ids(pos: bg.Position, dice: tuple[int, int]) -> tuple[set[str], int, bool]:
    """IDs after each of gnubg's legal moves (seen from the mover), their count, and whether
    gnubg's move tuples were cut short: its Python module ends a move tuple at the first
    move to "off" (0), so moves with bear-offs can only be counted, not replayed."""
    board = _gnubg_board(pos)
    moves = gnubg.find_best_moves(board, gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 0, 0, 0), dice)
    ids = set()
    truncated = False
    for entry in moves:
        steps = entry["move"]
        theirs, mine = list(board[0]), list(board[1])
        truncated |= len(steps) % 2 == 1
        for k in range(0, len(steps) - 1, 2):
            src, dst = steps[k], steps[k + 1]
            mine[src - 1] -= 1
            if dst == 0:
                truncated = True
                continue
            mine[dst - 1] += 1
            if theirs[24 - dst] == 1:
                theirs[24 - dst] = 0
                theirs[24] += 1
        ids.add(gnubg_id.encode_position(tuple(theirs), tuple(mine)))
    return ids, len(moves), truncated


def test_legal_results_equal_gnubgs_move_generator() -> None:
    compared = replayed = 0
    for pos in reachable_positions(300, seed=12):
        for dice in ALL_ROLLS:
            ours = set(pos.legal_result_ids(dice))
            theirs, count, truncated = _gnubg_result_ids(pos, dice)
            where = f"{pos.position_id()} dice {dice}"
            if count == 0:
                assert ours == {pos.position_id()}, where
            elif truncated:
                assert len(ours) == count, where
            else:
                assert ours == theirs, where
                replayed += 1
            compared += 1
    assert replayed > compared // 2
