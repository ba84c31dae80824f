"""`spieltisch simulate`, `spieltisch play` and `spieltisch journal` as real subprocesses."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from controller.journal import Journal
from controller.sim.evening import play_game
from controller.sim.table import Habits

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_simulate_json_counts_flagged_missed_and_wrongly_flagged() -> None:
    proc = _cli("simulate", "--games", "6", "--seed", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["games"] == 6 and report["injected"] > 50
    assert report["flagged"] == report["injected"]
    assert report["missed"] == 0 and report["wrongly_flagged"] == 0


def test_simulate_rejects_a_bad_rate() -> None:
    proc = _cli("simulate", "--illegal-rate", "2")
    assert proc.returncode == 2 and "between 0 and 1" in proc.stderr


def test_play_without_a_terminal_finishes_one_game_of_each(tmp_path: Path) -> None:
    proc = _cli("play", "--speed", "0", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    closing = [line for line in proc.stdout.splitlines() if "game over" in line]
    assert len(closing) == 2
    assert "backgammon" in closing[0] and "maedn" in closing[1]
    assert "\x1b[" not in proc.stdout  # no escape codes into a pipe or log file
    assert "+--------------------+" in proc.stdout  # the display is drawn


def test_play_with_a_camera_configured_runs_the_real_table_until_stopped(tmp_path: Path) -> None:
    """A configured camera means the real table: without that camera it goes on with buttons
    (the display says so) and stops cleanly on SIGTERM, as systemd stops it."""
    config = tmp_path / "config.toml"
    config.write_text(
        '[camera]\nsource = "opencv"\ndevice = 97\n\n[display]\nport = "none"\n',
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "play", "--config", str(config),
         "--data-dir", str(tmp_path / "data"), "--colour", "never"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    watchdog = threading.Timer(60, proc.kill)  # never hang the suite if the line never comes
    watchdog.start()
    try:
        seen = []
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append(line)
            if "Kamera fehlt" in line:
                break
        assert any("Kamera fehlt" in line for line in seen), seen
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()


def test_journal_show_and_export(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Journal.open(data) as journal:
        play_game("backgammon", "standard", 8, habits=Habits(illegal_rate=0.2), journal=journal)
        play_game("maedn", "vegas", 8, players=3, journal=journal)
    shown = _cli("journal", "--data-dir", str(data), "--show")
    assert shown.returncode == 0, shown.stderr
    assert "game 1: backgammon (standard)" in shown.stdout and "over" in shown.stdout
    assert "game 2: maedn (vegas), 3 players" in shown.stdout
    mat = tmp_path / "games.mat"
    assert _cli("journal", "--data-dir", str(data), "--export-mat", str(mat)).returncode == 0
    assert mat.read_text().startswith(" 1 point match")
    again = _cli("journal", "--data-dir", str(data), "--export-mat", str(mat))
    assert again.returncode == 2 and "not overwritten" in again.stderr
    mensch = tmp_path / "mensch.json"
    assert _cli("journal", "--data-dir", str(data), "--export-json", str(mensch)).returncode == 0
    games = json.loads(mensch.read_text())["games"]
    assert len(games) == 1 and games[0]["players"] == 3 and games[0]["turns"]
    log = tmp_path / "events.jsonl"
    assert _cli("journal", "--data-dir", str(data), "--export-log", str(log)).returncode == 0
    replayed = _cli("referee", "--log", str(log), "--json")
    assert len(replayed.stdout.splitlines()) == len(log.read_text().splitlines())


def test_journal_without_a_journal_says_so(tmp_path: Path) -> None:
    proc = _cli("journal", "--data-dir", str(tmp_path), "--show")
    assert proc.returncode == 2 and "no journal" in proc.stderr
