"""Is a blurred table die a 4 or a 6? A small network of its own decides.

At the table camera's scale (13–19 px dice, blurred by up to 3.5 px) a 4 blurred along its pip
columns smears into two bars, as a 6 does; what tells them apart is a faint gap in the middle
of each bar, which the crop classifier (trained on every value, photos and rendered dice alike)
weighs with about 0.5 either way. This judge sees only 4s and 6s, closer (the top face fills
its crop) and at twice the classifier's resolution per die pixel, and is trained on rendered
throws by `tools/train_four_six_judge.py`. The reader asks it only for a table die the
classifier reads as a 4 or a 6 without being sure, and splits the classifier's probability of
"4 or 6" between the two by the judge's answer (`vision.dice.DiceReader`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import dice_model as dm

FOUR_SIX_FILE = dm.MODEL_DIR / "dice_four_six_table.onnx"
#: Side of the judge's input crop in pixels, and how many top-face sizes it covers: the face
#: with a margin for a detector's box a little off.
FOUR_SIX_CROP = 32
FOUR_SIX_SPAN = 1.2
#: Output classes of the judge.
FOUR, SIX = 0, 1
#: The judge averages its answer over the crop and its quarter-turn: a face's value does not
#: change when it turns. On the 201 dice it was asked for on five clear sets, one, two, four and
#: eight views made the same decisions (one wrong); each view costs about 1.5 ms on one core.
VIEWS = ((0, False), (1, False))


def four_six_matrix(cx: float, cy: float, face_px: float, turn_deg: float = 0.0) -> np.ndarray:
    """Affine map from the image to the judge's crop around a top face centred at (cx, cy)
    and `face_px` wide; `turn_deg` is for training's augmentation only."""
    return dm.crop_matrix(cx, cy, FOUR_SIX_SPAN * face_px, turn_deg, FOUR_SIX_CROP)


def four_six_crop(image: np.ndarray, cx: float, cy: float, face_px: float,
                  turn_deg: float = 0.0) -> np.ndarray:
    """The judge's view of a top face: a FOUR_SIX_CROP square, borders replicated."""
    return cv2.warpAffine(image, four_six_matrix(cx, cy, face_px, turn_deg),
                          (FOUR_SIX_CROP, FOUR_SIX_CROP), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


class FourSixJudge:
    """The judge network, loaded once per reader (OpenCV nets are not thread-safe)."""

    def __init__(self, path: Path = FOUR_SIX_FILE) -> None:
        self._net = dm.load_net(path)
        self._net.setInput(np.zeros((1, 3, FOUR_SIX_CROP, FOUR_SIX_CROP), np.float32))
        outputs = self._net.forward().size
        if outputs != 2:
            raise dm.DiceModelError(f"{path}: {outputs} outputs, the judge has two (4, 6); "
                                    "train it anew with tools/train_four_six_judge.py")

    def p_six(self, image: np.ndarray, faces: list[tuple[float, float, float]]) -> np.ndarray:
        """For each top face (centre x, y and width in image pixels) of a die showing a 4 or
        a 6: the probability that it is a 6."""
        if not faces:
            return np.zeros(0)
        crops = [four_six_crop(image, cx, cy, size) for cx, cy, size in faces]
        views = [np.rot90(c[:, ::-1] if m else c, k) for c in crops for k, m in VIEWS]
        self._net.setInput(dm.to_blob(views))
        p = dm.softmax(self._net.forward().reshape(len(views), 2))[:, SIX]
        return p.reshape(len(faces), len(VIEWS)).mean(axis=1)
