"""Dice through the frame reader, with the real dice reader of `vision/dice.py` on rendered
frames (skipped while its model files are missing)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.dice_requirements import needs_model
from vision.calibration import STANDARD_BACKGAMMON, calibrate
from vision.frame_reader import FrameReader
from vision.render_dataset import random_scene
from vision.renderer import Scene, render

pytestmark = needs_model


@pytest.fixture(scope="module")
def setup() -> tuple:
    frame = render(Scene(STANDARD_BACKGAMMON), seed=61)
    return frame.camera, FrameReader(calibrate(frame.image, "backgammon"))


def test_dice_on_clear_frames_are_read(setup: tuple) -> None:
    camera, reader = setup
    assert reader.dice_reader is not None
    rng = np.random.default_rng(61)
    right = misread = 0
    for i in range(40):
        scene = random_scene(rng, "backgammon")
        obs = reader.read(render(scene, seed=i, camera=camera).image)
        values = [d.value for d in obs.dice if not d.cocked]
        right += sorted(d.value or 0 for d in obs.dice) == sorted(scene.dice)
        misread += any(v not in scene.dice for v in values)
    # A flat die flagged cocked only asks for a re-roll; one given a wrong value accuses a
    # player, so that count is held lower than the all-right count (levels reached, see
    # docs/vision-dice.md).
    assert right >= 35, f"only {right} of 40 frames had both dice right"
    assert misread <= 4, f"{misread} of 40 frames had a flat die read as a value it does not show"


def test_cocked_dice_are_rarely_given_a_value(setup: tuple) -> None:
    """Frames where every die is cocked: a die given a value would be a roll accepted that
    should have been thrown again (measured: 3 of 40 on the backgammon felt; issue 5)."""
    camera, reader = setup
    rng = np.random.default_rng(62)
    dice = given = 0
    for i in range(20):
        scene = random_scene(rng, "backgammon", cocked=1.0)
        obs = reader.read(render(scene, seed=100 + i, camera=camera).image)
        dice += len(scene.dice)
        given += sum(d.value is not None for d in obs.dice)
    assert dice >= 30
    assert given <= 0.1 * dice, f"{given} of {dice} cocked dice were given a value"


def test_no_dice_are_read_while_a_hand_blocks_the_view(setup: tuple) -> None:
    camera, reader = setup
    scene = Scene(STANDARD_BACKGAMMON, dice=(6, 6), hand=True)
    obs = reader.read(render(scene, seed=5, camera=camera).image)
    assert obs.blocked and obs.dice == ()
