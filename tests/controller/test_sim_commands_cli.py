"""`spieltisch simulate`, `spieltisch play` and `spieltisch journal` as real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from controller.journal import Journal
from controller.sim.evening import play_game
from controller.sim.table import Habits
from tests.cli import spieltisch

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return spieltisch(*args, env=env, timeout=timeout)


def _children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (from /proc: no extra package)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start_play(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "play", "--colour", "never", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )


def _wait_for_line(proc: subprocess.Popen[str], text: str) -> list[str]:
    seen: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line)
        if text in line:
            return seen
    raise AssertionError(f"{text!r} never shown; last lines: {seen[-5:]}")


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


def test_play_runs_the_simulated_table_through_vision_by_default() -> None:
    """The README's `make run`: rendered frames, real vision, referee, mock-pin LEDs and the
    display firmware on a pseudo-terminal; one backgammon game to its end."""
    proc = _cli("play", "--game", "backgammon", "--seed", "3", "--colour", "never", timeout=400)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert "games 1: finished 1, stuck 0" in lines
    judged = next(line for line in lines if line.startswith("illegal plays injected"))
    injected = int(judged.split()[3].rstrip(":"))
    assert injected > 0
    assert judged == (f"illegal plays injected {injected}: flagged {injected}, missed 0; "
                      "legal plays flagged 0")
    assert any(line.startswith("[referee] Spielende!") for line in lines)


def _assert_gone_soon(pids: list[int]) -> None:
    """The table's helper processes end within seconds of the table."""
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in pids)


def test_stopping_the_simulated_table_stops_it_and_its_display_board() -> None:
    """SIGTERM (systemd, Ctrl-C) ends a simulated evening within seconds; a hard kill of the
    table program takes its emulated display board with it."""
    for stop in (signal.SIGTERM, signal.SIGKILL):
        proc = _start_play("--game", "maedn", "--seed", "4")
        watchdog = threading.Timer(120, proc.kill)
        watchdog.start()
        try:
            _wait_for_line(proc, "Bitte ziehen")
            helpers = _children(proc.pid)  # the emulated display board, the render worker
            assert len(helpers) >= 2
            proc.send_signal(stop)
            status = proc.wait(timeout=15)
            assert status == (130 if stop == signal.SIGTERM else -signal.SIGKILL)
            _assert_gone_soon(helpers)
        finally:
            watchdog.cancel()
            proc.kill()
            proc.wait()


def test_ctrl_c_in_the_terminal_stops_the_simulated_table_without_a_traceback() -> None:
    """Ctrl-C signals every process of the terminal's foreground group, the render workers
    too: the table stops as on SIGTERM, with its summary and no traceback (a worker that died
    of the signal mid-frame used to break the table's last frame)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "play", "--colour", "never", "--game", "maedn",
         "--seed", "4"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # a process group of its own, like a terminal's job
    )
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        _wait_for_line(proc, "Bitte ziehen")
        helpers = _children(proc.pid)
        time.sleep(1.0)  # the workers are drawing the frames ahead
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "Traceback" not in err, err
        assert "games 1: finished 0, stuck 0" in out, out[-500:]
        _assert_gone_soon(helpers)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_play_without_vision_finishes_one_game_of_each(tmp_path: Path) -> None:
    proc = _cli("play", "--without-vision", "--speed", "0", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    games = [line for line in lines if line.startswith("== ")]
    assert games == ["== Backgammon (standard), 2", "== Mensch ärgere Dich nicht (hofer), 4"]
    assert sum(line.startswith("[referee] Spielende!") for line in lines) == 2
    assert "games 2: finished 2, stuck 0" in lines
    assert "plays accepted" in proc.stdout and "frames 0," in proc.stdout  # no camera
    assert "\x1b[" not in proc.stdout  # no escape codes into a pipe or log file


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


def test_output_read_only_in_part_ends_quietly() -> None:
    """`spieltisch play ... | head -1`: the reader goes away, the command ends without a
    BrokenPipeError traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "play", "--without-vision", "--speed", "0",
         "--seed", "3"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `head -1`
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err
