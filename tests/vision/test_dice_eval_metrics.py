"""Scoring rules of `vision.dice_eval` on hand-made labels with known right/wrong/missed/false."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.vision.dice_requirements import DATA, needs_data
from vision.dice_eval import (
    LabelError,
    LabelledDie,
    evaluate,
    load_labels,
    score_image,
)

LABELS = (LabelledDie(3, (100, 100, 140, 140)), LabelledDie(5, (200, 100, 240, 140)))


def test_exact_boxes_with_right_values_are_all_right() -> None:
    score = score_image([(3, (100, 100, 140, 140)), (5, (200, 100, 240, 140))], LABELS)
    assert (score.right, score.wrong_value, score.missed, score.false_dice) == (2, 0, 0, 0)
    assert score.all_right


def test_iou_of_one_half_matches_and_a_wrong_value_counts_wrong() -> None:
    # Shifted by 13 of 40 px: IoU = 1080 / 2120 ≈ 0.51, just above the 0.5 rule.
    score = score_image([(4, (113, 100, 153, 140))], LABELS[:1])
    assert (score.right, score.wrong_value) == (0, 1)
    assert not score.all_right


def test_large_box_matches_when_its_centre_lies_inside_the_label() -> None:
    score = score_image([(3, (60, 60, 180, 180))], LABELS[:1])
    assert score.right == 1


def test_box_beside_the_die_is_a_false_die_and_the_die_is_missed() -> None:
    score = score_image([(3, (141, 100, 181, 140))], LABELS[:1])
    assert (score.right, score.missed, score.false_dice) == (0, 1, 1)


def test_two_readings_of_one_die_give_one_match_and_one_false_die() -> None:
    score = score_image([(3, (100, 100, 140, 140)), (3, (102, 102, 142, 142))], LABELS[:1])
    assert (score.right, score.false_dice) == (1, 1)


@needs_data
def test_evaluate_totals_hand_made_labels_against_a_reader_that_reports_the_truth(tmp_path) -> None:
    """The 'reader' returns the data set's own labels, so every difference is one we made."""
    a, b = load_labels(DATA, "test")[:2]
    truth = {}
    for item in (a, b):
        shutil.copy(item.path, tmp_path / item.path.name)
        truth[item.path.name] = [(d.value, d.box) for d in item.dice]
    edited = [{"value": d.value, "box": list(d.box)} for d in a.dice]
    edited[0]["value"] = edited[0]["value"] % 6 + 1
    edited.pop()
    edited.append({"value": 2, "box": [0, 0, 20, 20]})
    (tmp_path / "labels.json").write_text(json.dumps([
        {"image": a.path.name, "split": "test", "dice": edited},
        {"image": b.path.name, "split": "test",
         "dice": [{"value": d.value, "box": list(d.box)} for d in b.dice]},
    ]))
    images = load_labels(tmp_path, "test")
    names = iter([a.path.name, b.path.name])

    report = evaluate(lambda _image: truth[next(names)], images)

    assert report.images == 2
    assert report.dice == len(a.dice) + len(b.dice)
    assert report.right == len(a.dice) - 2 + len(b.dice)
    assert (report.wrong_value, report.missed, report.false_dice) == (1, 1, 1)
    assert report.images_all_right == 1
    assert report.failures == [a.path.name]
    assert report.false_per_image == 0.5


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "not valid JSON"),
        ('{"image": "a.jpg"}', "expected a list"),
        ('[{"image": "a.jpg", "dice": [{"value": 7, "box": [0, 0, 9, 9]}]}]', "entry 0 die 0"),
        ('[{"image": "a.jpg", "dice": [{"value": 2, "box": [9, 0, 0, 9]}]}]', "'box'"),
        ('[{"dice": []}]', "entry 0"),
        ('[{"image": "a.jpg", "dice": [], "die_px": -3}]', "'die_px'"),
        ('[{"image": "a.jpg", "dice": [], "camera_height_mm": 600}]', "'nadir_px'"),
        ('[{"image": "a.jpg", "dice": [], "nadir_px": [1, 2], "camera_height_mm": "high"}]',
         "'camera_height_mm'"),
        ('[{"image": "a.jpg", "dice": [], "nadir_px": [1, 2], "camera_height_mm": 9}]',
         "entry 0: the camera must hang well above"),
    ],
)
def test_malformed_labels_name_the_problem(tmp_path, content: str, words: str) -> None:
    (tmp_path / "labels.json").write_text(content)
    with pytest.raises(LabelError, match=words):
        load_labels(tmp_path)


def test_unknown_split_is_an_error_naming_it(tmp_path) -> None:
    (tmp_path / "labels.json").write_text('[{"image": "a.jpg", "split": "train", "dice": []}]')
    with pytest.raises(LabelError, match="'test'"):
        load_labels(tmp_path, "test")


def test_missing_image_stops_the_evaluation_with_its_name(tmp_path) -> None:
    (tmp_path / "labels.json").write_text('[{"image": "gone.jpg", "split": "test", "dice": []}]')
    with pytest.raises(LabelError, match=r"gone\.jpg"):
        evaluate(lambda _image: [], load_labels(tmp_path))


def test_die_size_of_a_labelled_image_is_read_when_given(tmp_path) -> None:
    (tmp_path / "labels.json").write_text(
        '[{"image": "a.jpg", "dice": [], "die_px": 16.2}, {"image": "b.jpg", "dice": []}]'
    )
    a, b = load_labels(tmp_path)
    assert (a.die_px, b.die_px) == (16.2, None)


def test_camera_of_a_labelled_image_gives_its_parallax_when_given(tmp_path) -> None:
    (tmp_path / "labels.json").write_text(
        '[{"image": "a.jpg", "dice": [], "nadir_px": [600, 350.5], "camera_height_mm": 616},'
        ' {"image": "b.jpg", "dice": []}]'
    )
    a, b = load_labels(tmp_path)
    assert a.parallax is not None and b.parallax is None
    assert a.parallax.nadir == (600.0, 350.5)
    assert a.parallax.shift(700.0, 350.5) == pytest.approx((100 * 16 / 600, 0.0))
