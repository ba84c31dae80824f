"""Dice through the frame reader, with the real dice reader of `vision/dice.py` on rendered
frames (skipped while its model files are missing)."""

from __future__ import annotations

import numpy as np
import pytest

from controller.words.events import BackgammonBoard
from tests.vision.dice_requirements import needs_model
from vision.calibrate import calibrate
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.frame_reader import FrameReader
from vision.geometry import load_geometry
from vision.render_dataset import random_scene
from vision.renderer import Camera, Scene, render

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


# Camera mounts as the simulated table draws them (`Camera.random` with [seed, len(game)]) on
# which the renderer's strongest motion blur smears a 4's two pip columns into two bars, read as
# a 6 until the table stopped guessing faces read with less than 60 % probability.
BLURRED_MOUNTS = (("maedn", 217), ("maedn", 221), ("maedn", 225), ("backgammon", 209),
                  ("backgammon", 220))


def test_the_table_asks_for_a_reroll_rather_than_guess_a_blurred_face() -> None:
    geometry = load_geometry()
    dice = right = misread = 0
    for game, seed in BLURRED_MOUNTS:
        board = random_scene(np.random.default_rng(seed), game).board
        camera = Camera.random(np.random.default_rng([seed, len(game)]),
                               geometry.board_size(game), (1280, 720))
        start = maedn_start(4) if game == "maedn" else STANDARD_BACKGAMMON
        reader = FrameReader(calibrate(render(Scene(start), seed=seed, camera=camera).image,
                                       game))
        throws = [(v,) for v in range(1, 7)] if game == "maedn" else [(v, 7 - v)
                                                                       for v in range(1, 7)]
        for thrown in throws:
            obs = reader.read(render(Scene(board, dice=thrown), seed=seed, camera=camera).image)
            values = sorted(d.value for d in obs.dice if not d.cocked)
            dice += len(thrown)
            right += sum(v in values for v in set(thrown))
            misread += sum(v not in thrown for v in values)
    # Measured 2026-11-30 (late night): 0 misread and 37 of 42 right (38 without the 70 %
    # asked of a 4 or a 6); 6 misread and 35 right before the table stopped guessing.
    assert misread <= 1, f"{misread} of {dice} dice read as a value they do not show"
    assert right >= 32, f"only {right} of {dice} dice read right"


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


@pytest.mark.parametrize("white, black", [(1, 24), (6, 19), (12, 13), (7, 18), (10, 15)])
def test_tall_stacks_of_checkers_are_not_taken_for_dice(setup: tuple, white: int,
                                                        black: int) -> None:
    """Twelve shingled white checkers on a point were once read as a die leaning on its edge,
    and the table asked for a re-roll after every throw (found in a simulated evening). Points,
    bar and trays are explained by checkers; a real die lying there blocks the frame anyway."""
    camera, reader = setup
    points = [0] * 24
    points[white - 1], points[black - 1] = 13, -13
    board = BackgammonBoard(points=tuple(points), bar_white=2, bar_black=0, off_white=0,
                            off_black=2)
    for seed in range(3):
        obs = reader.read(render(Scene(board), seed=200 + seed, camera=camera).image)
        assert obs.board == board
        assert obs.dice == (), obs.dice
