"""The user's route on a development photoreal set-up, for tests: `calibrate` through the
command line on its start and empty frames, then `vision board` on its play frames."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli import spieltisch

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "tests" / "data" / "photoreal" / "images"


def calibrated(name: str, game: str, out: Path, start: Path | None = None
               ) -> tuple[Path, dict]:
    """The set-up `name` calibrated (on `start` instead of its start frame if given) into
    `out`, and its labels."""
    labels = json.loads((ROOT / "tests" / "data" / "photoreal" / "labels.json").read_text())
    setup = next(s for s in labels["setups"] if s["id"] == name)
    calibration = out / f"{name}.json"
    done = spieltisch("calibrate", str(start or IMAGES / f"{name}_start.jpg"), "--game", game,
                      "--players", str(setup["players"]),
                      "--geometry", str(ROOT / setup["geometry"]),
                      "--empty", str(IMAGES / f"{name}_empty.jpg"), "--out", str(calibration))
    assert done.returncode == 0, done.stderr
    return calibration, setup


def read_plays(calibration: Path, setup: dict) -> tuple[list[dict | None], list[dict]]:
    """`vision board --json` on the set-up's play frames: the board read from each (None when
    blocked or unsure) and the labels' boards, in order."""
    plays = [f for f in setup["frames"] if f["kind"] == "play"]
    done = spieltisch("vision", "board",
                      *(str(ROOT / "tests" / "data" / "photoreal" / f["image"]) for f in plays),
                      "--calibration", str(calibration), "--json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["image"] for line in lines] == [
        str(ROOT / "tests" / "data" / "photoreal" / f["image"]) for f in plays]
    return [line.get("board") for line in lines], [f["board"] for f in plays]
