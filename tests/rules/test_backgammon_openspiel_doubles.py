"""OpenSpiel's one departure in form from the written rules: a double is two half-turns.

Rule texts 002 and 004 play a double as one turn of four moves ("viermal"). OpenSpiel's
`backgammon` instead asks the player for two actions of two checker moves each, with the same
player still to move after the first. Our engine keeps the written form (one `Play` of up to
four moves); the differential test applies both halves before comparing (docs/rules-backgammon.md).
"""

from __future__ import annotations

import random

import pytest

from controller.rules import backgammon_openspiel as ospiel

pyspiel = pytest.importorskip("pyspiel", reason="needs OpenSpiel (PyPI open-spiel)")


def _pips(sides: ospiel.Sides, seat: int) -> int:
    counts = sides[seat]
    return sum((point + 1) * n for point, n in enumerate(counts))


def _a_double_in_midgame() -> object:
    """A reachable decision state with a double, both sides' checkers all still on the board."""
    game = pyspiel.load_game("backgammon")
    for state in ospiel.random_decision_states(game, 400, random.Random(7)):
        d1, d2 = ospiel.dice(state)
        sides = ospiel.sides(state)
        on_board = sum(sides[0]) == 15 and sum(sides[1]) == 15
        if d1 == d2 and on_board:
            plays = ospiel.position(state).legal_plays((d1, d2))
            if max(len(p.moves) for p in plays) == 4:
                return state
    raise AssertionError("no fully playable double in 400 random positions")


def test_002_004_a_double_is_four_moves_but_openspiel_asks_for_two_halves() -> None:
    state = _a_double_in_midgame()
    player = state.current_player()
    die = ospiel.dice(state)[0]
    before = _pips(ospiel.sides(state), player)

    first = state.clone()
    first.apply_action(first.legal_actions()[0])
    # The same player is asked again with the same dice: the double is not over.
    assert first.current_player() == player and not first.is_chance_node()
    assert ospiel.dice(first) == (die, die)
    assert before - _pips(ospiel.sides(first), player) == 2 * die

    # Our engine plays the whole double at once: four moves of `die` each.
    plays = ospiel.position(state).legal_plays((die, die))
    assert all(len(p.moves) == 4 for p in plays)
    assert all(m.src - m.dst == die for p in plays for m in p.moves)
    # ... and its results are exactly the boards after both OpenSpiel halves.
    position = ospiel.position(state)
    ours = {tuple(map(tuple, position.apply(p).with_turn(player).sides)) for p in plays}
    assert ours == ospiel.results(state)
