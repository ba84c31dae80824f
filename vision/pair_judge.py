"""Is a blurred table die a 4 or a 6, a 2 or a 3? Small networks of their own decide.

At the table camera's scale (13–19 px dice, blurred by up to 3.5 px) some faces blur into
others: a 4 smeared along its pip columns becomes a 6's two bars, and a 2 smeared along its
diagonal takes the 3's centre pip. What tells them apart is faint (a gap in each bar; the
middle of a diagonal a little lighter), and the crop classifier, trained on every value,
photos and rendered dice alike and with blur added on top of the renderer's, weighs it with
about 0.5 either way. A pair judge sees only the two values of its pair, closer (the top face
fills its crop) and at twice the classifier's resolution per die pixel, and is trained on
rendered throws by `tools/train_pair_judge.py`. The reader asks it only for a table die the
classifier reads as one of the pair without being sure, and splits the classifier's
probability of "either of the pair" between the two by the judge's answer
(`vision.dice.DiceReader`). The pairs do not share a value, so a die meets one judge at most.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import dice_model as dm

#: The judged pairs (lower value, higher value) and each one's model file.
PAIR_FILES: dict[tuple[int, int], Path] = {
    (4, 6): dm.MODEL_DIR / "dice_four_six_table.onnx",
    (2, 3): dm.MODEL_DIR / "dice_two_three_table.onnx",
}
#: Side of a judge's input crop in pixels, and how many top-face sizes it covers: the face
#: with a margin for a detector's box a little off.
PAIR_CROP = 32
PAIR_SPAN = 1.2
#: A judge averages its answer over the crop and its quarter-turn: a face's value does not
#: change when it turns. On the 201 dice the 4-or-6 judge was asked for on five clear sets,
#: one, two, four and eight views made the same decisions (one wrong); each view costs about
#: 1.5 ms on one core.
QUARTER_TURNS = (0, 1)


def pair_matrix(cx: float, cy: float, face_px: float, turn_deg: float = 0.0) -> np.ndarray:
    """Affine map from the image to a judge's crop around a top face centred at (cx, cy)
    and `face_px` wide; `turn_deg` is for training's augmentation only."""
    return dm.crop_matrix(cx, cy, PAIR_SPAN * face_px, turn_deg, PAIR_CROP)


def pair_crop(image: np.ndarray, cx: float, cy: float, face_px: float,
              turn_deg: float = 0.0) -> np.ndarray:
    """A judge's view of a top face: a PAIR_CROP square, borders replicated."""
    return cv2.warpAffine(image, pair_matrix(cx, cy, face_px, turn_deg),
                          (PAIR_CROP, PAIR_CROP), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


class PairJudge:
    """One pair's judge network, loaded once per reader (OpenCV nets are not thread-safe)."""

    def __init__(self, pair: tuple[int, int], path: Path | None = None) -> None:
        if pair not in PAIR_FILES:
            raise ValueError(f"no judge for the pair {pair}; judged pairs: {sorted(PAIR_FILES)}")
        self.pair = pair
        path = PAIR_FILES[pair] if path is None else path
        self._net = dm.load_net_with_outputs(
            path, (1, 3, PAIR_CROP, PAIR_CROP), 2,
            f"the judge of {pair[0]} or {pair[1]} has two; train it anew with "
            "tools/train_pair_judge.py")

    def p_higher(self, image: np.ndarray, faces: list[tuple[float, float, float]]) -> np.ndarray:
        """For each top face (centre x, y and width in image pixels) of a die showing one of
        the pair: the probability that it shows the pair's higher value."""
        if not faces:
            return np.zeros(0)
        crops = [pair_crop(image, cx, cy, size) for cx, cy, size in faces]
        views = [np.rot90(c, k) for c in crops for k in QUARTER_TURNS]
        self._net.setInput(dm.to_blob(views))
        p = dm.softmax(self._net.forward().reshape(len(views), 2))[:, 1]
        return p.reshape(len(faces), len(QUARTER_TURNS)).mean(axis=1)
