"""Report the reader without a size on the held-out part of the photo sets' train splits.

Settings of `vision.dice_scale` are chosen on this part (every fifth train photo of each set,
index % 5 == 0 in `labels.json` order; docs/vision-dice.md, "Acceptance criterion"), never on
the test splits. Usage:

    .venv/bin/python tools/dice_held_out.py [--part held|rest] [--data DIR] [SET...]

`--part rest` reads the other train photos instead (the models saw them in training: a
check, not a choosing set). Prints one line per set: right of labelled, wrong values, missed,
false dice and photos. Needs no PyTorch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.dice_eval import evaluate, load_labels

SETS = ("dice-oblique", "dice-topdown", "dice-webcam-wood")
DATA_ROOT = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
#: Every this-many-th train photo (from the first) is held out.
EVERY = 5

T = TypeVar("T")


def split_part(items: Sequence[T], part: str, every: int = EVERY) -> list[T]:
    """The held-out items (index % every == 0) or, for "rest", the others, in order."""
    if part not in ("held", "rest"):
        raise ValueError(f"part must be 'held' or 'rest', got {part!r}")
    return [it for i, it in enumerate(items) if (i % every == 0) == (part == "held")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=list(SETS), metavar="SET")
    parser.add_argument("--part", choices=("held", "rest"), default="held")
    parser.add_argument("--data", type=Path, default=DATA_ROOT,
                        help="folder holding the photo sets")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    from vision.dice_scale import AnySizeDiceReader

    reader = AnySizeDiceReader()
    for name in args.sets:
        items = split_part(load_labels(args.data / name, "train"), args.part)
        report = evaluate(lambda im: [(d.value, d.box) for d in reader.read(im)], items)
        print(f"{name} {args.part}: {report.right} of {report.dice} right "
              f"({report.die_accuracy:.2%}), {report.wrong_value} wrong value, "
              f"{report.missed} missed, {report.false_dice} false in {report.images} photos",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
