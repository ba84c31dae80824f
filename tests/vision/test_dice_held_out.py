"""`tools/dice_held_out.py`: the held-out part of the photo sets' train splits that the reader
without a size is tuned on (docs/vision-dice.md, "Acceptance criterion")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import dice_held_out

from vision.dice_eval import load_labels


def test_every_fifth_item_from_the_first_is_held_out_and_the_rest_are_not() -> None:
    items = list(range(12))
    held = dice_held_out.split_part(items, "held")
    rest = dice_held_out.split_part(items, "rest")
    assert held == [0, 5, 10]
    assert sorted(held + rest) == items and not set(held) & set(rest)
    with pytest.raises(ValueError):
        dice_held_out.split_part(items, "test")


@pytest.mark.skipif(not (dice_held_out.DATA_ROOT / "dice-webcam-wood" / "labels.json").is_file(),
                    reason=f"real dice photo sets not found in {dice_held_out.DATA_ROOT}")
def test_the_held_out_parts_are_the_documented_photos(capsys) -> None:
    """59 oblique photos, 40 top-down, 8 webcam frames (docs/vision-dice.md); the report
    reads only train photos and names the set and the part."""
    counts = {name: dice_held_out.split_part(load_labels(dice_held_out.DATA_ROOT / name,
                                                         "train"), "held")
              for name in dice_held_out.SETS}
    assert {name: len(items) for name, items in counts.items()} == {
        "dice-oblique": 59, "dice-topdown": 40, "dice-webcam-wood": 8}
    assert all(item.split == "train" for items in counts.values() for item in items)
    assert dice_held_out.main(["dice-webcam-wood"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dice-webcam-wood held: ") and " of 16 right" in out
