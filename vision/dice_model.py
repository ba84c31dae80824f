"""The two small networks behind the dice reader, and the tensor layout they share with training.

Stage 1, the *detector*, is a fully convolutional CenterNet-style net run on the photo at half
size: per cell of stride 8 it gives a centre heat-map, a sub-cell offset and the box size.
Stage 2, the *classifier*, looks at a square crop around each candidate at full resolution
(pips can be 5 px wide) and says not-a-die, 1..6 or cocked; dice narrower than `TABLE_DIE_PX`
(the table camera's) go to a classifier of the same shape trained for them. All run through
OpenCV's DNN module from ONNX files in `vision/models/`; `tools/train_dice_model.py` trains
them with PyTorch and imports the constants and helpers below, so training and reading cannot
drift apart.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

MODEL_DIR = Path(__file__).resolve().parent / "models"
DETECTOR_FILE = MODEL_DIR / "dice_detector.onnx"
CLASSIFIER_FILE = MODEL_DIR / "dice_classifier.onnx"
#: The classifier for the table camera's small dice (trained on rendered frames and on the
#: photos shrunk to that scale through the camera's blur, noise and JPEG).
TABLE_CLASSIFIER_FILE = MODEL_DIR / "dice_classifier_table.onnx"
#: Dice narrower than this many pixels are read by the table classifier: the table camera's
#: are 13-19 px wide, the photos' 25-50 px.
TABLE_DIE_PX = 24.0

#: The detector sees the photo at this scale when dice are `REFERENCE_DIE_PX` wide.
DETECTOR_SCALE = 0.5
#: Output cells per input pixel of the detector (three stride-2 convolutions).
DETECTOR_STRIDE = 8
#: Channels of the detector output: heat (logit), offset x, offset y, log width, log height.
DETECTOR_CHANNELS = 5
#: Typical die width in the photos the models were trained on; sizes are regressed relative to it.
REFERENCE_DIE_PX = 40.0
#: Side of the classifier's input crop in pixels.
CROP_SIZE = 40
#: The crop covers this many die sizes, so the whole top face fits even when the box is off.
CROP_CONTEXT = 1.3
#: Classifier classes: index 0 is "not a die", index v is the value v, and `COCKED` a die that
#: shows no single face up (tilted onto an edge, leaning on a checker, the rim or a die).
NOT_A_DIE = 0
COCKED = 7
NUM_CLASSES = 8


class DiceModelError(RuntimeError):
    """The model files are missing or broken; the message names the file."""


def load_net(path: Path) -> cv2.dnn.Net:
    """An ONNX network for OpenCV's DNN module, or a `DiceModelError` naming the file."""
    if not path.is_file():
        raise DiceModelError(f"{path}: model file missing (how to train it: "
                             "vision/models/README.md)")
    try:
        return cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        raise DiceModelError(f"{path}: not a readable ONNX model ({exc})") from exc


def load_net_with_outputs(path: Path, input_shape: tuple[int, ...], outputs: int,
                          expected: str) -> cv2.dnn.Net:
    """`load_net`, then one run on zeros of `input_shape`: a file trained for another job
    (another number of outputs) is refused at start-up, naming the file and `expected` (what
    it should give and how to train it), instead of failing on the first die."""
    net = load_net(path)
    net.setInput(np.zeros(input_shape, np.float32))
    found = net.forward().size
    if found != outputs:
        raise DiceModelError(f"{path}: {found} outputs, {expected}")
    return net


@dataclass(frozen=True, slots=True)
class Candidate:
    """One detector peak, in the coordinates of the original image."""

    cx: float
    cy: float
    width: float
    height: float
    score: float


