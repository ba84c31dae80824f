"""Differential test: preset `openspiel` against OpenSpiel's own `maedn` on random positions.

Positions are reached by random play inside OpenSpiel, converted to our counting, and both the
set of legal moves and the result of every move (pieces and who rolls next) must agree. The
first disagreement is printed as a batch-input line and as Python that rebuilds it in OpenSpiel.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from controller.rules import maedn
from tests.rules import maedn_strategies as ms

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pip package open-spiel) not installed")

OPENSPIEL = maedn.Options.preset("openspiel")
STATES_PER_GAME = 2000


def _our_position(state: object, players: int, opposite: bool) -> tuple[maedn.Position, int]:
    seat, die = ms.openspiel_turn_and_die(state)
    pieces = ms.openspiel_pieces(state, players, opposite)
    return maedn.Position.from_pieces(pieces, players, seat, OPENSPIEL, opposite=opposite), die


def _disagreement(
    state: object, pos: maedn.Position, die: int, what: str, players: int, opposite: bool
) -> str:
    return (
        f"{what}\nbatch input: {json.dumps(pos.to_json(die, 'openspiel'))}\n"
        f"OpenSpiel:\n{ms.openspiel_paste(state, players, opposite)}\n{state}"
    )


def _compare(players: int, opposite: bool, count: int, seed: int) -> int:
    """Compare on `count` states; returns how many states had a capture (so the test can check
    the sample really exercised captures)."""
    game = ms.openspiel_game(players, opposite)
    states = ms.openspiel_states(game, random.Random(seed), count)
    captures = 0
    for state in states:
        pos, die = _our_position(state, players, opposite)
        ours = pos.legal_plays(die)
        theirs = ms.openspiel_moves(state)
        assert {(m.src, m.dst) for m in ours} == theirs, _disagreement(
            state,
            pos,
            die,
            f"legal moves differ: ours {ours}, OpenSpiel {sorted(theirs)}",
            players,
            opposite,
        )
        for move in ours or [None]:
            captures += move is not None and move.captured is not None
            child = state.clone()
            child.apply_action(ms.openspiel_action(move))
            nxt = pos.apply(move, die)
            assert [list(p) for p in nxt.pieces] == ms.openspiel_pieces(child, players, opposite), (
                _disagreement(state, pos, die, f"result of {move} differs", players, opposite)
            )
            assert nxt.is_over() == child.is_terminal(), _disagreement(
                state, pos, die, f"game end after {move} differs", players, opposite
            )
            if not child.is_terminal():
                # OpenSpiel decides the next player when the die is rolled.
                expected = pos.turn if die == 6 else (pos.turn + 1) % players
                assert nxt.turn == expected, _disagreement(
                    state, pos, die, f"next seat after {move} differs", players, opposite
                )
    return captures


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_preset_agrees_with_openspiel_maedn(players: int) -> None:
    captures = _compare(players, True, STATES_PER_GAME, seed=players)
    assert captures > 0, "the random sample never captured; the comparison is too weak"


def test_openspiel_two_players_side_by_side_agrees() -> None:
    captures = _compare(2, False, 500, seed=7)
    assert captures > 0


def _find_state(players: int, wanted: object) -> tuple[object, maedn.Position, int]:
    """The first random OpenSpiel decision state whose converted position satisfies `wanted`."""
    game = ms.openspiel_game(players)
    for state in itertools.islice(ms.iter_openspiel_states(game, random.Random(11)), 20000):
        pos, die = _our_position(state, players, True)
        if wanted(pos, die):
            return state, pos, die
    raise AssertionError("no such state in 20000 random OpenSpiel states")


def test_openspiel_deviation_extra_roll_after_an_unused_six() -> None:
    """OpenSpiel gives another roll after a 6 even when it could not be used; texts 000 and 003
    grant it "nach seinem Zug" (after the move), so `hofer` passes the turn on."""
    state, pos, die = _find_state(2, lambda p, d: d == 6 and not p.legal_plays(d))
    child = state.clone()
    child.apply_action(0)
    child.apply_action(2)  # the next roll, a 3
    assert child.current_player() == pos.turn
    assert pos.apply(None, die).turn == pos.turn
    hofer = maedn.Position.from_pieces(pos.pieces, 2, pos.turn, maedn.Options.preset("hofer"))
    assert hofer.tries_allowed() == 1, "three tries would hide the difference"
    assert hofer.apply(None, die).turn == 1 - pos.turn


def test_openspiel_deviation_start_field_cleared_with_any_roll() -> None:
    """OpenSpiel makes an own piece on the start field move first with any roll (like text 003);
    text 000 demands it only with the 6, so `hofer` lets another piece move on a 3."""

    def wanted(p: maedn.Position, d: int) -> bool:
        mine = p.pieces[p.turn]
        return d != 6 and -1 in mine and 0 in mine and any(0 < x < 40 for x in mine)

    state, pos, die = _find_state(4, wanted)
    theirs = ms.openspiel_moves(state)
    assert theirs == {(0, die)}
    hofer = maedn.Position.from_pieces(pos.pieces, 4, pos.turn, maedn.Options.preset("hofer"))
    assert {(m.src, m.dst) for m in hofer.legal_plays(die)} > theirs


def test_openspiel_deviation_game_ends_at_first_winner() -> None:
    """OpenSpiel stops at the first seat with all pieces home (like text 003); text 000 plays on
    for the places, so the same position is not over under `hofer`."""
    state, pos, die = _find_state(
        3,
        lambda p, d: any(
            m.src < 40 <= m.dst and sum(x >= 40 for x in p.pieces[p.turn]) == 3
            for m in p.legal_plays(d)
        ),
    )
    move = next(m for m in pos.legal_plays(die) if m.src < 40 <= m.dst)
    child = state.clone()
    child.apply_action(ms.openspiel_action(move))
    assert child.is_terminal()
    hofer = maedn.Position.from_pieces(pos.pieces, 3, pos.turn, maedn.Options.preset("hofer"))
    after = hofer.apply(move, die)
    assert after.finished == (pos.turn,)
    assert not after.is_over()
