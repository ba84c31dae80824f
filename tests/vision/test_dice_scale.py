"""The scale search of the reader for dice of any size (`vision.dice_scale`), without models:
which level keeps a die of each size, and how one reading per die is chosen."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision import dice_model as dm
from vision.dice import DieReading
from vision.dice_scale import (
    BAND,
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    LARGEST_SHARE,
    SMALLEST_DIE_PX,
    choose,
    conflicts,
    half_turn_agreement,
    in_band,
    photo_die_size,
    pyramid_scales,
    seen_from_above,
    with_second_opinion,
)


def die(cx: float, cy: float, size: float, score: float = 0.9) -> dm.Candidate:
    return dm.Candidate(cx, cy, size, size, score)


def probs(rows: list[tuple[float, int, float]]) -> np.ndarray:
    """Class probabilities from (P(die), value, P(value)) rows, the rest spread evenly."""
    out = np.zeros((len(rows), dm.NUM_CLASSES))
    for k, (p_die, value, p_value) in enumerate(rows):
        out[k, dm.NOT_A_DIE] = 1.0 - p_die
        out[k, value] = p_value
        rest = [c for c in range(1, dm.NUM_CLASSES) if c != value]
        out[k, rest] = max(0.0, p_die - p_value) / len(rest)
    return out


@pytest.mark.parametrize(("height", "width"), [(640, 640), (1080, 1920), (480, 640), (3000, 4000)])
def test_every_die_size_from_the_smallest_to_half_the_picture_has_a_level(height, width) -> None:
    scales = pyramid_scales(height, width)
    assert scales == sorted(scales, reverse=True)
    smallest = max(SMALLEST_DIE_PX, min(height, width) / 80)
    for size in np.geomspace(smallest, LARGEST_SHARE * min(height, width), 60):
        levels = [s for s in scales if in_band(die(0, 0, size), s)]
        assert 1 <= len(levels) <= 2, (size, levels)


def test_a_level_keeps_only_its_own_octave() -> None:
    scale = pyramid_scales(640, 640)[1]
    middle = math.sqrt(BAND[0] * BAND[1]) / scale
    assert in_band(die(0, 0, middle), scale)
    assert not in_band(die(0, 0, middle / 2.5), scale)
    assert not in_band(die(0, 0, middle * 2.5), scale)


def test_pips_inside_a_die_conflict_with_it_but_dice_side_by_side_do_not() -> None:
    big = die(100, 100, 60)
    assert conflicts(die(85, 85, 14), big, 0.8)  # a pip in its corner
    assert conflicts(big, die(115, 115, 14), 0.8)
    assert not conflicts(big, die(160, 100, 60), 0.8)  # a die pressed against it
    assert not conflicts(die(85, 85, 14), die(115, 115, 14), 0.8)  # two pips: each alone


def test_a_two_whose_pips_read_as_ones_at_a_finer_scale_gives_one_reading_of_two() -> None:
    """The issue's failure: at a scale where the die looks four times too big, each pip of a
    2 was a die showing 1. The die's own scale reads it surely, and its box holds both pips'
    centres, so the pips are the die again, not two dice."""
    candidates = [die(100, 100, 60, 0.8), die(82, 82, 15, 0.95), die(118, 118, 15, 0.95)]
    rows = [(0.99, 2, 0.97), (0.8, 1, 0.6), (0.8, 1, 0.6)]
    got = choose(candidates, probs(rows), (640, 640), 0.5, 0.35, 0.8)
    assert [(r.value, r.box) for r in got] == [(2, (70, 70, 130, 130))]


def test_the_same_die_found_at_two_levels_is_read_once_at_the_surer_one() -> None:
    candidates = [die(300, 200, 40, 0.7), die(302, 199, 44, 0.7)]
    got = choose(candidates, probs([(0.95, 3, 0.6), (0.99, 5, 0.98)]), (640, 640), 0.5, 0.35,
                 0.8)
    assert [r.value for r in got] == [5]


def test_a_candidate_that_is_no_die_is_dropped_and_an_unreadable_die_is_reported_unread() -> None:
    candidates = [die(100, 100, 30), die(300, 300, 30), die(500, 500, 30)]
    got = choose(candidates, probs([(0.2, 4, 0.2), (0.9, 6, 0.3), (0.95, 1, 0.9)]), (640, 640),
                 0.5, 0.35, 0.8)
    assert [(r.value, r.cocked, r.box[0]) for r in got] == [(1, False, 485), (None, True, 285)]


def test_boxes_are_clipped_to_the_picture() -> None:
    got = choose([die(5, 630, 30)], probs([(0.99, 2, 0.99)]), (640, 640), 0.5, 0.35, 0.8)
    assert got[0].box == (0, 615, 20, 640)


def test_the_photo_die_size_is_the_median_of_the_dice_read_with_a_value() -> None:
    readings = [DieReading(3, (0, 0, 30, 28), 0.9, False),
                DieReading(5, (100, 100, 134, 140), 0.9, False),  # taller than wide: 40
                DieReading(1, (200, 200, 236, 236), 0.9, False),
                DieReading(None, (300, 300, 400, 400), 0.9, True)]  # unread: not counted
    assert photo_die_size(readings) == 36.0
    assert photo_die_size(readings[3:]) is None
    assert photo_die_size([]) is None


def test_the_surer_classifier_has_the_larger_say_in_the_value() -> None:
    own = probs([(0.9, 3, 0.45), (0.8, 2, 0.8)])
    own[0, 5] = 0.45 - 1e-9  # torn between a 3 and a 5
    second = probs([(1.0, 5, 0.95), (1.0, 6, 0.3)])
    got = with_second_opinion(own, second)
    assert np.argmax(got[:, 1 : dm.COCKED], axis=1).tolist() == [4, 1]  # a 5, a 2
    assert np.allclose(got[:, dm.NOT_A_DIE], own[:, dm.NOT_A_DIE])  # P(die) is its own
    assert np.allclose(got[:, 1 : dm.COCKED].sum(axis=1), [0.9, 0.8])


def test_two_equally_sure_classifiers_give_the_plain_mean() -> None:
    own, second = probs([(1.0, 2, 0.6)]), probs([(1.0, 4, 0.6)])
    got = with_second_opinion(own, second)
    shares = [p[0, 1 : dm.COCKED] / p[0, 1 : dm.COCKED].sum() for p in (own, second)]
    assert np.allclose(got[0, 1 : dm.COCKED], (shares[0] + shares[1]) / 2)


def test_seen_from_above_the_values_are_the_photos_classifiers_alone() -> None:
    own, second = probs([(0.9, 3, 0.89)]), probs([(1.0, 5, 0.5)])
    assert np.argmax(with_second_opinion(own, second)[0, 1 : dm.COCKED]) + 1 == 3
    got = with_second_opinion(own, second, from_above=True)
    assert np.argmax(got[0, 1 : dm.COCKED]) + 1 == 5
    assert np.isclose(got[0, dm.NOT_A_DIE], 0.1)  # P(die) still the any-size classifier's


def test_a_die_that_reads_otherwise_turned_half_a_turn_keeps_its_own_value() -> None:
    """Seen from the side (turned, it reads as another value) the any-size classifier's
    value stands against a surer photos' classifier; seen from above (it reads alike
    turned) the surer one wins as before."""
    own, second = probs([(1.0, 1, 0.6), (1.0, 1, 0.6)]), probs([(1.0, 2, 0.9), (1.0, 2, 0.9)])
    turned = probs([(1.0, 5, 0.95), (1.0, 1, 0.95)])
    agreement = half_turn_agreement(own, turned)
    assert agreement[0] < 0.2 < 0.5 < agreement[1] <= 1.0
    got = with_second_opinion(own, second, agreement=agreement)
    assert (np.argmax(got[:, 1 : dm.COCKED], axis=1) + 1).tolist() == [1, 2]
    assert np.argmax(with_second_opinion(own, second)[0, 1 : dm.COCKED]) + 1 == 2
    above = with_second_opinion(own, second, from_above=True, agreement=np.zeros(2))
    assert (np.argmax(above[:, 1 : dm.COCKED], axis=1) + 1).tolist() == [2, 2]


def test_a_photo_is_seen_from_above_when_five_dice_or_more_are_of_one_size() -> None:
    def dice(sides: list[int]) -> list[DieReading]:
        return [DieReading(1, (100 * k, 0, 100 * k + w, w), 0.9, False)
                for k, w in enumerate(sides)]

    assert seen_from_above(dice([30, 34, 38, 40, 44]))
    assert not seen_from_above(dice([30, 34, 38, 40, 46]))  # nearer dice larger: from the side
    assert not seen_from_above(dice([30, 34, 38, 40]))  # too few to tell
    unread = DieReading(None, (0, 0, 30, 30), 0.9, True)
    assert not seen_from_above([*dice([30, 34, 38, 40]), unread])  # an unread one not counted


@pytest.mark.skipif(not (DETECTOR_FILE.is_file() and CLASSIFIER_FILE.is_file()),
                    reason="vision/models/dice_*_any.onnx missing (tools/train_dice_any_size.py)")
def test_vision_dice_without_a_size_names_a_picture_too_small_for_a_die(tmp_path) -> None:
    import json

    import cv2

    from tests.cli import spieltisch

    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), np.full((12, 40, 3), 128, np.uint8))
    result = spieltisch("vision", "dice", str(path), "--json")
    line = json.loads(result.stdout)
    assert result.returncode == 1
    assert set(line) == {"image", "error"} and "too small" in line["error"], line
