"""Every subcommand given malformed input says what is wrong, without a traceback.

Each case is a command line a person could type (or a file they could hand it) and a part of
the message that names the problem; the exit status is never 0 and nothing on standard error
looks like a Python traceback.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from controller import cli
from tests.cli import REPO, spieltisch

PINMAP = (REPO / "hardware" / "pinmap_default.toml").read_text("utf-8")
BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + bytes(range(256))


def _file(tmp: Path, name: str, content: str | bytes) -> str:
    path = tmp / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, "utf-8")
    return str(path)


def _config_with_pins(tmp: Path, pins: str | bytes | None) -> str:
    """A table configuration naming a pin map with `pins` in it (None: a missing file)."""
    pinmap = tmp / "pins.toml" if pins is None else Path(_file(tmp, "pins.toml", pins))
    return _file(tmp, "table.toml", f'[pins]\nmap = "{pinmap}"\n[display]\nport = "none"\n')


Case = Callable[[Path], tuple[list[str], str]]

CASES: dict[str, Case] = {
    "calibrate: not an image": lambda tmp: (
        ["calibrate", _file(tmp, "x.png", b"not an image"), "--game", "maedn"], "x.png"),
    "config: no such file": lambda tmp: (["config", "--check", str(tmp / "nope.toml")], "nope"),
    "config: binary file": lambda tmp: (
        ["config", "--check", _file(tmp, "c.toml", BINARY)], "not valid TOML"),
    "config: pin used twice": lambda tmp: (
        ["config", "--check", _config_with_pins(
            tmp, PINMAP.replace('undo = "GPIO7"', 'undo = "GPIO17"'))], "used twice"),
    "journal: not a journal": lambda tmp: (
        ["journal", "--data-dir", str(tmp), "--show"], "no journal"),
    "journal: garbage journal": lambda tmp: (
        ["journal", "--data-dir", str(Path(_file(tmp, "journal.sqlite", BINARY)).parent),
         "--show"], "damaged"),
    "play: no such configuration": lambda tmp: (
        ["play", "--config", str(tmp / "nope.toml")], "nope.toml"),
    "play: pin used twice": lambda tmp: (
        ["play", "--config", _config_with_pins(
            tmp, PINMAP.replace('undo = "GPIO7"', 'undo = "GPIO17"'))], "GPIO17"),
    "play: pin missing": lambda tmp: (
        ["play", "--config", _config_with_pins(tmp, PINMAP.replace('roll = "GPIO11"\n', ""))],
        "buttons.roll is missing"),
    "play: pin map unreadable": lambda tmp: (
        ["play", "--config", _config_with_pins(tmp, None)], "cannot read the pin map"),
    "play: pin map binary": lambda tmp: (
        ["play", "--config", _config_with_pins(tmp, BINARY)], "not valid TOML"),
    "play: players": lambda tmp: (["play", "--game", "backgammon", "--players", "4"], "players"),
    "record: every 0": lambda tmp: (["record", str(tmp / "r"), "--every", "0"], "--every"),
    "record: own set not a set": lambda tmp: (
        ["record", str(tmp / "r"), "--own-set",
         str(Path(_file(tmp, "labels.json", BINARY)).parent)], "--own-set"),
    "referee: no such log": lambda tmp: (["referee", "--log", str(tmp / "nope")], "nope"),
    "referee: a folder": lambda tmp: (["referee", "--log", str(tmp), "--json"], str(tmp)),
    "render: count": lambda tmp: (
        ["render", str(tmp / "out"), "--game", "maedn", "--count", "0"], "--count"),
    "render: size": lambda tmp: (
        ["render", str(tmp / "out"), "--game", "maedn", "--size", "big"], "1280x720"),
    "replay: not a recording": lambda tmp: (["replay", str(tmp)], "not a recording"),
    "replay: damaged recording": lambda tmp: (
        ["replay", str(Path(_file(tmp, "session.json", BINARY)).parent)], "session.json"),
    "replay: recording of a list": lambda tmp: (
        ["replay", str(Path(_file(tmp, "session.json", "[1]")).parent)], "JSON object"),
    "rules: bad position id": lambda tmp: (["rules", "id", "nonsense"], "Position ID"),
    "rules: bad dice": lambda tmp: (["rules", "plays", "4HPwATDgc/ABMA", "9", "1"], "1..6"),
    "rules: bad judge": lambda tmp: (["rules", "judge", "x", "y", "1", "2"], "Position ID"),
    "selftest: binary pin map": lambda tmp: (
        ["selftest", "--simulate", "--pins", _file(tmp, "p.toml", BINARY)], "not valid TOML"),
    "simulate: games": lambda tmp: (["simulate", "--games", "0"], "at least 1"),
    "simulate: rate": lambda tmp: (["simulate", "--illegal-rate", "x"], "illegal-rate"),
    "vision: not an image": lambda tmp: (
        ["vision", "dice", _file(tmp, "x.jpg", "plain text"), "--json"], "x.jpg"),
    "vision: eval without labels": lambda tmp: (["vision", "eval", str(tmp)], "labels"),
    "vision: eval own set told a low camera": lambda tmp: (
        ["vision", "eval", str(Path(_file(tmp, "labels.json", (
            '{"setups": [{"id": "game001", "game": "backgammon", '
            '"calibrate": {"camera_height_mm": 5}, "frames": []}]}'))).parent)],
        "camera must hang"),
}


def test_every_subcommand_has_a_malformed_case() -> None:
    covered = {name.split(":")[0] for name in CASES}
    assert covered == set(cli.COMMANDS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_input_is_named_without_a_traceback(name: str, tmp_path: Path) -> None:
    args, named = CASES[name](tmp_path)
    proc = spieltisch(*args, timeout=120)
    said = proc.stdout + proc.stderr
    assert "Traceback" not in said, said[-3000:]
    assert proc.returncode != 0, said[-2000:]
    assert named in said, said[-2000:]


def test_rules_batch_reads_binary_standard_input_line_by_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "rules", "legal", "--batch"],
                          cwd=REPO, input=BINARY + b"\n{}\n", capture_output=True, timeout=60)
    assert b"Traceback" not in proc.stderr and proc.returncode == 0
    assert proc.stdout.count(b"\n") == BINARY.count(b"\n") + 2  # one answer per line
