"""Bad input to the dice reader gets a clear error; odd but valid images are read, not crashed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.dice_requirements import (
    DATA,
    MODELS_MISSING,
    MODELS_PRESENT,
    needs_data,
    needs_model,
)
from vision.cocked_judge import JUDGE_FILE
from vision.dice import DiceInputError, DiceModelError, DiceReader
from vision.dice_eval import load_labels
from vision.dice_model import CLASSIFIER_FILE, DETECTOR_FILE, TABLE_CLASSIFIER_FILE, TABLE_DIE_PX
from vision.pair_judge import PAIR_FILES


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    if not MODELS_PRESENT:
        pytest.skip(MODELS_MISSING)
    return DiceReader()


@pytest.mark.parametrize(
    ("image", "words"),
    [
        ("photo.jpg", "expected an image array, got str"),
        (np.zeros((0, 0, 3), np.uint8), "empty image"),
        (np.zeros((64, 64, 3), np.float32), "8-bit"),
        (np.zeros((64, 64, 2), np.uint8), "shape"),
    ],
)
def test_unusable_images_are_rejected_with_the_reason(reader, image, words: str) -> None:
    with pytest.raises(DiceInputError, match=words):
        reader.read(image)


@pytest.mark.parametrize("shape", [(480, 640), (480, 640, 3), (480, 640, 4)])
def test_plain_grey_image_has_no_dice(reader, shape: tuple[int, ...]) -> None:
    assert reader.read(np.full(shape, 128, np.uint8)) == []


def test_tiny_image_is_read_without_error(reader) -> None:
    assert reader.read(np.full((5, 7, 3), 200, np.uint8)) == []


def test_mask_of_another_size_is_rejected(reader) -> None:
    with pytest.raises(DiceInputError, match="sizes must match"):
        reader.read(np.zeros((64, 64, 3), np.uint8), np.ones((32, 32), np.uint8))


@needs_data
def test_greyscale_photo_still_finds_the_dice(reader) -> None:
    """A camera in grey mode loses the colours but not the dice: every die is still found."""
    item = max(load_labels(DATA, "test"), key=lambda it: len(it.dice))
    grey = cv2.cvtColor(cv2.imread(str(item.path)), cv2.COLOR_BGR2GRAY)
    readings = reader.read(grey)
    assert len(readings) >= 0.9 * len(item.dice)


@needs_data
def test_all_zero_mask_hides_every_die(reader) -> None:
    item = load_labels(DATA, "test")[0]
    image = cv2.imread(str(item.path))
    assert reader.read(image, np.zeros(image.shape[:2], np.uint8)) == []


def test_missing_model_folder_names_the_file(tmp_path) -> None:
    with pytest.raises(DiceModelError, match=r"dice_detector\.onnx"):
        DiceReader(model_dir=tmp_path)


def test_broken_model_file_names_the_file(tmp_path) -> None:
    (tmp_path / DETECTOR_FILE.name).write_bytes(b"not an onnx model")
    (tmp_path / CLASSIFIER_FILE.name).write_bytes(b"not an onnx model")
    with pytest.raises(DiceModelError, match="not a readable ONNX model"):
        DiceReader(model_dir=tmp_path)


@needs_model
def test_small_dice_need_the_table_classifier_and_photos_the_other(tmp_path) -> None:
    """The table camera's dice (narrower than TABLE_DIE_PX) are read by their own classifier
    and judged flat or cocked, and 4 or 6, by their own judges: a folder without them serves
    photos' dice and names the missing file for the table's."""
    for model in (DETECTOR_FILE, CLASSIFIER_FILE):
        (tmp_path / model.name).write_bytes(model.read_bytes())
    assert DiceReader(model_dir=tmp_path, die_size_px=TABLE_DIE_PX).die_size_px == TABLE_DIE_PX
    with pytest.raises(DiceModelError, match=r"dice_classifier_table\.onnx"):
        DiceReader(model_dir=tmp_path, die_size_px=TABLE_DIE_PX - 1)
    (tmp_path / CLASSIFIER_FILE.name).unlink()
    (tmp_path / TABLE_CLASSIFIER_FILE.name).write_bytes(TABLE_CLASSIFIER_FILE.read_bytes())
    with pytest.raises(DiceModelError, match=r"dice_cocked_table\.onnx"):
        DiceReader(model_dir=tmp_path, die_size_px=16.0)
    (tmp_path / JUDGE_FILE.name).write_bytes(JUDGE_FILE.read_bytes())
    for pair_file in PAIR_FILES.values():
        with pytest.raises(DiceModelError, match=pair_file.name.replace(".", r"\.")):
            DiceReader(model_dir=tmp_path, die_size_px=16.0)
        (tmp_path / pair_file.name).write_bytes(pair_file.read_bytes())
    assert DiceReader(model_dir=tmp_path, die_size_px=16.0).die_size_px == 16.0
    with pytest.raises(DiceModelError, match=r"dice_classifier\.onnx"):
        DiceReader(model_dir=tmp_path)


@needs_model
def test_non_positive_die_size_is_rejected() -> None:
    with pytest.raises(ValueError, match="die_size_px"):
        DiceReader(die_size_px=0)


@needs_model
def test_value_thresholds_for_no_die_value_are_rejected() -> None:
    with pytest.raises(ValueError, match=r"die values 1\.\.6"):
        DiceReader(value_thresholds={7: 0.9})
