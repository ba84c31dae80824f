"""Labelled dice folders and how a reader is scored on them.

A labelled folder holds `labels.json` (a list of `{"image", "split", "dice": [{"value", "box"}]}`,
image paths relative to the folder) and the images. Matching rule: a reading matches a label when
the box IoU is at least 0.5 *or* the reading's box centre lies inside the labelled box; each label
and each reading is used once, best IoU first. A die counts as right only when it is matched and
its value is right (a die labelled `"cocked": true` is right only when read as cocked, value None);
a missed label counts as wrong; an unmatched reading is a false die.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.parallax import Parallax

log = logging.getLogger(__name__)

LABELS_FILE = "labels.json"
#: A prediction whose box overlaps a label at least this much matches it.
MATCH_IOU = 0.5


class LabelError(ValueError):
    """A labelled folder or its `labels.json` is missing or malformed; the message says where."""


@dataclass(frozen=True, slots=True)
class LabelledDie:
    """A labelled die; `cocked` ones (rendered frames) count as right only when read as cocked."""

    value: int
    box: tuple[int, int, int, int]
    cocked: bool = False


@dataclass(frozen=True, slots=True)
class LabelledImage:
    """A labelled picture; `die_px` is a die's width in it and `parallax` the side faces flat
    dice show its camera when the folder says (the renderer knows its camera as a calibration
    would), else None."""

    path: Path
    split: str
    dice: tuple[LabelledDie, ...]
    die_px: float | None = None
    parallax: Parallax | None = None


def default_data_dir() -> Path:
    """Where the repository sees the shared real dice photos (may be absent)."""
    return Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dice-topdown"


def load_labels(folder: Path, split: str | None = None) -> list[LabelledImage]:
    """Read `folder/labels.json`; keep one split if given. Errors name the file and the entry."""
    path = Path(folder) / LABELS_FILE
    if not path.is_file():
        raise LabelError(f"{path}: no such labels file")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(raw, list):
        raise LabelError(f"{path}: expected a list of images, got {type(raw).__name__}")
    images = [_parse_entry(path, i, entry) for i, entry in enumerate(raw)]
    if split is not None:
        images = [im for im in images if im.split == split]
        if not images:
            raise LabelError(f"{path}: no images in split {split!r}")
    return images


def _parse_entry(path: Path, index: int, entry: object) -> LabelledImage:
    where = f"{path} entry {index}"
    if not isinstance(entry, dict) or not isinstance(entry.get("image"), str):
        raise LabelError(f"{where}: needs an object with a string 'image'")
    dice_raw = entry.get("dice")
    if not isinstance(dice_raw, list):
        raise LabelError(f"{where} ({entry['image']}): 'dice' must be a list")
    dice = []
    for j, die in enumerate(dice_raw):
        box = die.get("box") if isinstance(die, dict) else None
        value = die.get("value") if isinstance(die, dict) else None
        if not (isinstance(value, int) and 1 <= value <= 6):
            raise LabelError(f"{where} die {j}: 'value' must be 1..6, got {value!r}")
        if not (
            isinstance(box, list)
            and len(box) == 4
            and all(isinstance(v, int | float) for v in box)
            and box[0] < box[2]
            and box[1] < box[3]
        ):
            raise LabelError(f"{where} die {j}: 'box' must be [x0, y0, x1, y1], got {box!r}")
        cocked = die.get("cocked", False)
        if not isinstance(cocked, bool):
            raise LabelError(f"{where} die {j}: 'cocked' must be true or false, got {cocked!r}")
        dice.append(LabelledDie(value, tuple(round(v) for v in box), cocked))
    die_px = entry.get("die_px")
    if die_px is not None and not (isinstance(die_px, int | float) and die_px > 0):
        raise LabelError(f"{where}: 'die_px' must be a positive number, got {die_px!r}")
    return LabelledImage(path.parent / entry["image"], str(entry.get("split", "")), tuple(dice),
                         None if die_px is None else float(die_px), _parallax(where, entry))


def _parallax(where: str, entry: dict) -> Parallax | None:
    """The entry's camera as `"nadir_px"` [x, y] and `"camera_height_mm"`, if it names one."""
    nadir, height = entry.get("nadir_px"), entry.get("camera_height_mm")
    if nadir is None and height is None:
        return None
    if not (isinstance(nadir, list) and len(nadir) == 2
            and all(isinstance(v, int | float) for v in nadir)):
        raise LabelError(f"{where}: 'nadir_px' must be [x, y], got {nadir!r}")
    if not isinstance(height, int | float):
        raise LabelError(f"{where}: 'camera_height_mm' must be a number, got {height!r}")
    try:
        return Parallax.of_camera((float(nadir[0]), float(nadir[1])), float(height))
    except ValueError as exc:
        raise LabelError(f"{where}: {exc}") from None


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _centre_inside(pred: Sequence[float], box: Sequence[float]) -> bool:
    cx, cy = (pred[0] + pred[2]) / 2, (pred[1] + pred[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


@dataclass(frozen=True, slots=True)
class ImageScore:
    """How one image was read: right, wrong-value, missed (labels) and false (readings)."""

    right: int
    wrong_value: int
    missed: int
    false_dice: int

    @property
    def labels(self) -> int:
        return self.right + self.wrong_value + self.missed

    @property
    def all_right(self) -> bool:
        return self.right == self.labels and self.false_dice == 0


def score_image(
    predictions: Sequence[tuple[int | None, Sequence[float]]], labels: Sequence[LabelledDie]
) -> ImageScore:
    """Match (value, box) readings to labels (see module doc) and count the outcomes."""
    pairs = []
    for i, (_, pbox) in enumerate(predictions):
        for j, lab in enumerate(labels):
            overlap = iou(pbox, lab.box)
            if overlap >= MATCH_IOU or _centre_inside(pbox, lab.box):
                pairs.append((overlap, i, j))
    pairs.sort(reverse=True)
    used_p: set[int] = set()
    used_l: set[int] = set()
    right = wrong = 0
    for _, i, j in pairs:
        if i in used_p or j in used_l:
            continue
        used_p.add(i)
        used_l.add(j)
        expected = None if labels[j].cocked else labels[j].value
        if predictions[i][0] == expected:
            right += 1
        else:
            wrong += 1
    return ImageScore(right, wrong, len(labels) - len(used_l), len(predictions) - len(used_p))


@dataclass(slots=True)
class EvalReport:
    """Totals over a labelled folder; `failures` names the images not read entirely right."""

    images: int = 0
    dice: int = 0
    right: int = 0
    wrong_value: int = 0
    missed: int = 0
    false_dice: int = 0
    images_all_right: int = 0
    ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def die_accuracy(self) -> float:
        return self.right / self.dice if self.dice else 1.0

    @property
    def image_accuracy(self) -> float:
        return self.images_all_right / self.images if self.images else 1.0

    @property
    def false_per_image(self) -> float:
        return self.false_dice / self.images if self.images else 0.0

    @property
    def ms_median(self) -> float:
        return float(np.median(self.ms)) if self.ms else 0.0

    def add(self, name: str, score: ImageScore, ms: float) -> None:
        self.images += 1
        self.dice += score.labels
        self.right += score.right
        self.wrong_value += score.wrong_value
        self.missed += score.missed
        self.false_dice += score.false_dice
        self.images_all_right += score.all_right
        self.ms.append(ms)
        if not score.all_right:
            self.failures.append(name)

    def as_dict(self) -> dict[str, object]:
        return {
            "images": self.images,
            "dice": self.dice,
            "right": self.right,
            "wrong_value": self.wrong_value,
            "missed": self.missed,
            "false_dice": self.false_dice,
            "die_accuracy": round(self.die_accuracy, 4),
            "false_per_image": round(self.false_per_image, 4),
            "image_accuracy": round(self.image_accuracy, 4),
            "ms_per_image": round(self.ms_median, 3),
            "failures": self.failures,
        }


Reader = Callable[[np.ndarray], Sequence[tuple[int | None, Sequence[float]]]]


def evaluate(read: Reader, images: Sequence[LabelledImage],
             report: EvalReport | None = None) -> EvalReport:
    """Run `read` (BGR image -> [(value, box)]) on each labelled image and total the scores
    (added to `report` when given: one report over images read with different readers).

    An image that cannot be read from disk raises `LabelError` naming it: an evaluation that
    silently skipped images would report a better accuracy than the truth.
    """
    import cv2

    report = report if report is not None else EvalReport()
    for item in images:
        image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if image is None:
            raise LabelError(f"{item.path}: missing or not an image")
        start = time.perf_counter()
        predictions = read(image)
        ms = (time.perf_counter() - start) * 1000.0
        report.add(item.path.name, score_image(predictions, item.dice), ms)
    return report
