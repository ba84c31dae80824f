"""Reading dice from a top-down photo or camera frame.

`DiceReader.read` finds dice with a small centre-heat-map detector and reads each one with a crop
classifier (see `vision.dice_model`); `read_dice` uses one default reader loaded on first use.
A die that is found but whose face cannot be read with confidence, or whose box is far from
square (a die leaning on another or on its edge shows a side face), is reported as *cocked*:
`value=None, cocked=True`, so the referee asks for a re-roll instead of guessing.

A reader holds OpenCV DNN networks, which are not thread-safe: use one reader per thread.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import dice_model as dm

log = logging.getLogger(__name__)


class DiceInputError(ValueError):
    """The image or mask handed to the reader cannot be read; the message says what is wrong."""


class DiceModelError(RuntimeError):
    """The model files are missing or broken; the message names the file."""


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: its value (None when cocked), box (x0, y0, x1, y1) in pixels and confidence."""

    value: int | None
    box: tuple[int, int, int, int]
    confidence: float
    cocked: bool

    def to_json(self) -> dict[str, object]:
        return {
            "value": self.value,
            "box": list(self.box),
            "confidence": round(self.confidence, 4),
            "cocked": self.cocked,
        }


class DiceReader:
    """Finds and reads the dice in BGR images; construct once, call `read` per frame.

    `die_size_px` is the expected die width in the images (the models were trained on ~40 px
    dice; other sizes are rescaled for the detector). Thresholds: `detect_threshold` on the
    detector's heat, `die_threshold` on the classifier's probability that a crop is a die,
    `read_threshold` on the probability of the best value (below it the die counts as cocked),
    `max_aspect` on the box's long/short side ratio (above it, cocked). `views` (1, 2 or 4)
    averages the classifier over that many quarter-turns of each crop: steadier, but slower.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        die_size_px: float = dm.REFERENCE_DIE_PX,
        detect_threshold: float = 0.15,
        die_threshold: float = 0.5,
        read_threshold: float = 0.35,
        max_aspect: float = 1.5,
        views: int = 1,
    ) -> None:
        folder = Path(model_dir) if model_dir is not None else dm.MODEL_DIR
        self._detector = _load_net(folder / dm.DETECTOR_FILE.name)
        self._classifier = _load_net(folder / dm.CLASSIFIER_FILE.name)
        if die_size_px <= 0:
            raise ValueError(f"die_size_px must be positive, got {die_size_px}")
        self.scale = dm.DETECTOR_SCALE * dm.REFERENCE_DIE_PX / die_size_px
        self.detect_threshold = detect_threshold
        self.die_threshold = die_threshold
        self.read_threshold = read_threshold
        self.max_aspect = max_aspect
        if views not in (1, 2, 4):
            raise ValueError(f"views must be 1, 2 or 4, got {views}")
        self.views = views

    def read(self, image_bgr: np.ndarray, mask: np.ndarray | None = None) -> list[DieReading]:
        """The dice in the image, highest confidence first.

        `mask` (same height and width, non-zero where dice may lie) drops dice whose centre
        falls outside it, e.g. outside the board's dice area.
        """
        image = _as_bgr(image_bgr)
        if mask is not None:
            mask = np.asarray(mask)
            if mask.shape[:2] != image.shape[:2]:
                raise DiceInputError(
                    f"mask is {mask.shape[:2]}, image is {image.shape[:2]}: sizes must match"
                )
        candidates = self.detect(image) if mask is None else self._detect_in_mask(image, mask)
        if not candidates:
            return []
        crops = [
            dm.crop_die(image, c.cx, c.cy, dm.crop_side(c.width, c.height)) for c in candidates
        ]
        turns = (0, 2, 1, 3)[: self.views]
        batch = [np.rot90(crop, k) for k in turns for crop in crops]
        self._classifier.setInput(dm.to_blob(batch))
        logits = self._classifier.forward().reshape(self.views, len(crops), dm.NUM_CLASSES)
        probs = dm.softmax(logits).mean(axis=0)
        return self._choose(image.shape[:2], candidates, probs)

    def detect(self, image: np.ndarray) -> list[dm.Candidate]:
        """Stage 1 alone: the detector's candidates in a BGR image, before any are rejected."""
        small = dm.detector_input(image, self.scale)
        self._detector.setInput(dm.to_blob([small]))
        out = self._detector.forward()[0]
        return dm.drop_duplicates(dm.decode_detections(out, self.scale, self.detect_threshold))

    def _detect_in_mask(self, image: np.ndarray, mask: np.ndarray) -> list[dm.Candidate]:
        """Run the detector only on the mask's bounding box (plus a die of margin)."""
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            return []
        h, w = image.shape[:2]
        margin = round(dm.REFERENCE_DIE_PX * dm.DETECTOR_SCALE / self.scale)
        x0, y0 = max(0, int(xs.min()) - margin), max(0, int(ys.min()) - margin)
        x1, y1 = min(w, int(xs.max()) + 1 + margin), min(h, int(ys.max()) + 1 + margin)
        found = self.detect(image[y0:y1, x0:x1])
        return [
            dm.Candidate(c.cx + x0, c.cy + y0, c.width, c.height, c.score)
            for c in found
            if mask[min(h - 1, max(0, int(c.cy + y0))), min(w - 1, max(0, int(c.cx + x0)))]
        ]

    def _choose(
        self, shape: tuple[int, int], candidates: list[dm.Candidate], probs: np.ndarray
    ) -> list[DieReading]:
        """Keep the crops that are dice, strongest first; one reading per die."""
        h, w = shape
        p_die = 1.0 - probs[:, dm.NOT_A_DIE]
        order = np.argsort(-(p_die * np.array([c.score for c in candidates])))
        kept: list[DieReading] = []
        for i in order.tolist():
            c = candidates[i]
            if p_die[i] < self.die_threshold:
                continue
            if any(_inside(c.cx, c.cy, r.box) for r in kept):
                continue
            box = (
                max(0, round(c.cx - c.width / 2)),
                max(0, round(c.cy - c.height / 2)),
                min(w, round(c.cx + c.width / 2)),
                min(h, round(c.cy + c.height / 2)),
            )
            value = int(np.argmax(probs[i, 1:])) + 1
            p_value = float(probs[i, value])
            aspect = max(c.width, c.height) / max(1e-6, min(c.width, c.height))
            if p_value < self.read_threshold or aspect > self.max_aspect:
                kept.append(DieReading(None, box, float(p_die[i]), True))
            else:
                kept.append(DieReading(value, box, p_value, False))
        kept.sort(key=lambda r: -r.confidence)
        return kept


def _inside(x: float, y: float, box: tuple[int, int, int, int]) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _load_net(path: Path) -> cv2.dnn.Net:
    if not path.is_file():
        raise DiceModelError(f"{path}: model file missing (train with tools/train_dice_model.py)")
    try:
        net = cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        raise DiceModelError(f"{path}: not a readable ONNX model ({exc})") from exc
    return net


def _as_bgr(image: object) -> np.ndarray:
    """Accept BGR, BGRA or grey uint8 images; anything else is a clear error."""
    if not isinstance(image, np.ndarray):
        raise DiceInputError(f"expected an image array, got {type(image).__name__}")
    if image.size == 0:
        raise DiceInputError(f"empty image (shape {image.shape})")
    if image.dtype != np.uint8:
        raise DiceInputError(f"expected 8-bit pixels, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise DiceInputError(f"expected a BGR, BGRA or grey image, got shape {image.shape}")


@functools.cache
def default_reader() -> DiceReader:
    """The reader `read_dice` uses, loaded once from `vision/models/`."""
    return DiceReader()


def read_dice(image_bgr: np.ndarray) -> list[DieReading]:
    """Read the dice in one image with the default reader (see `DiceReader.read`)."""
    return default_reader().read(image_bgr)
