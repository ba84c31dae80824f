"""Reading OpenSpiel's `backgammon` states as our positions, for the differential test and the
benchmark (pyspiel is a test dependency: callers import it and pass its states in).

OpenSpiel's player 0 ("x") runs from board index 0 to 23, player 1 ("o") from 23 to 0; the
observation tensor holds bar and borne-off counts at 192/193 (x) and 195/196 (o) and the dice
at 198/199. A double is two actions of two checker moves each.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from controller.rules.backgammon import Position
from controller.rules.backgammon_options import STANDARD, Options

log = logging.getLogger(__name__)

Sides = tuple[tuple[int, ...], tuple[int, ...]]


def sides(state: Any) -> Sides:
    """Per-seat counts (own ace point .. 24-point, bar); seat = OpenSpiel player."""
    obs = state.observation_tensor(0)
    x = [state.board(0, 23 - k) for k in range(24)] + [int(obs[192])]
    o = [state.board(1, k) for k in range(24)] + [int(obs[195])]
    if sum(x) + int(obs[193]) != 15 or sum(o) + int(obs[196]) != 15:
        raise ValueError(f"OpenSpiel state does not hold 15 checkers a side: {x}, {o}")
    return tuple(x), tuple(o)


def dice(state: Any) -> tuple[int, int]:
    """The two dice of a decision state."""
    obs = state.observation_tensor(0)
    return int(obs[198]), int(obs[199])


def position(state: Any, options: Options = STANDARD) -> Position:
    """Our position for an OpenSpiel decision state (the player to move is on roll)."""
    return Position(sides(state), state.current_player(), options)


def _second_half(child: Any, player: int) -> bool:
    return (
        not child.is_chance_node() and not child.is_terminal() and child.current_player() == player
    )


def results(state: Any) -> set[Sides]:
    """Every board OpenSpiel's legal actions lead to (both halves of a double applied)."""
    player = state.current_player()
    out: set[Sides] = set()
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if _second_half(child, player):
            for action2 in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(action2)
                out.add(sides(grandchild))
        else:
            out.add(sides(child))
    return out


def play_random_turn(state: Any, rng: random.Random) -> None:
    """Apply a random legal action (and a random second half after a double)."""
    player = state.current_player()
    state.apply_action(rng.choice(state.legal_actions()))
    if _second_half(state, player):
        state.apply_action(rng.choice(state.legal_actions()))


def random_decision_states(game: Any, count: int, rng: random.Random) -> list[Any]:
    """`count` decision states (dice rolled, a player to move) from random games."""
    out: list[Any] = []
    state = game.new_initial_state()
    while len(out) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            out.append(state.clone())
            play_random_turn(state, rng)
    return out


def random_chance_states(game: Any, count: int, rng: random.Random) -> list[Any]:
    """`count` states just before a roll (not the opening roll) from random games."""
    out: list[Any] = []
    state = game.new_initial_state()
    while len(out) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            if len(state.history()) > 0:
                out.append(state.clone())
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            play_random_turn(state, rng)
    return out


def states_for_every_roll(chance_state: Any) -> dict[tuple[int, int], Any]:
    """One decision state per distinct roll (21) from a state just before a roll."""
    out: dict[tuple[int, int], Any] = {}
    for outcome, _ in chance_state.chance_outcomes():
        child = chance_state.clone()
        child.apply_action(outcome)
        roll = tuple(sorted(dice(child)))
        if roll not in out and not child.is_terminal() and not child.is_chance_node():
            out[roll] = child
    return out
