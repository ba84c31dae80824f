"""`spieltisch selftest` in the simulator: mock pins, emulated display board, an image camera."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller import cli
from hardware import selftest
from hardware.pinmap import load_pinmap


def test_selftest_command_in_simulator_passes_every_check(capsys: pytest.CaptureFixture) -> None:
    status = cli.main(["selftest", "--simulate", "--json"])
    out = json.loads(capsys.readouterr().out)
    names = [row["check"] for row in out["results"]]
    assert status == 0 and out["ok"] and out["simulated"]
    assert names[:4] == [f"seat {n} LED" for n in range(1, 5)]
    for expected in ("buzzer", "display", "input undo", "input done seat 4", "input dice tray",
                     "input double", "input take", "input drop", "camera"):
        assert expected in names
    display = next(r for r in out["results"] if r["check"] == "display")
    assert "screen read back" in display["detail"]


def test_selftest_reports_the_button_nobody_pressed_and_still_runs_the_rest() -> None:
    with selftest.simulated_table() as options:
        options["presser"] = selftest.skipping(options["presser"], frozenset({"new game"}))
        report = selftest.run_selftest(
            load_pinmap(), step_s=0.01, button_timeout_s=0.5, lang="en", **options
        )
    failed = [r for r in report.results if not r.ok]
    assert [r.name for r in failed] == ["input new game"]
    assert "GPIO9" in failed[0].detail
    assert not report.ok
    assert "| input new game | FAIL |" in report.table()


def test_selftest_without_display_board_fails_that_row_only(tmp_path) -> None:
    with selftest.simulated_table() as options:
        options["display_port"] = str(tmp_path / "no-board")
        options["screen_reader"] = None
        report = selftest.run_selftest(
            load_pinmap(), step_s=0.01, button_timeout_s=2, sync_timeout_s=1.0, **options
        )
    failed = [r for r in report.results if not r.ok]
    # the doubling cube's buttons are wired to the display board: without it they are silent
    assert [r.name for r in failed] == ["display", "input double", "input take", "input drop"]
    assert "did not answer within 1 s" in failed[0].detail
    assert all("display board input" in r.detail for r in failed[1:])


def test_broken_pin_map_exits_2_naming_the_problem(tmp_path, capsys) -> None:
    pins = tmp_path / "pins.toml"
    default = Path(__file__).resolve().parents[2] / "hardware/pinmap_default.toml"
    text = default.read_text(encoding="utf-8").replace("[buzzer]\n", "[buzzer]\nvolume = 1\n")
    pins.write_text(text, encoding="utf-8")
    assert cli.main(["selftest", "--simulate", "--pins", str(pins)]) == 2
    assert "buzzer.volume" in capsys.readouterr().err
