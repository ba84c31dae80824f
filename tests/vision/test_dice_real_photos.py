"""The dice reader on the real photos' held-out `test` split: issue 5 goals, where stable."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from tests.vision.dice_requirements import DATA, needs_data, needs_model
from vision import dice_model as dm
from vision.dice import (
    VIEW_TURNS,
    DiceReader,
    DieReading,
    read_dice,
    turned_view,
)
from vision.dice_eval import evaluate, load_labels, score_image
from vision.die_outline import (
    ALONE_DIE_SIZES,
    OUTLINE_LEAK,
    OUTLINE_MAX_LONG,
    SILHOUETTE_LONG,
    SILHOUETTE_MAX_SHORT,
    body_outline,
    silhouette,
)

pytestmark = [needs_data, needs_model]


@pytest.fixture(scope="module")
def split_report():
    reader = DiceReader()
    images = load_labels(DATA, "test")
    return evaluate(lambda im: [(d.value, d.box) for d in reader.read(im)], images)


def test_test_split_has_the_documented_size(split_report) -> None:
    assert split_report.images == 50
    assert split_report.dice > 250


# Issue 5 asks for 99 % per die, 90 % of images and at most 0.05 false dice per image. The
# committed model and reader reach 99.03 % per die (305 of 308), 92 % of images and 0.02 false
# dice (docs/vision-dice.md): the image and false-dice goals are asserted as such. The per-die
# goal is reached by one die, and dice read with 0.39 count among the 305 — a margin a newer
# OpenCV's resizing could take — so that test pins the level one die below it (304 of 308).
def test_per_die_accuracy_on_test_split_at_least_98_5_percent(split_report) -> None:
    assert split_report.die_accuracy >= 0.985, split_report.as_dict()


def test_whole_image_accuracy_on_test_split_meets_the_90_percent_goal(split_report) -> None:
    assert split_report.image_accuracy >= 0.90, split_report.as_dict()


def test_false_dice_per_image_on_test_split_at_most_005(split_report) -> None:
    assert split_report.false_per_image <= 0.05, split_report.as_dict()


def test_real_dice_are_not_flagged_cocked() -> None:
    """All labelled test dice lie flat: the cocked rule must not fire on (almost) any of them."""
    reader = DiceReader()
    readings = []
    for item in load_labels(DATA, "test"):
        readings += reader.read(cv2.imread(str(item.path)))
    cocked = [r for r in readings if r.cocked]
    assert len(cocked) <= 0.01 * len(readings), cocked


def test_lone_real_dice_are_not_called_cocked_by_their_silhouette() -> None:
    """The silhouette rule (a die alone whose body colour runs into the board) was set on
    renders; the real photos check it does not fire on real flat dice seen off the camera's
    axis. Train split (the rule was chosen looking at these): 99 lone dice whose body colour
    leaks, none in the flagged band."""
    measured = 0
    for item in load_labels(DATA, "train"):
        image = cv2.imread(str(item.path))
        centres = [((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2,
                    max(d.box[2] - d.box[0], d.box[3] - d.box[1])) for d in item.dice]
        for cx, cy, size in centres:
            gaps = [np.hypot(x - cx, y - cy) for x, y, _ in centres]
            if any(0 < gap < ALONE_DIE_SIZES * size for gap in gaps):
                continue  # dice pushed together: no silhouette verdict
            if body_outline(image, cx, cy, size)[0] < OUTLINE_LEAK:
                continue  # the body colour's outline decides
            measured += 1
            long, short = silhouette(image, cx, cy, size)
            assert not (SILHOUETTE_LONG <= long < OUTLINE_LEAK and short <= SILHOUETTE_MAX_SHORT), (
                item.path.name, cx, cy, long, short)
    assert measured >= 50


def test_a_real_die_whose_body_colour_runs_into_its_shadow_is_read_not_called_cocked() -> None:
    """A train photo's translucent die whose body outline runs on into its own shadow, 1.96 die
    sizes long: longer than a die on its edge can be (`OUTLINE_MAX_LONG`), so no side face;
    the outline rule used to flag it, and the die showed no value."""
    item = next(it for it in load_labels(DATA, "train")
                if it.path.name == "IMG_20191208_111548.jpg")
    label = next(d for d in item.dice if d.box == (238, 306, 278, 346))
    image = cv2.imread(str(item.path))
    reader = DiceReader()
    x0, y0, x1, y1 = label.box
    candidate = next(c for c in reader.detect(image) if x0 <= c.cx <= x1 and y0 <= c.cy <= y1)
    long, _ = body_outline(image, candidate.cx, candidate.cy, reader.die_size_px)
    assert OUTLINE_MAX_LONG <= long < OUTLINE_LEAK, long
    got = [r for r in reader.read(image) if x0 <= (r.box[0] + r.box[2]) / 2 <= x1
           and y0 <= (r.box[1] + r.box[3]) / 2 <= y1]
    assert [(r.value, r.cocked) for r in got] == [(label.value, False)], got


def test_two_dice_leaning_on_each_other_are_both_read() -> None:
    """A train photo's 27 px die leaning on a 36 px one: the detector gives the small die a box
    that reaches over the big one's centre, which used to drop the big one unread as its
    duplicate; it is kept aside (`split_duplicates`) and read as the 6 it shows."""
    item = next(it for it in load_labels(DATA, "train")
                if it.path.name == "IMG_20191208_111246.jpg")
    small = next(d for d in item.dice if d.box == (296, 134, 323, 161))
    big = next(d for d in item.dice if d.box == (309, 153, 345, 189))
    readings = DiceReader().read(cv2.imread(str(item.path)))
    got = [(r.value, r.box) for r in readings]
    assert score_image(got, [small]).right == 1 and score_image(got, [big]).right == 1, got


def test_read_dice_returns_readings_matching_the_labels() -> None:
    item = load_labels(DATA, "test")[0]
    readings = read_dice(cv2.imread(str(item.path)))
    assert all(isinstance(r, DieReading) for r in readings)
    assert all(0.0 <= r.confidence <= 1.0 for r in readings)
    score = score_image([(r.value, r.box) for r in readings], item.dice)
    assert score.right >= len(item.dice) - 1, score


def test_a_value_threshold_leaves_only_that_values_unsure_dice_unread() -> None:
    """`value_thresholds` asks more certainty of some values (the table: 4s and 6s, which blur
    confuses): a die of that value read with less is reported unread; others are untouched."""
    item = max(load_labels(DATA, "test"), key=lambda it: len(it.dice))
    image = cv2.imread(str(item.path))
    plain = DiceReader().read(image)
    unsure = min((r for r in plain if r.value is not None), key=lambda r: r.confidence)
    strict = DiceReader(value_thresholds={unsure.value: unsure.confidence + 1e-6}).read(image)
    assert len(strict) == len(plain)
    by_box = {r.box: r for r in strict}
    assert by_box[unsure.box].value is None and by_box[unsure.box].cocked
    for r in plain:
        if r.box != unsure.box and (r.value != unsure.value or r.confidence > unsure.confidence):
            assert by_box[r.box] == r


def test_mask_drops_dice_outside_it() -> None:
    item = max(load_labels(DATA, "test"), key=lambda it: len(it.dice))
    image = cv2.imread(str(item.path))
    mask = image[:, :, 0] * 0
    mask[:, : image.shape[1] // 2] = 255
    readings = DiceReader().read(image, mask)
    left_labels = [d for d in item.dice if (d.box[0] + d.box[2]) / 2 < image.shape[1] // 2 - 25]
    assert readings, "expected dice in the left half"
    assert all((r.box[0] + r.box[2]) / 2 < image.shape[1] // 2 + 1 for r in readings)
    assert len(readings) >= len(left_labels)


@pytest.fixture(scope="module")
def die_crops() -> list:
    """Classifier crops of the labelled dice of one test photo, plus blends of two dice (unsure
    crops: half one value, half another)."""
    item = max(load_labels(DATA, "test"), key=lambda it: len(it.dice))
    image = cv2.imread(str(item.path))
    crops = [
        dm.crop_die(image, (x0 + x1) / 2, (y0 + y1) / 2, dm.crop_side(x1 - x0, y1 - y0))
        for x0, y0, x1, y1 in (d.box for d in item.dice)
    ]
    blends = [cv2.addWeighted(a, 0.5, b, 0.5, 0) for a, b in itertools.pairwise(crops)]
    return crops + blends


@pytest.mark.parametrize("views", [4, 8])
def test_all_views_make_the_reading_independent_of_turns(die_crops, views: int) -> None:
    """Quarter-turns (and with 8 views mirror images) of a crop get the same probabilities."""
    reader = DiceReader(views=views, sure=2.0)
    base = reader.classify(die_crops)
    turned = reader.classify([np.rot90(c) for c in die_crops])
    assert np.allclose(base, turned, atol=1e-5), np.abs(base - turned).max()
    if views == 8:
        mirrored = reader.classify([np.ascontiguousarray(c[:, ::-1]) for c in die_crops])
        assert np.allclose(base, mirrored, atol=1e-5), np.abs(base - mirrored).max()


def test_only_unsure_crops_get_the_extra_views(die_crops) -> None:
    one_view = DiceReader(views=1)
    single = one_view.classify(die_crops)
    sure = single.max(axis=1) >= 0.9
    assert sure.any() and not sure.all(), single.max(axis=1)
    every_view = np.mean(
        [one_view.classify([turned_view(c, view) for c in die_crops]) for view in VIEW_TURNS[8]],
        axis=0,
    )
    got = DiceReader(views=8, sure=0.9).classify(die_crops)
    assert np.allclose(got[sure], single[sure], atol=1e-6)
    assert np.allclose(got[~sure], every_view[~sure], atol=1e-5)


@pytest.mark.parametrize(
    ("setting", "words"),
    [({"views": 3}, "views must be one of"), ({"duplicate_box": 0.0}, "duplicate_box"),
     ({"pair_sure": 1.5}, "pair_sure")],
)
def test_reader_settings_out_of_range_are_rejected_by_name(setting: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        DiceReader(**setting)
