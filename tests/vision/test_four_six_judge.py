"""The 4-or-6 judge's crop, its model file, and how the reader uses it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.vision.dice_requirements import needs_model
from vision import renderer
from vision.dice import top_face
from vision.dice_model import (
    CLASSIFIER_FILE,
    TABLE_CLASSIFIER_FILE,
    DiceModelError,
    crop_die,
    crop_side,
    load_net,
    softmax,
    to_blob,
)
from vision.four_six_judge import (
    FOUR_SIX_CROP,
    FOUR_SIX_FILE,
    FOUR_SIX_SPAN,
    FourSixJudge,
    four_six_matrix,
)
from vision.render_dataset import random_scene


def _to_crop(m: np.ndarray, x: float, y: float) -> tuple[float, float]:
    u, v = m @ np.array([x, y, 1.0])
    return float(u), float(v)


def test_the_crop_holds_the_top_face_with_a_margin() -> None:
    cx, cy, face = 412.0, 233.0, 14.0
    m = four_six_matrix(cx, cy, face)
    assert _to_crop(m, cx, cy) == pytest.approx((FOUR_SIX_CROP / 2, FOUR_SIX_CROP / 2))
    edge = FOUR_SIX_CROP / 2 + FOUR_SIX_CROP / (2 * FOUR_SIX_SPAN)
    assert _to_crop(m, cx + face / 2, cy + face / 2) == pytest.approx((edge, edge))


@needs_model
def test_another_networks_file_is_refused_by_name() -> None:
    with pytest.raises(DiceModelError, match=r"dice_classifier\.onnx: 8 outputs"):
        FourSixJudge(CLASSIFIER_FILE)


@needs_model
def test_no_faces_no_answers_and_one_probability_a_face() -> None:
    judge = FourSixJudge(FOUR_SIX_FILE)
    image = np.full((200, 300, 3), 90, np.uint8)
    assert judge.p_six(image, []).shape == (0,)
    p = judge.p_six(image, [(50.0, 50.0, 14.0), (250.0, 150.0, 16.0)])
    assert p.shape == (2,) and ((p >= 0) & (p <= 1)).all()


def _rendered_fours_and_sixes(frames: int) -> list[tuple[np.ndarray, tuple[float, float, float],
                                                          bool]]:
    """Flat 4s and 6s on rendered backgammon frames (seeds the training tool never renders),
    each as (frame, its top face as the reader cuts it from the labelled box, is a 6)."""
    rng = np.random.default_rng(46)
    faces = []
    for i in range(frames):
        scene = random_scene(rng, "backgammon")
        scene = dataclasses.replace(scene, dice=tuple(int(v) for v in rng.choice((4, 6), 2)))
        frame = renderer.render(scene, 940_000 + i)
        parallax = frame.camera.parallax()
        for die, (x0, y0, x1, y1) in zip(frame.dice, frame.dice_boxes, strict=True):
            cx, cy, w, h = top_face((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, parallax)
            faces.append((frame.image, (cx, cy, max(w, h)), die.value == 6))
    return faces


@needs_model
def test_the_judge_tells_rendered_fours_from_sixes_at_least_as_well_as_the_classifier() -> None:
    """On 160 rendered 4s and 6s at the table camera's scale (13-19 px, blurred by 1-3.5 px)
    the judge is wrong on none and never more often than the table classifier's own split of
    "4 or 6" on the same dice. Measured: judge 0, classifier 1 (2026-12-02); on the training
    tool's 2264 held-out faces 0 against 7."""
    faces = _rendered_fours_and_sixes(80)
    judge = FourSixJudge(FOUR_SIX_FILE)
    classifier = load_net(TABLE_CLASSIFIER_FILE)
    truth = np.array([six for _, _, six in faces])
    p_judge = np.array([judge.p_six(image, [face])[0] for image, face, _ in faces])
    crops = [crop_die(image, cx, cy, crop_side(size, size)) for image, (cx, cy, size), _ in faces]
    classifier.setInput(to_blob(crops))
    probs = softmax(classifier.forward().reshape(len(crops), -1))
    p_classifier = probs[:, 6] / (probs[:, 4] + probs[:, 6])
    judge_wrong = int(((p_judge >= 0.5) != truth).sum())
    classifier_wrong = int(((p_classifier >= 0.5) != truth).sum())
    assert len(faces) == 160 and 40 <= truth.sum() <= 120
    assert judge_wrong == 0 and judge_wrong <= classifier_wrong, (judge_wrong, classifier_wrong)
