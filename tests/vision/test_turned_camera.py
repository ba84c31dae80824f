"""A camera turned on its mount after calibration (an elbow, a door slammed), through the
user's route (`calibrate`, then `vision board`) on the development photoreal set-ups md04 and
bg04: turned by a degree the frame is straightened and read; a Mensch frame turned by three is
"moved" for the table's reader (the table then looks for the board again) and `vision board`
finds the board by its print and reads it; never a hand over the board or a misread. A
backgammon board, whose only free places are its frame and bar, is straightened too."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from tests.cli import spieltisch
from tests.vision.photoreal_route import IMAGES, calibrated
from vision.calibration import Calibration
from vision.frame_reader import FrameReader
from vision.observation import MOVED


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
    calibration, setup = calibrated("md04", "maedn", tmp_path)
    plays = ("md04_play1.jpg", "md04_play2.jpg")
    frames = [_turned(p, 1.0, tmp_path) for p in plays] + \
        [_turned(p, 3.0, tmp_path) for p in plays] + [IMAGES / "md04_hand1.jpg"]
    read = spieltisch("vision", "board", *(str(f) for f in frames),
                      "--calibration", str(calibration), "--json")
    assert read.returncode == 0, read.stderr
    lines = [json.loads(line) for line in read.stdout.splitlines()]
    truth = {f["image"].split("/")[-1]: f["board"] for f in setup["frames"]}
    for name, line in zip(plays * 2, lines[:4], strict=True):
        assert line.get("board") == truth[name], line  # straightened, or found by its print
    assert "hand" in lines[4]["blocked"]
    table = FrameReader(Calibration.load(calibration), players=setup["players"],
                        dice_reader=None)
    turned = cv2.imread(str(frames[2]), cv2.IMREAD_COLOR)
    assert table.read_board(turned).problem == MOVED


def test_a_turned_camera_over_a_backgammon_board_is_straightened(tmp_path: Path) -> None:
    """Its print's strongest free edges (frame and bar) are broad and stay strong under a turn:
    before the whole print was fitted, this frame read `impossible` turned by 0.3° to 1°."""
    calibration, setup = calibrated("bg04", "backgammon", tmp_path)
    frames = [_turned("bg04_play1.jpg", degrees, tmp_path) for degrees in (0.3, 1.0, 2.0)]
    read = spieltisch("vision", "board", *(str(f) for f in frames),
                      "--calibration", str(calibration), "--json")
    assert read.returncode == 0, read.stderr
    truth = next(f["board"] for f in setup["frames"] if f["image"].endswith("bg04_play1.jpg"))
    for line in (json.loads(line) for line in read.stdout.splitlines()):
        assert line.get("board") == truth, line
