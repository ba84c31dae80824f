"""The pair judges' crop, their model files, and how well they tell their pairs apart."""

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
from vision.pair_judge import PAIR_CROP, PAIR_FILES, PAIR_SPAN, PairJudge, pair_matrix
from vision.render_dataset import random_scene


def _to_crop(m: np.ndarray, x: float, y: float) -> tuple[float, float]:
    u, v = m @ np.array([x, y, 1.0])
    return float(u), float(v)


def test_the_crop_holds_the_top_face_with_a_margin() -> None:
    cx, cy, face = 412.0, 233.0, 14.0
    m = pair_matrix(cx, cy, face)
    assert _to_crop(m, cx, cy) == pytest.approx((PAIR_CROP / 2, PAIR_CROP / 2))
    edge = PAIR_CROP / 2 + PAIR_CROP / (2 * PAIR_SPAN)
    assert _to_crop(m, cx + face / 2, cy + face / 2) == pytest.approx((edge, edge))


def test_a_pair_without_a_judge_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no judge for the pair \(1, 2\)"):
        PairJudge((1, 2))


def test_the_judged_pairs_share_no_value() -> None:
    values = [v for pair in PAIR_FILES for v in pair]
    assert len(values) == len(set(values))


@needs_model
def test_another_networks_file_is_refused_by_name() -> None:
    with pytest.raises(DiceModelError, match=r"dice_classifier\.onnx: 8 outputs"):
        PairJudge((4, 6), CLASSIFIER_FILE)


@needs_model
@pytest.mark.parametrize("pair", sorted(PAIR_FILES))
def test_no_faces_no_answers_and_one_probability_a_face(pair: tuple[int, int]) -> None:
    judge = PairJudge(pair)
    image = np.full((200, 300, 3), 90, np.uint8)
    assert judge.p_higher(image, []).shape == (0,)
    p = judge.p_higher(image, [(50.0, 50.0, 14.0), (250.0, 150.0, 16.0)])
    assert p.shape == (2,) and ((p >= 0) & (p <= 1)).all()


def _rendered_pair(pair: tuple[int, int], frames: int) -> list[tuple[np.ndarray,
                                                                    tuple[float, float, float],
                                                                    bool]]:
    """Flat dice of the pair on rendered backgammon frames (seeds the training tool never
    renders), each as (frame, its top face as the reader cuts it from the labelled box, shows
    the higher value)."""
    rng = np.random.default_rng(46)
    faces = []
    for i in range(frames):
        scene = random_scene(rng, "backgammon")
        scene = dataclasses.replace(scene, dice=tuple(int(v) for v in rng.choice(pair, 2)))
        frame = renderer.render(scene, 940_000 + i)
        parallax = frame.camera.parallax()
        for die, (x0, y0, x1, y1) in zip(frame.dice, frame.dice_boxes, strict=True):
            cx, cy, w, h = top_face((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, parallax)
            faces.append((frame.image, (cx, cy, max(w, h)), die.value == pair[1]))
    return faces


@needs_model
@pytest.mark.parametrize("pair", sorted(PAIR_FILES))
def test_a_judge_tells_its_rendered_pair_apart_at_least_as_well_as_the_classifier(
        pair: tuple[int, int]) -> None:
    """On 160 rendered dice of the pair at the table camera's scale (13-19 px, blurred by
    1-3.5 px) the judge is wrong on none and never more often than the table classifier's own
    split of the pair on the same dice. Measured (2026-12-02): 4 or 6, judge 0, classifier 1
    (on the training tool's 2264 held-out faces 0 against 7); 2 or 3, judge 0, classifier 1
    (held out: 1 of 2374 against 3). Smallest margin of the judge from 0.5: 0.39 and 0.40."""
    faces = _rendered_pair(pair, 80)
    judge = PairJudge(pair)
    classifier = load_net(TABLE_CLASSIFIER_FILE)
    truth = np.array([higher for _, _, higher in faces])
    p_judge = np.array([judge.p_higher(image, [face])[0] for image, face, _ in faces])
    crops = [crop_die(image, cx, cy, crop_side(size, size)) for image, (cx, cy, size), _ in faces]
    classifier.setInput(to_blob(crops))
    probs = softmax(classifier.forward().reshape(len(crops), -1))
    low, high = pair
    p_classifier = probs[:, high] / (probs[:, low] + probs[:, high])
    judge_wrong = int(((p_judge >= 0.5) != truth).sum())
    classifier_wrong = int(((p_classifier >= 0.5) != truth).sum())
    assert len(faces) == 160 and 40 <= truth.sum() <= 120
    assert judge_wrong == 0 and judge_wrong <= classifier_wrong, (judge_wrong, classifier_wrong)
