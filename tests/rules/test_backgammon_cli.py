"""`spieltisch rules legal --batch` through a real subprocess: the contract outside checks use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli import spieltisch

ROOT = Path(__file__).resolve().parents[2]
OPENING = "4HPwATDgc/ABMA"


def _run(lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return spieltisch("rules", *args, stdin="".join(line + "\n" for line in lines))


def _bg(position: str, dice: list[int], variant: str = "standard") -> str:
    return json.dumps(
        {"game": "backgammon", "variant": variant, "position": position, "dice": dice}
    )


def test_batch_answers_one_line_per_input_line_in_order_and_goes_on_after_errors() -> None:
    lines = [
        _bg(OPENING, [3, 1]),
        "this is not json",
        _bg(OPENING, [7, 1]),
        json.dumps({"game": "chess"}),
        _bg("4HPwATDgc", [3, 1]),
        _bg(OPENING, [6, 6], "nonsense"),
        "[1, 2]",
        _bg(OPENING, [6, 5]),
    ]
    done = _run(lines, "legal", "--batch")
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(lines)
    assert "results" in answers[0] and "results" in answers[-1]
    for bad in answers[1:7]:
        assert set(bad) == {"error"} and bad["error"]
    assert "7" in answers[2]["error"]
    assert "chess" in answers[3]["error"]
    assert "nonsense" in answers[5]["error"]


def test_batch_results_are_sorted_unique_ids_seen_from_the_mover() -> None:
    gnubg = pytest.importorskip("gnubg", reason="needs PyPI gnubg as the oracle")
    done = _run([_bg(OPENING, [3, 1])], "legal", "--batch")
    results = json.loads(done.stdout)["results"]
    assert results == sorted(set(results))
    # 3-1 from the opening: gnubg lists 16 distinct plays; 8/5 6/5 among them
    board = gnubg.position_from_id(OPENING)
    moves = gnubg.find_best_moves(board, gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 0, 0, 0), (3, 1))
    assert len(results) == len(moves)
    mine = list(board[1])
    mine[7] -= 1
    mine[5] -= 1
    mine[4] += 2
    assert gnubg.position_id((board[0], tuple(mine))) in results


def test_batch_no_move_possible_answers_the_unchanged_position() -> None:
    closed = "4P8PAADg/wcAQA"  # on the bar; a 6 enters on the opponent's 6-point: 15 there
    done = _run([_bg(closed, [6, 6])], "legal", "--batch")
    assert json.loads(done.stdout) == {"results": [closed]}


def test_batch_hofer_variant_is_read() -> None:
    gnubg = pytest.importorskip("gnubg", reason="needs PyPI gnubg to write the IDs")
    # one checker on the 24-point (14 on the ace point), the opponent holds our 22-point
    mine = (14,) + (0,) * 22 + (1, 0)
    theirs = (0,) * 2 + (2,) + (0,) * 22
    start = gnubg.position_id((theirs, mine))
    moved = gnubg.position_id((theirs, (14,) + (0,) * 15 + (1,) + (0,) * 8))  # 24/17
    done = _run([_bg(start, [2, 5], "hofer"), _bg(start, [2, 5])], "legal", "--batch")
    hofer, standard = (json.loads(line)["results"] for line in done.stdout.splitlines())
    assert hofer == [start]  # 001: the lower number is blocked, the whole roll is lost
    assert standard == [moved]


def test_batch_maedn_lines_go_to_the_maedn_engine() -> None:
    done = _run([json.dumps({"game": "maedn"})], "legal", "--batch")
    answer = json.loads(done.stdout)
    assert done.returncode == 0
    assert isinstance(answer, dict) and answer


def test_rules_id_and_plays_print_for_people() -> None:
    shown = _run([], "id", OPENING)
    assert shown.returncode == 0 and "White on roll" in shown.stdout
    plays = _run([], "plays", OPENING, "6", "5")
    assert plays.returncode == 0 and "24/18 18/13" in plays.stdout
    bad = _run([], "id", "nonsense")
    assert bad.returncode == 2 and "14 characters" in bad.stderr


def test_batch_flushes_each_answer_before_the_next_line_arrives() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "rules", "legal", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for dice in ([3, 1], [6, 6]):
            proc.stdin.write(_bg(OPENING, dice) + "\n")
            proc.stdin.flush()
            assert "results" in json.loads(proc.stdout.readline())
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_rules_judge_says_legal_or_why_not_in_both_languages() -> None:
    gnubg = pytest.importorskip("gnubg", reason="needs PyPI gnubg to write the IDs")
    board = gnubg.position_from_id(OPENING)
    mine = list(board[1])
    mine[23] -= 1  # 24/21: only the 3 of a 3-1 played
    mine[20] += 1
    half = gnubg.position_id((board[0], tuple(mine)))
    mine[23] -= 1  # and 24/23 for the 1
    mine[22] += 1
    whole = gnubg.position_id((board[0], tuple(mine)))
    legal = _run([], "judge", OPENING, whole, "3", "1")
    assert legal.returncode == 0 and legal.stdout.startswith("legal:")
    illegal = _run([], "judge", OPENING, half, "3", "1")
    assert illegal.returncode == 1
    assert "Beide Würfelzahlen" in illegal.stdout and "Both numbers" in illegal.stdout
    assert "nearest legal" in illegal.stdout
