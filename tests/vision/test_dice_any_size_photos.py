"""The reader for dice of any size (`vision.dice_scale`, issue 27) on the real photo sets:
their held-out `test` splits as `vision eval` without `--die-size` reads them, and one die read
once whatever its size in the picture."""

from __future__ import annotations

import cv2
import pytest

from vision.dice_eval import default_data_dir, evaluate, load_labels, score_image
from vision.dice_scale import CLASSIFIER_FILE, DETECTOR_FILE, AnySizeDiceReader

SETS = default_data_dir().parent
OBLIQUE, TOPDOWN, WEBCAM = (SETS / name for name in ("dice-oblique", "dice-topdown",
                                                      "dice-webcam-wood"))

pytestmark = [
    pytest.mark.skipif(not all((d / "labels.json").is_file() for d in (OBLIQUE, TOPDOWN, WEBCAM)),
                       reason=f"real dice photo sets (shared/data/dice-oblique, dice-topdown, "
                              f"dice-webcam-wood) not found in {SETS}"),
    pytest.mark.skipif(not (DETECTOR_FILE.is_file() and CLASSIFIER_FILE.is_file()),
                       reason="vision/models/dice_*_any.onnx missing "
                              "(tools/train_dice_any_size.py)"),
]


@pytest.fixture(scope="module")
def reader() -> AnySizeDiceReader:
    return AnySizeDiceReader()


def split_report(reader: AnySizeDiceReader, folder):
    """What `vision eval FOLDER --split test --json` (no size given) reports."""
    return evaluate(lambda im: [(d.value, d.box) for d in reader.read(im)],
                    load_labels(folder, "test"))


def photo(folder, name: str):
    item = next(it for it in load_labels(folder, "train") if it.path.name == name)
    return cv2.imread(str(item.path)), item.dice


@pytest.mark.parametrize("factor", [0.25, 0.5, 1.0])
@pytest.mark.parametrize(("name", "shows"), [("train_dice_106.jpg", "a 2 seen from the side: "
                                                                       "two side faces show 3 "
                                                                       "and 2 pips"),
                                              ("train_dice_71.jpg", "a 2 on a 3 on a 5")])
def test_a_tilted_two_is_one_die_showing_two_at_every_size(reader, name: str, shows: str,
                                                            factor: float) -> None:
    """A single white die photographed from the side, the picture shrunk so the die is
    25-180 px wide: one reading, the top face's 2 — not two 1s (its pips), not a die per
    side face. (Train photos: the models saw them, at random scales.)"""
    image, labels = photo(OBLIQUE, name)
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    got = reader.read(small)
    assert [d.value for d in got] == [2], (shows, got)
    assert score_image([(d.value, d.box) for d in got],
                       [type(d)(d.value, tuple(round(v * factor) for v in d.box)) for d in labels]
                       ).right == 1


@pytest.mark.parametrize("factor", [0.2, 0.4, 1.0])
def test_two_dice_of_a_webcam_frame_are_read_once_each_at_every_size(reader, factor) -> None:
    """A 1920x1080 webcam frame (two 2s, 80 px wide) shrunk so the dice are 16-80 px wide."""
    image, labels = photo(WEBCAM, "WIN_20221211_13_07_30_Pro.jpg")
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    got = reader.read(small)
    scaled = [type(d)(d.value, tuple(round(v * factor) for v in d.box)) for d in labels]
    assert score_image([(d.value, d.box) for d in got], scaled).all_right, got


@pytest.mark.parametrize("name", ["IMG_20191208_112025.jpg", "IMG_20191208_112332.jpg"])
def test_the_second_pass_at_the_photos_die_size_finds_dice_the_pyramid_missed(reader,
                                                                              name) -> None:
    """Top-down tray photos (7 and 25 dice) where every pyramid level boxed a die too small
    to read it: the sized detector run once more at the photo's median die size finds it.
    (Train photos: the models saw them.)"""
    image, labels = photo(TOPDOWN, name)
    first_pass_only = AnySizeDiceReader(second_pass_p_die=None).read(image)
    assert score_image([(d.value, d.box) for d in first_pass_only], labels).missed >= 1
    got = reader.read(image)
    assert score_image([(d.value, d.box) for d in got], labels).all_right, got


@pytest.mark.parametrize(("folder", "name"), [(OBLIQUE, "train_dice_256.jpg"),
                                             (TOPDOWN, "IMG_20191209_100026.jpg")])
def test_the_detector_at_the_photos_die_size_finds_dice_its_pyramid_missed(reader, folder,
                                                                           name) -> None:
    """Photos (2 oblique dice; 4 top-down) where a die sits between two pyramid levels and the
    sized detector's second pass misses it too: the any-size detector run once more at the
    photo's median die size finds it. (Train photos: the models saw them.)"""
    image, labels = photo(folder, name)
    without = AnySizeDiceReader(own_level=False).read(image)
    assert score_image([(d.value, d.box) for d in without], labels).missed >= 1
    got = reader.read(image)
    assert score_image([(d.value, d.box) for d in got], labels).all_right, got


def test_a_part_of_an_oblique_die_just_outside_its_shrunk_box_is_no_die_of_its_own(
        reader) -> None:
    """15 dice seen from the side: one die's part, read at another level, has its centre
    outside the die's box shrunk to 0.8 but inside it shrunk to 0.9 (`OVERLAP`): one false
    die with the sized reader's 0.8, none with the reader's own. (Train photo: the models saw
    it.)"""
    image, labels = photo(OBLIQUE, "train_dice_414.jpg")
    at_08 = AnySizeDiceReader(overlap=0.8).read(image)
    assert score_image([(d.value, d.box) for d in at_08], labels).false_dice >= 1
    got = reader.read(image)
    assert score_image([(d.value, d.box) for d in got], labels).all_right, got


def test_vision_dice_without_a_size_reads_a_webcam_frame_as_its_two_dice() -> None:
    """The issue's command on a 1920x1080 webcam frame, no `--die-size`: it used to read it
    as if its 80 px dice were 40 px wide, a pip group a die (13.7 false dice a frame)."""
    import json

    from tests.cli import spieltisch

    item = next(it for it in load_labels(WEBCAM, "train")
                if it.path.name == "WIN_20221211_13_07_30_Pro.jpg")
    result = spieltisch("vision", "dice", str(item.path), "--json")
    assert result.returncode == 0, result.stderr
    dice = json.loads(result.stdout)["dice"]
    assert score_image([(d["value"], d["box"]) for d in dice], item.dice).all_right, dice


# Measured 2026-12-04, version 7 (docs/vision-dice.md, "Results"), each pinned a die or so
# below: oblique 471 of 584 right (80.7 %), 27 false dice in 126 photos (version 5: 463 and
# 26); webcam 20 of 20, none false in 10; top-down 299 of 308 (97.1 %), 1 false in 50. Issue
# 27 asks 97 % and 0.1 false dice a photo on the oblique photos and no worse than the sized
# reader's 99.0 % on the top-down ones: both not met yet; these pin what is reached so it
# cannot slip.
@pytest.mark.parametrize(("folder", "per_die", "false_per_photo"),
                         [(OBLIQUE, 0.80, 0.225), (WEBCAM, 0.95, 0.1), (TOPDOWN, 0.965, 0.04)],
                         ids=["oblique", "webcam", "topdown"])
def test_test_split_read_without_a_size(reader, folder, per_die: float,
                                        false_per_photo: float) -> None:
    report = split_report(reader, folder)
    assert report.die_accuracy >= per_die, report.as_dict()
    assert report.false_per_image <= false_per_photo, report.as_dict()
