"""The cocked-die judge's input: crops turned by the camera's lean, and its model file."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.dice_requirements import needs_model
from vision.cocked_judge import (
    JUDGE_CHANNELS,
    JUDGE_CROP,
    JUDGE_FILE,
    JUDGE_SPAN,
    CockedJudge,
    judge_blob,
    judge_matrix,
)
from vision.dice_model import CLASSIFIER_FILE, DiceModelError
from vision.parallax import Parallax


def _to_crop(m: np.ndarray, x: float, y: float) -> tuple[float, float]:
    u, v = m @ np.array([x, y, 1.0])
    return float(u), float(v)


@pytest.mark.parametrize("lean", [(3.0, 0.0), (0.0, 4.0), (-2.0, -2.0), (1.0, -3.0)])
def test_the_crop_is_turned_so_a_flat_die_leans_to_the_right(lean) -> None:
    """Whatever side of the nadir a die lies, its lean points to the crop's right, and the
    crop spans JUDGE_SPAN die sizes around the centre."""
    cx, cy, die = 400.0, 300.0, 15.0
    m = judge_matrix(cx, cy, die, lean)
    assert _to_crop(m, cx, cy) == pytest.approx((JUDGE_CROP / 2, JUDGE_CROP / 2))
    norm = math.hypot(*lean)
    tip = _to_crop(m, cx + die * lean[0] / norm, cy + die * lean[1] / norm)
    assert tip == pytest.approx((JUDGE_CROP / 2 + JUDGE_CROP / JUDGE_SPAN, JUDGE_CROP / 2))


def test_mirroring_keeps_the_lean_and_flips_across_it() -> None:
    cx, cy, die, lean = 400.0, 300.0, 15.0, (0.0, 5.0)
    plain, mirrored = judge_matrix(cx, cy, die, lean), judge_matrix(cx, cy, die, lean, 0, True)
    assert _to_crop(mirrored, cx, cy + 10) == pytest.approx(_to_crop(plain, cx, cy + 10))
    u, v = _to_crop(plain, cx + 10, cy)
    assert _to_crop(mirrored, cx + 10, cy) == pytest.approx((u, JUDGE_CROP - v))


def test_the_blob_carries_each_dies_lean_as_a_fourth_plane() -> None:
    crops = [np.full((JUDGE_CROP, JUDGE_CROP, 3), 255, np.uint8),
             np.zeros((JUDGE_CROP, JUDGE_CROP, 3), np.uint8)]
    blob = judge_blob(crops, [0.1, 0.45])
    assert blob.shape == (2, JUDGE_CHANNELS, JUDGE_CROP, JUDGE_CROP)
    assert np.allclose(blob[0, :3], 0.5) and np.allclose(blob[1, :3], -0.5)
    assert np.allclose(blob[0, 3], 0.1) and np.allclose(blob[1, 3], 0.45)


@needs_model
def test_another_networks_file_is_refused_by_name() -> None:
    with pytest.raises(DiceModelError, match=r"dice_classifier\.onnx: 8 outputs"):
        CockedJudge(CLASSIFIER_FILE)


@needs_model
def test_no_dice_no_verdicts_and_one_probability_a_die() -> None:
    judge = CockedJudge(JUDGE_FILE)
    image = np.full((200, 300, 3), 90, np.uint8)
    parallax = Parallax.of_camera((150.0, 100.0), 650.0)
    assert judge.p_cocked(image, [], 15.0, parallax).shape == (0,)
    p = judge.p_cocked(image, [(50.0, 50.0), (250.0, 150.0)], 15.0, parallax)
    assert p.shape == (2,) and ((p >= 0) & (p <= 1)).all()