def to_blob(images: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 images of one size -> float32 NCHW in [-0.5, 0.5], as both nets expect."""
    batch = np.stack(images).astype(np.float32)
    batch *= 1.0 / 255.0
    batch -= 0.5
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def detector_input(image_bgr: np.ndarray, scale: float) -> np.ndarray:
    """Resize by `scale` and pad bottom/right to a multiple of the stride (edge colour)."""
    h, w = image_bgr.shape[:2]
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(image_bgr, (sw, sh), interpolation=cv2.INTER_AREA)
    pw = -sw % DETECTOR_STRIDE
    ph = -sh % DETECTOR_STRIDE
    if pw or ph:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return small


def decode_detections(
    output: np.ndarray,
    scale: float,
    threshold: float,
    secondary: float = 0.5,
    max_candidates: int = 64,
) -> list[Candidate]:
    """Candidates from one detector output (C x H x W), mapped to image pixels.

    Local maxima above `threshold` are candidates, and so is every cell above `secondary`:
    two touching dice have centres in neighbouring cells, and a 3x3 maximum alone would drop
    one of them (the reader later drops a candidate inside an accepted die's box). `scale` is
    the factor the image was resized by before the detector; the size channels are log sizes in
    units of `REFERENCE_DIE_PX` at the detector's own scale over `DETECTOR_SCALE`.
    """
    heat = sigmoid(output[0])
    peaks = heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((peaks & (heat >= threshold)) | (heat >= secondary))
    if len(xs) > max_candidates:
        keep = np.argsort(-heat[ys, xs])[:max_candidates]
        ys, xs = ys[keep], xs[keep]
    size_factor = REFERENCE_DIE_PX * DETECTOR_SCALE / scale
    out = []
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        cx = (x + 0.5 + output[1, y, x]) * DETECTOR_STRIDE / scale
        cy = (y + 0.5 + output[2, y, x]) * DETECTOR_STRIDE / scale
        width = float(np.exp(output[3, y, x])) * size_factor
        height = float(np.exp(output[4, y, x])) * size_factor
        out.append(Candidate(float(cx), float(cy), width, height, float(heat[y, x])))
    return out


def split_duplicates(
    candidates: list[Candidate], shrink: float = 0.8
) -> tuple[list[Candidate], list[Candidate]]:
    """Strongest first: the candidates kept, and those *hidden* by a stronger one.

    A candidate whose centre lies in a stronger one's (shrunk) box is that die again — neighbouring
    cells of one die often both pass the thresholds; a touching die's centre lies outside its
    neighbour's box, so it stays. Dropping them saves classifying the same die twice. But when
    none of the stronger ones has its centre in the candidate's own (shrunk) box, it may be a
    die of its own under the box of a die leaning on it (a small die's box can come out too
    big): it is hidden, not dropped, and the reader lets the classifier say (`DiceReader`).
    """
    kept: list[Candidate] = []
    hidden: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: -c.score):
        covering = [k for k in kept if _centre_in(c, k, shrink)]
        if not covering:
            kept.append(c)
        elif not any(_centre_in(k, c, shrink) for k in covering):
            hidden.append(c)
    return kept, hidden


def _centre_in(c: Candidate, box: Candidate, shrink: float) -> bool:
    """True when `c`'s centre lies in `box`'s box shrunk by `shrink` around its centre."""
    return (abs(c.cx - box.cx) <= shrink * box.width / 2
            and abs(c.cy - box.cy) <= shrink * box.height / 2)


def crop_matrix(cx: float, cy: float, side: float, angle_deg: float = 0.0,
                size: int = CROP_SIZE) -> np.ndarray:
    """Affine map from the image to a `size` square showing `side` pixels around (cx, cy),
    turned by `angle_deg` (the image direction at that angle becomes the crop's right)."""
    s = size / side
    a = np.deg2rad(angle_deg)
    c, n = np.cos(a) * s, np.sin(a) * s
    half = size / 2.0
    return np.array(
        [[c, n, half - c * cx - n * cy], [-n, c, half + n * cx - c * cy]], dtype=np.float64
    )


def crop_die(image_bgr: np.ndarray, cx: float, cy: float, side: float) -> np.ndarray:
    """The classifier's view of a candidate: a CROP_SIZE square, borders replicated."""
    return cv2.warpAffine(
        image_bgr,
        crop_matrix(cx, cy, side),
        (CROP_SIZE, CROP_SIZE),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def crop_side(width: float, height: float) -> float:
    return CROP_CONTEXT * max(width, height)
