"""`spieltisch record` and `spieltisch replay` through real subprocesses on the simulated table:
rendered frames, the real vision, referee, mock-pin LEDs and the emulated display board."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.sim.camera import measured_camera_heights
from tests.cli import spieltisch

ROOT = Path(__file__).resolve().parents[2]


def _spieltisch(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return spieltisch(*args, timeout=timeout)


def _record(tmp_path: Path, folder: Path, every: int, seconds: float) -> None:
    """Record a vegas Mensch game (electronic die) at 640×360 until the players stop it."""
    config = tmp_path / "sim.toml"
    config.write_text(
        "[simulation]\nwidth = 640\nheight = 360\nseed = 4\nillegal_rate = 0.3\n"
        "hand_rate = 0.3\n", "utf-8"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "record", str(folder), "--every", str(every),
         "--config", str(config), "--game", "maedn", "--variant", "vegas", "--players", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        time.sleep(seconds)
        process.send_signal(signal.SIGINT)  # the players stop the evening
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("record")
    folder = tmp_path / "evening"
    _record(tmp_path, folder, every=1, seconds=12)
    return folder


def test_record_writes_frames_events_and_signals(recording: Path) -> None:
    lines = [json.loads(x) for x in (recording / "log.jsonl").read_text("utf-8").splitlines()]
    frames = [x for x in lines if "frame" in x]
    events = [x["event"]["type"] for x in lines if "event" in x]
    signals = [s["type"] for x in lines if "signals" in x for s in x["signals"]]
    assert len(frames) > 50 and all((recording / x["frame"]).is_file() for x in frames)
    assert events[0] == "new_game"
    assert {"button", "board", "electronic_roll", "view_blocked"} <= set(events)
    assert {"turn", "dice_accepted", "play_accepted"} <= set(signals)
    meta = json.loads((recording / "session.json").read_text("utf-8"))
    assert meta["every_nth"] == 1
    # the heights the simulated table calibrated with, so that a replay calibrates the same
    assert meta["camera_height_mm"] == measured_camera_heights(4, (640, 360))


def test_replay_of_an_untouched_recording_matches(recording: Path) -> None:
    result = _spieltisch("replay", str(recording), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["differences"] == []
    assert report["signals_recorded"] == report["signals_replayed"] > 10


def test_replay_reports_every_signal_that_differs(recording: Path, tmp_path: Path) -> None:
    import shutil

    changed = tmp_path / "changed"
    shutil.copytree(recording, changed)
    log = changed / "log.jsonl"
    lines = log.read_text("utf-8").splitlines()
    for i, line in enumerate(lines):
        obj = json.loads(line)
        accepted = [s for s in obj.get("signals", []) if s["type"] == "dice_accepted"]
        if accepted:
            accepted[0]["values"] = [7]  # what the recording claims the referee said
            lines[i] = json.dumps(obj)
            break
    log.write_text("\n".join(lines) + "\n", "utf-8")
    result = _spieltisch("replay", str(changed))
    assert result.returncode == 1
    assert "1 differ" in result.stdout
    assert '"values":[7]' in result.stdout


def test_record_every_third_frame_and_refuses_to_overwrite(tmp_path: Path) -> None:
    folder = tmp_path / "sparse"
    _record(tmp_path, folder, every=3, seconds=6)
    lines = [json.loads(x) for x in (folder / "log.jsonl").read_text("utf-8").splitlines()]
    written = sum(1 for x in lines if "frame" in x)
    meta = json.loads((folder / "session.json").read_text("utf-8"))
    assert meta["every_nth"] == 3 and meta["frames_written"] == written
    # every third frame, and the first frame of the game (a replay calibrates from it)
    assert written in ((meta["frames_seen"] + 2) // 3, (meta["frames_seen"] + 2) // 3 + 1)
    assert len(list((folder / "frames").iterdir())) == written
    again = _spieltisch("record", str(folder))
    assert again.returncode == 2 and "already holds a recording" in again.stderr


def test_replay_of_a_folder_that_is_no_recording_says_so(tmp_path: Path) -> None:
    result = _spieltisch("replay", str(tmp_path))
    assert result.returncode == 2
    assert "session.json is missing" in result.stderr


def test_replay_of_a_damaged_recording_names_file_and_line(recording: Path, tmp_path: Path) -> None:
    import shutil

    damaged = tmp_path / "damaged"
    shutil.copytree(recording, damaged)
    with (damaged / "log.jsonl").open("a", encoding="utf-8") as log:
        log.write('{"event": {"type": "dice", "values": "six"}, "source": "input"}\n')
    lines = len((damaged / "log.jsonl").read_text("utf-8").splitlines())
    result = _spieltisch("replay", str(damaged))
    assert result.returncode == 2
    assert f"log.jsonl:{lines}" in result.stderr
    assert "values" in result.stderr


def test_replay_of_a_recording_with_a_malformed_camera_height_says_so(
    recording: Path, tmp_path: Path
) -> None:
    import shutil

    damaged = tmp_path / "heights"
    shutil.copytree(recording, damaged)
    meta = json.loads((damaged / "session.json").read_text("utf-8"))
    meta["camera_height_mm"] = {"maedn": "tall"}
    (damaged / "session.json").write_text(json.dumps(meta), "utf-8")
    result = _spieltisch("replay", str(damaged))
    assert result.returncode == 2
    assert "camera_height_mm" in result.stderr and "'tall'" in result.stderr
