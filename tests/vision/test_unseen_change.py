"""A checker whose colour the place it lies on shares (a cream checker on a cream point)
changes nothing there but its rim: an unchanged place says "empty" only as far as a piece of
that colour would have changed it (`vision.board_look.visibility`), and there a faint rim
says "empty" surely. The development photoreal set-up bg08 (Hofer board under a pendant lamp,
two cream checkers on the cream 24-point) was refused before ("p24 read differently"); now it
calibrates through the user's route and reads its plays."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.vision.photoreal_route import calibrated, read_plays
from vision.board_look import EmptyBoard, PieceColour, PixelSet, visibility


def test_a_colour_is_not_visible_on_a_place_of_its_own_colour() -> None:
    board = np.zeros((40, 80, 3), np.uint8)
    board[:, :40] = (170, 205, 225)  # a cream point
    board[:, 40:] = (40, 40, 150)  # a red one
    rng = np.random.default_rng(3)
    cream = PieceColour.learn("white", np.clip(rng.normal((172, 207, 226), 4.0, (500, 3)), 0,
                                               255))
    ys, xs = np.mgrid[0:40, 0:80]
    seen = visibility(PixelSet.of(EmptyBoard(board), ys, xs), cream).reshape(40, 80)
    assert seen[:, 2:38].max() == 0.0  # on cream a cream checker changes nothing
    assert seen[:, 42:].min() == 1.0  # on red it surely does


def test_cream_checkers_on_a_cream_point_calibrate_and_read(tmp_path: Path) -> None:
    calibration, setup = calibrated("bg08", "backgammon", tmp_path)
    boards, truth = read_plays(calibration, setup)
    assert all(b is None or b == t for b, t in zip(boards, truth, strict=True)), boards
    assert any(b is not None for b in boards), boards
