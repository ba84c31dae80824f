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
from controller.rules import backgammon_openspiel as ospiel
from controller.rules import gnubg_id

pyspiel = pytest.importorskip("pyspiel", reason="needs OpenSpiel (PyPI open-spiel)")

POSITIONS = 2000


def _ids(sides: set, mover: int) -> list[str]:
    """gnubg Position IDs of results, seen from the side that moved."""
    return sorted(gnubg_id.encode_position(s[1 - mover], s[mover]) for s in sides)


def _corners(pos: bg.Position, dice: tuple[int, int]) -> list[str]:
    """Which rule corners this case exercises (to show the sample reaches them)."""
    plays = pos.legal_plays(dice)
    tags = []
    if plays == [bg.Play(())]:
        tags.append("no move")
    elif dice[0] != dice[1] and all(len(p.moves) == 1 for p in plays):
        tags.append("only one die playable")
        low, high = sorted(dice)
        empty = [bg.Play(())]
        if pos.legal_plays((low, low)) != empty and pos.legal_plays((high, high)) != empty:
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
    states = ospiel.random_decision_states(game, POSITIONS, random.Random(20261130))
    corners: collections.Counter[str] = collections.Counter()
    first_disagreement = None
    for state in states:
        pos = ospiel.position(state)
        dice = ospiel.dice(state)
        ours = {after.sides for after in pos.legal_results(dice)}
        theirs = ospiel.results(state)
        corners.update(_corners(pos, dice))
        if ours != theirs and first_disagreement is None:
            first_disagreement = (
                f"{pos.position_id()} dice {dice}: only ours {_ids(ours - theirs, pos.turn)}, "
                f"only OpenSpiel {_ids(theirs - ours, pos.turn)}"
            )
    print(f"compared {len(states)} positions; rule corners reached: {dict(corners)}")
    assert first_disagreement is None, f"first disagreement: {first_disagreement}"
    for corner in (
        "only one die playable",
        "either die alone, the higher decides",
        "double partly playable",
        "no move",
        "on the bar",
        "bear-off with a higher die",
    ):
        assert corners[corner] > 0, f"the sample never reached: {corner}"
