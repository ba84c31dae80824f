"""A camera turned on its mount after calibration (an elbow, a door slammed), through the
user's route (`calibrate`, then `vision board`) on the development photoreal set-up md04:
turned by a degree the frame is straightened and read; turned by three it is "moved" (the table
then looks for the board again), never a hand over the board or a misread."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from tests.cli import spieltisch

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "tests" / "data" / "photoreal" / "images"


def _turned(name: str, degrees: float, out: Path) -> Path:
    """The frame `name` as a camera turned by `degrees` about a point off the board's centre
    shows it."""
    image = cv2.imread(str(IMAGES / name), cv2.IMREAD_COLOR)
    h, w = image.shape[:2]
    turn = cv2.getRotationMatrix2D((0.3 * w, 0.7 * h), degrees, 1.0)
    path = out / f"{Path(name).stem}_turned{degrees:g}.png"
    cv2.imwrite(str(path), cv2.warpAffine(image, turn, (w, h), borderMode=cv2.BORDER_REPLICATE))
    return path


def test_a_turned_camera_is_straightened_or_said_to_have_moved(tmp_path: Path) -> None:
    labels = json.loads((ROOT / "tests" / "data" / "photoreal" / "labels.json").read_text())
    setup = next(s for s in labels["setups"] if s["id"] == "md04")
    calibration = tmp_path / "md04.json"
    done = spieltisch("calibrate", str(IMAGES / "md04_start.jpg"), "--game", "maedn",
                      "--players", str(setup["players"]),
                      "--geometry", str(ROOT / setup["geometry"]),
                      "--empty", str(IMAGES / "md04_empty.jpg"), "--out", str(calibration))
    assert done.returncode == 0, done.stderr
    plays = ("md04_play1.jpg", "md04_play2.jpg")
    frames = [_turned(p, 1.0, tmp_path) for p in plays] + \
        [_turned(p, 3.0, tmp_path) for p in plays] + [IMAGES / "md04_hand1.jpg"]
    read = spieltisch("vision", "board", *(str(f) for f in frames),
                      "--calibration", str(calibration), "--json")
    assert read.returncode == 0, read.stderr
    lines = [json.loads(line) for line in read.stdout.splitlines()]
    truth = {f["image"].split("/")[-1]: f["board"] for f in setup["frames"]}
    for name, line in zip(plays, lines[:2], strict=True):
        assert line.get("board") == truth[name], line  # straightened
    for line in lines[2:4]:
        assert "board" not in line and "not where it was calibrated" in line["blocked"], line
    assert "hand" in lines[4]["blocked"]
