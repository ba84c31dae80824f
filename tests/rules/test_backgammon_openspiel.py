"""Differential test: our `standard` engine against OpenSpiel's `backgammon` (pyspiel).

Positions come from random OpenSpiel games, so they are reachable and OpenSpiel's own dice are
used. OpenSpiel plays a double as two actions of two checker moves each; both halves are
applied before the resulting board is read. The first disagreement is printed as a gnubg
Position ID (side on roll) and the dice, ready to paste into gnubg.
"""

from __future__ import annotations

import collections
import random

import pytest

from controller.rules import backgammon as bg
from controller.rules import gnubg_id

pyspiel = pytest.importorskip("pyspiel", reason="needs OpenSpiel (PyPI open-spiel)")

POSITIONS = 2000


def _sides(state) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Our per-seat counts from OpenSpiel: player 0 ("x") runs from board index 0 to 23,
    player 1 ("o") from 23 to 0; the observation tensor holds bar and borne-off counts at
    192/193 (x) and 195/196 (o)."""
    obs = state.observation_tensor(0)
    x = [state.board(0, 23 - k) for k in range(24)] + [int(obs[192])]
    o = [state.board(1, k) for k in range(24)] + [int(obs[195])]
    assert sum(x) + int(obs[193]) == 15 and sum(o) + int(obs[196]) == 15
    return tuple(x), tuple(o)


def _dice(state) -> tuple[int, int]:
    obs = state.observation_tensor(0)
    return int(obs[198]), int(obs[199])


def _openspiel_results(state) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    player = state.current_player()
    out = set()
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        second_half = (
            not child.is_chance_node()
            and not child.is_terminal()
            and child.current_player() == player
        )
        if second_half:
            for action2 in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(action2)
                out.add(_sides(grandchild))
        else:
            out.add(_sides(child))
    return out


def _ids(sides: set, mover: int) -> list[str]:
    """gnubg Position IDs of results, seen from the side that moved."""
    return sorted(gnubg_id.encode_position(s[1 - mover], s[mover]) for s in sides)


def _corner(pos: bg.Position, dice: tuple[int, int]) -> list[str]:
    """Which rule corners this case exercises (to show the sample reaches them)."""
    plays = pos.legal_plays(dice)
    tags = []
    if plays == [bg.Play(())]:
        tags.append("no move")
    elif dice[0] != dice[1] and all(len(p.moves) == 1 for p in plays):
        tags.append("only one die playable")
        low, high = sorted(dice)
        if pos.legal_plays((low, low)) != [bg.Play(())] and pos.legal_plays((high, high)) != [
            bg.Play(())
        ]:
            tags.append("either die alone, the higher decides")
    elif dice[0] == dice[1] and all(len(p.moves) < 4 for p in plays):
        tags.append("double partly playable")
    if any(m.dst == 0 and m.src < max(dice) for p in plays for m in p.moves):
        tags.append("bear-off with a higher die")
    if pos.bar[pos.turn]:
        tags.append("on the bar")
    if any(m.hit for p in plays for m in p.moves):
        tags.append("hits")
    return tags


def test_standard_engine_equals_openspiel_on_2000_random_reachable_positions() -> None:
    game = pyspiel.load_game("backgammon")
    rng = random.Random(20261130)
    corners: collections.Counter[str] = collections.Counter()
    compared = 0
    first_disagreement = None
    state = game.new_initial_state()
    while compared < POSITIONS:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        player = state.current_player()
        pos = bg.Position(_sides(state), player)
        dice = _dice(state)
        ours = {after.sides for after in pos.legal_results(dice)}
        theirs = _openspiel_results(state)
        compared += 1
        corners.update(_corner(pos, dice))
        if ours != theirs and first_disagreement is None:
            first_disagreement = (
                f"{pos.position_id()} dice {dice}: only ours {_ids(ours - theirs, player)}, "
                f"only OpenSpiel {_ids(theirs - ours, player)}"
            )
        state.apply_action(rng.choice(state.legal_actions()))
        second_half = not state.is_chance_node() and not state.is_terminal()
        if second_half and state.current_player() == player:  # a double's second half
            state.apply_action(rng.choice(state.legal_actions()))
    print(f"compared {compared} positions; rule corners reached: {dict(corners)}")
    assert first_disagreement is None, f"first disagreement: {first_disagreement}"
    for corner in (
        "only one die playable",
        "either die alone, the higher decides",
        "double partly playable",
        "no move",
        "on the bar",
    ):
        assert corners[corner] > 0, f"the sample never reached: {corner}"
    assert corners["bear-off with a higher die"] > 0
