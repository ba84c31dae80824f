"""`spieltisch referee --log FILE --json` in a real subprocess, on the recorded table log.

The expectations are read off the rule texts by hand (3-1 played 8/5 6/5 is the textbook
opening; a checker moved 3 points with 6-4 is illegal; a 6 brings a Mensch piece out and earns
another roll), not computed by the referee.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "tests" / "data" / "table_log_opening.jsonl"


def _replay(path: Path, *extra: str) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "referee", "--log", str(path), "--json", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.fixture(scope="module")
def replayed() -> list[dict]:
    return _replay(LOG)


def _types(out: dict) -> list[str]:
    return [s["type"] for s in out["signals"]]


def test_one_json_line_per_input_line(replayed: list[dict]) -> None:
    lines = [line for line in LOG.read_text().splitlines() if line.strip()]
    assert len(replayed) == len(lines)
    for out in replayed:
        assert set(out) in ({"signals"}, {"error"})


def test_new_game_white_rolls_first(replayed: list[dict]) -> None:
    assert replayed[0]["signals"] == [{"type": "turn", "seat": 0, "expect": "roll"}]


def test_dice_accepted_for_white(replayed: list[dict]) -> None:
    assert replayed[1]["signals"][0] == {"type": "dice_accepted", "seat": 0, "values": [3, 1]}


def test_intermediate_boards_are_not_judged(replayed: list[dict]) -> None:
    assert replayed[2]["signals"] == [] and replayed[3]["signals"] == []


def test_done_accepts_textbook_opening_3_1(replayed: list[dict]) -> None:
    accepted, turn = replayed[4]["signals"]
    assert (accepted["type"], accepted["seat"]) == ("play_accepted", 0)
    assert sorted(accepted["notation"].split()) == ["6/5", "8/5"]
    assert turn == {"type": "turn", "seat": 1, "expect": "roll"}


def test_illegal_distance_names_rule_in_both_languages_and_fields(replayed: list[dict]) -> None:
    illegal = replayed[7]["signals"][0]
    assert illegal["type"] == "illegal" and illegal["seat"] == 1
    assert illegal["reason_de"] and illegal["reason_en"]
    assert illegal["reason_de"] != illegal["reason_en"]
    assert sorted(illegal["fields"]) == ["12", "15"]
    assert sorted(illegal["restore"]) == ["12=-5", "15=0"]
    assert replayed[7]["signals"][1] == {"type": "turn", "seat": 1, "expect": "correct_board"}


def test_board_put_back_lets_play_go_on(replayed: list[dict]) -> None:
    assert replayed[8]["signals"] == [{"type": "turn", "seat": 1, "expect": "move"}]


def test_black_24_14_accepted_in_black_numbering(replayed: list[dict]) -> None:
    accepted = replayed[10]["signals"][0]
    assert accepted["type"] == "play_accepted" and accepted["seat"] == 1
    assert accepted["notation"] in (
        "24/14", "24/18/14", "24/18 18/14", "24/20/14", "24/20 20/14", "18/14 24/18", "20/14 24/20"
    )


def test_cocked_die_rerolls(replayed: list[dict]) -> None:
    assert _types(replayed[11]) == ["reroll"]
    assert replayed[11]["signals"][0]["seat"] == 0


def test_done_without_moving_when_a_move_exists_is_illegal(replayed: list[dict]) -> None:
    assert _types(replayed[13]) == ["illegal", "turn"]


def test_next_roll_judges_the_open_play(replayed: list[dict]) -> None:
    assert _types(replayed[15]) == ["play_accepted", "turn", "dice_accepted", "turn"]
    assert replayed[15]["signals"][0]["seat"] == 0
    assert replayed[15]["signals"][2] == {"type": "dice_accepted", "seat": 1, "values": [6, 1]}


def test_unreadable_line_gets_error_and_replay_goes_on(replayed: list[dict]) -> None:
    assert "error" in replayed[16] and "line 17" in replayed[16]["error"]
    assert replayed[17]["signals"] == [{"type": "turn", "seat": 0, "expect": "roll"}]


def test_maedn_six_brings_piece_out_and_rolls_again(replayed: list[dict]) -> None:
    assert _types(replayed[20]) == ["play_accepted", "extra_roll", "turn"]
    assert replayed[20]["signals"][2] == {"type": "turn", "seat": 0, "expect": "roll_again"}
    assert replayed[23]["signals"][-1] == {"type": "turn", "seat": 1, "expect": "roll"}


def test_maedn_hofer_three_tries_with_all_pieces_home(replayed: list[dict]) -> None:
    assert _types(replayed[24]) == ["dice_accepted", "three_tries", "turn"]
    assert replayed[24]["signals"][1]["attempt"] == 2


def test_must_correct_keeps_illegal_play_from_standing(tmp_path: Path) -> None:
    start = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]
    wrong = list(start)
    wrong[7], wrong[3] = 2, 1  # 8/4 with 3-1 as one checker is legal; 8/3 is not
    wrong[3], wrong[2] = 0, 1
    lines = [
        {"type": "new_game", "game": "backgammon", "variant": "standard"},
        {"type": "dice", "values": [3, 1]},
        {"type": "board", "points": wrong, "bar": {"white": 0, "black": 0},
         "off": {"white": 0, "black": 0}},
        {"type": "dice", "values": [5, 2]},
    ]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines))
    standing = _replay(log)
    assert "illegal" in _types(standing[3]) and "dice_accepted" in _types(standing[3])
    strict = _replay(log, "--must-correct")
    assert "illegal" in _types(strict[3]) and "dice_accepted" not in _types(strict[3])


def test_text_mode_reads_standard_input_and_speaks_the_chosen_language(
    replayed: list[dict],
) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "referee", "--log", "-", "--lang", "en"],
        cwd=ROOT,
        input=LOG.read_text(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    # the log holds an unreadable line: reported, counted, and the replay goes on (as --json)
    assert proc.returncode == 0
    assert "1 of 25 lines could not be read or applied" in proc.stderr
    assert "illegal: seat=1" in proc.stdout
    illegal = replayed[7]["signals"][0]
    assert illegal["reason_en"] in proc.stdout and illegal["reason_de"] not in proc.stdout
    assert "line 17: not JSON" in proc.stdout


def test_missing_log_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "referee", "--log", str(missing), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and str(missing) in proc.stderr
