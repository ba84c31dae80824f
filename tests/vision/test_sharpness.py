"""The picture's blur measured on the corner markers (`vision.sharpness`), and the calibration's
warning when it is too large a part of a die."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.board_errors import BLURRED
from vision.board_finder import find_board
from vision.calibrate import calibrate
from vision.calibration import maedn_start
from vision.geometry import load_geometry
from vision.renderer import Camera, Scene, render
from vision.sharpness import marker_blur_px

GEO = load_geometry()


def motion_blur(image: np.ndarray, length: float, degrees: float) -> np.ndarray:
    """The image smeared along a line of `length` px at `degrees` (a camera shaking)."""
    size = 2 * math.ceil(length / 2) + 3
    kernel = np.zeros((size, size), np.float32)
    c, a = size // 2, math.radians(degrees)
    for t in np.linspace(-length / 2, length / 2, 64):
        kernel[round(c + t * math.sin(a)), round(c + t * math.cos(a))] += 1.0
    return cv2.filter2D(image, -1, kernel / kernel.sum())


@pytest.fixture(scope="module")
def sharp_frame() -> tuple[np.ndarray, list[np.ndarray]]:
    """A sharp Mensch start position at the table camera's 1280×720 and its markers."""
    camera = Camera.random(np.random.default_rng([11, 5]), GEO.board_size("maedn"), (1280, 720))
    image = render(Scene(maedn_start(4), clean=True), seed=11, camera=camera).image
    fix = find_board(image, "maedn")
    known = GEO.markers.corners(*GEO.board_size("maedn"))
    return image, [fix.to_image(np.array(known[i])) for i in fix.markers_found]


def test_a_sharp_picture_measures_almost_no_blur(sharp_frame) -> None:
    image, markers = sharp_frame
    assert len(markers) == 4
    blur = marker_blur_px(image, markers)
    assert blur is not None and blur < 0.6


@pytest.mark.parametrize("degrees", [0, 30, 45, 90, 135])
def test_the_blur_is_measured_whatever_its_direction(sharp_frame, degrees: float) -> None:
    image, markers = sharp_frame
    small = marker_blur_px(motion_blur(image, 2.0, degrees), markers)
    large = marker_blur_px(motion_blur(image, 4.0, degrees), markers)
    assert small is not None and large is not None
    assert 1.2 < small < 3.0 and 3.0 < large < 5.5 and large > small + 1.0


def test_an_out_of_focus_picture_measures_blurred(sharp_frame) -> None:
    image, markers = sharp_frame
    blur = marker_blur_px(cv2.GaussianBlur(image, (0, 0), 1.5), markers)
    assert blur is not None and blur > 2.5


def test_without_markers_nothing_is_measured(sharp_frame) -> None:
    image, _ = sharp_frame
    assert marker_blur_px(image, []) is None


def test_calibration_warns_of_a_picture_too_blurred_for_its_dice(sharp_frame) -> None:
    """Dice 13–15 px wide at this mount: a 4.5 px smear leaves their pips unreadable, 1.5 px
    does not."""
    image, _ = sharp_frame
    assert BLURRED.key not in calibrate(image, "maedn").warnings
    assert BLURRED.key not in calibrate(motion_blur(image, 1.5, 60), "maedn").warnings
    assert BLURRED.key in calibrate(motion_blur(image, 4.5, 60), "maedn").warnings
    # found from the board's outline, the picture has no markers measured: no verdict
    blurred = motion_blur(image, 4.5, 60)
    assert BLURRED.key not in calibrate(blurred, "maedn", use_markers=False).warnings
