"""The Mensch part of the `rules legal --batch` contract: `handle()` directly and through the
real `spieltisch` command in a subprocess."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.rules.maedn_batch import handle
from tests.rules import maedn_strategies as ms

ROOT = Path(__file__).resolve().parents[2]
E = [-1, -1, -1, -1]


def line(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "game": "maedn",
        "variant": "openspiel",
        "players": 2,
        "turn": 0,
        "dice": 3,
        "pieces": [[-1, -1, 5, 20], E],
    }
    base.update(fields)
    return base


def test_handle_lists_sorted_moves_in_the_movers_own_counting() -> None:
    assert handle(line()) == {"moves": [[5, 8], [20, 23]]}
    # Seat 1 of three players starts at track field 10; its own 38 + 4 enters its goal at 42.
    three = line(players=3, turn=1, dice=4, pieces=[E, [-1, -1, 3, 38], E])
    assert handle(three) == {"moves": [[3, 7], [38, 42]]}


def test_handle_brings_a_piece_out_as_minus_one_to_zero() -> None:
    assert handle(line(dice=6)) == {"moves": [[-1, 0]]}


def test_handle_returns_an_empty_list_when_the_turn_passes() -> None:
    assert handle(line(pieces=[[-1, -1, -1, -1], E])) == {"moves": []}


def test_handle_accepts_the_other_variants_in_the_same_shape() -> None:
    start = [[-1, -1, 0, 20], E]
    assert handle(line(variant="hofer", pieces=start)) == {"moves": [[0, 3], [20, 23]]}
    assert handle(line(variant="vegas", pieces=start)) == {"moves": [[0, 3]]}
    assert handle(line(variant="schmidt", pieces=start)) == {"moves": [[0, 3]]}
    forced = line(variant="hofer", pieces=start, options={"start_field_rule": "any_roll"})
    assert handle(forced) == {"moves": [[0, 3]]}


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([1, 2], "JSON object"),
        (line(variant="ludo"), "ludo"),
        (line(game="backgammon"), "maedn"),
        (line(dice=7), "1..6"),
        (line(dice=True), "1..6"),
        (line(dice="3"), "1..6"),
        (line(turn=2), "seat number out of range"),
        (line(players=3), "2 seats of pieces given for 3 players"),
        (line(players="2"), "players"),
        (line(pieces=[[-1, -1, 5, 44], E]), "another colour's goal"),
        (line(pieces=[[-1, -1, 5, 5], E]), "two pieces"),
        (line(pieces=[[-1, -1, -1, 5, 6], E]), "5 pieces"),
        (line(pieces=[[-1, -1, -1, 25], [-1, -1, -1, 5]]), "both have a piece"),
        (line(pieces="nope"), "pieces"),
        (line(options={"three_tries": "maybe"}), "three_tries"),
        (line(options={"no_such": 1}), "no_such"),
        ({"game": "maedn", "variant": "openspiel", "players": 2, "turn": 0}, "missing"),
    ],
)
def test_handle_answers_bad_input_with_an_error_naming_the_problem(
    obj: object, message: str
) -> None:
    answer = handle(obj)
    assert set(answer) == {"error"}
    assert message in answer["error"]


def _spieltisch() -> list[str]:
    script = Path(sys.executable).parent / "spieltisch"
    if script.exists():
        return [str(script)]
    found = shutil.which("spieltisch")
    if found is None:
        pytest.skip("the spieltisch command is not installed (pip install -e .)")
    return [found]


def test_batch_command_answers_each_line_like_handle_and_like_openspiel() -> None:
    if not (ROOT / "controller" / "commands" / "rules.py").exists():
        pytest.skip("controller/commands/rules.py (the rules CLI) is not there yet")
    pytest.importorskip("pyspiel", reason="OpenSpiel (pip package open-spiel) not installed")
    inputs: list[dict[str, object]] = []
    expected: list[list[list[int]]] = []
    for players in (2, 3, 4):
        game = ms.openspiel_game(players)
        for state in ms.openspiel_states(game, random.Random(players), 100):
            seat, die = ms.openspiel_turn_and_die(state)
            inputs.append(
                line(
                    players=players, turn=seat, dice=die, pieces=ms.openspiel_pieces(state, players)
                )
            )
            expected.append(sorted([list(m) for m in ms.openspiel_moves(state)]))
    bad = line(dice=9)
    text = "\n".join(json.dumps(o) for o in [*inputs, bad]) + "\n"
    done = subprocess.run(
        [*_spieltisch(), "rules", "legal", "--batch"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(raw) for raw in done.stdout.splitlines()]
    assert len(answers) == len(inputs) + 1
    assert [a["moves"] for a in answers[:-1]] == expected
    assert answers[:-1] == [handle(o) for o in inputs]
    assert "1..6" in answers[-1]["error"]
