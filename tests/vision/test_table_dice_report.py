"""`tools/table_dice_report.py`: flat dice read through the table's own calibration and frame
reader on a simulated table's camera mount."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import table_dice_report


def test_every_die_thrown_is_counted_once_and_the_mount_facts_are_given() -> None:
    facts, count = table_dice_report.mount_report("backgammon", 104, throws=3)
    assert sum(count.values()) == 6  # two dice a throw
    assert set(count) <= set(table_dice_report.OUTCOMES)
    assert count["right"] >= 5  # a sharp mount with 16 px dice
    assert facts["height_mm"] == 760 and 15 < facts["die_px"] < 17


def test_the_report_names_a_blurred_mount(capsys) -> None:
    assert table_dice_report.main(["--game", "maedn", "--seeds", "108", "--throws", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[0] == "108" and lines[1].endswith("vision_blurred")
    assert lines[-1].startswith("all")


@pytest.mark.parametrize("text", ["abc", "100-", "-5", "119-100"])
def test_seeds_that_are_no_range_are_refused(text: str) -> None:
    with pytest.raises(SystemExit):
        table_dice_report.main(["--seeds", text])
