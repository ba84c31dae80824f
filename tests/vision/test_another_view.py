"""A frame taken from another view than the calibration's (a photo taken by hand, a camera
moved on purpose, a board pushed), through the user's route (`calibrate`, then `vision board`)
on development photoreal set-ups: the board is found again by its own print and read; a hand
over it stays a hand; a frame of another board is not read as this one."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.commands.vision import board_json
from tests.cli import spieltisch
from tests.vision.photoreal_route import IMAGES, calibrated
from vision.calibration import Calibration
from vision.frame_reader import FrameReader

#: Where the picture's corners go in the other view (share of its width and height): the
#: view of a photo taken by hand a little off the first, about 3 % at the corners.
CORNER_MOVES = np.float32([[0.025, -0.015], [-0.02, 0.03], [0.015, 0.02], [-0.03, -0.01]])


def _from_elsewhere(name: str, out: Path) -> Path:
    image = cv2.imread(str(IMAGES / name), cv2.IMREAD_COLOR)
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    view = cv2.getPerspectiveTransform(corners, corners + CORNER_MOVES * np.float32([w, h]))
    path = out / f"{Path(name).stem}_elsewhere.png"
    cv2.imwrite(str(path), cv2.warpPerspective(image, view, (w, h),
                                               borderMode=cv2.BORDER_REPLICATE))
    return path


@pytest.mark.parametrize(("name", "game", "plays"), [
    ("md04", "maedn", ("md04_play1.jpg", "md04_play2.jpg")),
    ("bg04", "backgammon", ("bg04_play1.jpg", "bg04_play6.jpg")),
])
def test_a_frame_from_another_view_is_read_where_its_print_is_found(
        tmp_path: Path, name: str, game: str, plays: tuple[str, ...]) -> None:
    calibration, setup = calibrated(name, game, tmp_path)
    other = "md10_play1.jpg" if game == "maedn" else "bg12_play1.jpg"  # another print
    frames = [_from_elsewhere(p, tmp_path) for p in plays] + \
        [_from_elsewhere(f"{name}_hand1.jpg", tmp_path), IMAGES / other]
    read = spieltisch("vision", "board", *(str(f) for f in frames),
                      "--calibration", str(calibration), "--json")
    assert read.returncode == 0, read.stderr
    lines = [json.loads(line) for line in read.stdout.splitlines()]
    truth = {f["image"].split("/")[-1]: f["board"] for f in setup["frames"]}
    for play, line in zip(plays, lines, strict=False):
        assert line.get("board") == truth[play], line
    assert "board" not in lines[-2] and "blocked" in lines[-2], lines[-2]  # the hand
    assert "board" not in lines[-1], lines[-1]  # another board


def test_the_empty_board_photographed_from_another_view_still_calibrates(tmp_path: Path) -> None:
    """Two photos taken by hand: the start position's view differs from the empty board's by
    about 3 % at the corners; the position's view is found by the print the empty board
    shows, and later frames from that view are read (from the calibration's own view, no
    second search)."""
    calibration, setup = calibrated("md04", "maedn", tmp_path,
                                    start=_from_elsewhere("md04_start.jpg", tmp_path))
    play = _from_elsewhere("md04_play1.jpg", tmp_path)
    table = FrameReader(Calibration.load(calibration), players=setup["players"],
                        dice_reader=None)
    truth = next(f["board"] for f in setup["frames"] if f["image"].endswith("md04_play1.jpg"))
    reading = table.read_board(cv2.imread(str(play), cv2.IMREAD_COLOR))
    assert reading.board is not None and board_json(reading.board) == truth, reading.why
