"""Does a die found by the table camera lie flat, or is it cocked? A small network decides.

A die on its edge shows a side face beside its top face; so does a flat die off the lens's axis
(its side faces turned to the camera, see `vision.parallax`). The judge tells the two apart from
a crop `JUDGE_SPAN` die sizes wide around the die, turned so that the side a flat die leans to
lies to the right, plus how far a flat die leans there (a fourth, constant input channel). It
sees the die with its surroundings (a point's tip, a neighbour pressed against it, the board's
colour), which a rule on the body's outline cannot. It is trained on rendered throws by
`tools/train_cocked_judge.py` and read at the table only, where the camera's calibration gives
the die size and the lean; photos of dice of many sizes keep the outline rule (`vision.dice`).
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from vision import dice_model as dm
from vision.parallax import Parallax

JUDGE_FILE = dm.MODEL_DIR / "dice_cocked_table.onnx"
#: Side of the judge's input crop in pixels, and how many die sizes it covers: a die tilted
#: 45° reaches 0.7 die sizes from its centre, its shadow and neighbours a little further.
JUDGE_CROP = 32
JUDGE_SPAN = 2.4
#: Input channels: the crop's B, G, R and the lean plane.
JUDGE_CHANNELS = 4
#: Output classes of the judge.
FLAT, COCKED = 0, 1


def judge_matrix(cx: float, cy: float, die_px: float, lean: tuple[float, float],
                 turn_deg: float = 0.0, mirror: bool = False) -> np.ndarray:
    """Affine map from the image to the judge's crop around (cx, cy), turned so the `lean`
    (pixels, from `Parallax.shift`) points right; `turn_deg` and `mirror` (about the lean's
    axis) are for training's augmentation only."""
    angle = math.degrees(math.atan2(lean[1], lean[0])) + turn_deg
    m = dm.crop_matrix(cx, cy, JUDGE_SPAN * die_px, angle, JUDGE_CROP)
    if mirror:
        m[1] = -m[1]
        m[1, 2] += JUDGE_CROP
    return m


def judge_blob(crops: list[np.ndarray], leans: list[float]) -> np.ndarray:
    """BGR crops and each die's lean in die sizes -> the judge's N x 4 x H x W input."""
    colour = dm.to_blob(crops)
    plane = np.broadcast_to(np.asarray(leans, np.float32)[:, None, None, None],
                            (len(crops), 1, JUDGE_CROP, JUDGE_CROP))
    return np.ascontiguousarray(np.concatenate([colour, plane], axis=1))


class CockedJudge:
    """The judge network, loaded once per reader (OpenCV nets are not thread-safe)."""

    def __init__(self, path: Path = JUDGE_FILE) -> None:
        self._net = dm.load_net_with_outputs(
            path, (1, JUDGE_CHANNELS, JUDGE_CROP, JUDGE_CROP), 2,
            "the judge has two (flat, cocked); train it anew with tools/train_cocked_judge.py")

    def p_cocked(self, image: np.ndarray, centres: list[tuple[float, float]], die_px: float,
                 parallax: Parallax) -> np.ndarray:
        """The probability that the die found at each centre (image pixels) is cocked."""
        if not centres:
            return np.zeros(0)
        crops, leans = [], []
        for cx, cy in centres:
            lean = parallax.shift(cx, cy)
            crops.append(cv2.warpAffine(image, judge_matrix(cx, cy, die_px, lean),
                                        (JUDGE_CROP, JUDGE_CROP), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE))
            leans.append(math.hypot(*lean) / die_px)
        self._net.setInput(judge_blob(crops, leans))
        return dm.softmax(self._net.forward().reshape(len(centres), 2))[:, COCKED]
