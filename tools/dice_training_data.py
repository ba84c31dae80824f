"""The dice models' training data: train photos and rendered throws as `Sample`s, and the
augmented detector inputs and classifier crops cut from them.

Split from `tools/train_dice_model.py` (which trains and exports the networks) so each module
stays readable; the judges' and the any-size trainers draw their data from here too. Needs
no PyTorch.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision import dice_model as dm
from vision.dice_eval import load_labels
from vision.parallax import Parallax

#: Where the detector found a die: centre x, y, box size, the die's label (`dm.COCKED`, 1..6).
View = tuple[float, float, float, int]


class Sample:
    """One train image at full size and at the detector's scale, with its labelled dice.

    `die_px` is the image's typical die width: the detector sees the image rescaled so that
    dice are as wide as in the photos at `DETECTOR_SCALE`, exactly as `DiceReader` does.
    `faces` are the boxes the classifier's crops are cut around: for rendered frames each
    die's top face as the reader at the table estimates it (`vision.dice.top_face`), else the
    die's box.
    """

    def __init__(self, image: np.ndarray, boxes: np.ndarray, values: np.ndarray,
                 cocked: np.ndarray | None = None, die_px: float = dm.REFERENCE_DIE_PX,
                 faces: np.ndarray | None = None, parallax: Parallax | None = None) -> None:
        self.image = image
        self.die_px = die_px
        #: the rendering camera's parallax, in this image's pixels (None for photos)
        self.parallax = parallax
        self.det_scale = dm.DETECTOR_SCALE * dm.REFERENCE_DIE_PX / die_px
        self.small = cv2.resize(image, None, fx=self.det_scale, fy=self.det_scale,
                                interpolation=cv2.INTER_AREA)
        self.boxes = boxes.astype(np.float32).reshape(-1, 4)
        self.faces = self.boxes if faces is None else faces.astype(np.float32).reshape(-1, 4)
        self.values = values
        self.cocked = cocked if cocked is not None else np.zeros(len(values), bool)
        #: dice the classifier may learn a value from (all but those shrunk past reading)
        self.readable = np.ones(len(values), bool)
        self.hard_negatives: list[tuple[float, float, float]] = []
        #: where the detector finds the cocked dice (mostly one face of each) and the flat ones
        #: (a face off the centre too), as views (centre, size, label)
        self.cocked_views: list[View] = []
        self.flat_views: list[View] = []


def load_samples(data: Path, val_every: int) -> tuple[list[Sample], list]:
    items = load_labels(data, "train")
    train, val = [], []
    for i, item in enumerate(items):
        if val_every and i % val_every == 0:
            val.append(item)
            continue
        image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        boxes = np.array([d.box for d in item.dice], np.float32).reshape(-1, 4)
        values = np.array([d.value for d in item.dice], np.int64)
        train.append(Sample(image, boxes, values))
    return train, val


def render_samples(count: int, seed: int, touching: float = 0.0) -> list[Sample]:
    """Frames from the project's renderer (both boards, some dice cocked): the only source of
    cocked dice, and of the table's own look (board, checkers, pieces) for the detector."""
    rng = np.random.default_rng(seed)
    samples = []
    for i in range(count):
        image, boxes, values, cocked, faces, die_px, parallax = _render_throw(
            rng, i, seed * 100_003 + i, touching)
        samples.append(Sample(image, boxes, values, cocked, die_px=die_px, faces=faces,
                              parallax=parallax))
    return samples


#: A rendered throw: image, dice boxes, values, cocked flags, top faces, die width in pixels,
#: the camera's parallax.
Throw = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float, Parallax]


def _render_throw(rng: np.random.Generator, i: int, frame_seed: int,
                  touching: float = 0.0) -> Throw:
    """A random position of one board (alternating with `i`), 35 % of dice cocked, with
    probability `touching` the dice pressed face to face, rendered; each die's top face as the
    reader at the table estimates it from its box. (No draw for `touching` when it is 0, so
    the commands of earlier steps render the same throws.)"""
    from vision.dice import top_face
    from vision.render_board import DIE_SIZE_MM
    from vision.render_dataset import random_scene
    from vision.renderer import render

    game = ("backgammon", "maedn")[i % 2]
    scene = random_scene(rng, game, players=int(rng.integers(2, 5)), cocked=0.35)
    if touching and rng.random() < touching:
        scene = dataclasses.replace(scene, touching=True)
    frame = render(scene, frame_seed)
    boxes = np.array(frame.dice_boxes, np.float32)
    parallax = frame.camera.parallax()
    faces = boxes.copy()
    for j, (x0, y0, x1, y1) in enumerate(boxes.tolist()):
        cx, cy, fw, fh = top_face((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, parallax)
        faces[j] = (cx - fw / 2, cy - fh / 2, cx + fw / 2, cy + fh / 2)
    values = np.array([d.value for d in frame.dice], np.int64)
    cocked = np.array([d.cocked for d in frame.dice], bool)
    return (frame.image, boxes, values, cocked, faces, DIE_SIZE_MM * frame.camera.px_per_mm,
            parallax)


def _dice_patch(job: tuple[int, int, float]) -> Throw:
    """One rendered throw cut to its dice and two die sizes around them (a worker's job)."""
    seed, i, touching = job
    rng = np.random.default_rng([seed, i])
    image, boxes, values, cocked, faces, die_px, parallax = _render_throw(
        rng, i, seed * 1_000_003 + i, touching)
    h, w = image.shape[:2]
    x0 = max(0, int(boxes[:, 0].min() - 2 * die_px))
    y0 = max(0, int(boxes[:, 1].min() - 2 * die_px))
    x1 = min(w, int(boxes[:, 2].max() + 2 * die_px))
    y1 = min(h, int(boxes[:, 3].max() + 2 * die_px))
    image = image[y0:y1, x0:x1].copy()
    if rng.random() < 0.5:  # stored as the dataset writer stores frames
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1],
                             cv2.IMREAD_COLOR)
    shift = np.array([x0, y0, x0, y0], np.float32)
    nadir = (parallax.nadir[0] - x0, parallax.nadir[1] - y0)
    return (image, boxes - shift, values, cocked, faces - shift, die_px,
            Parallax(nadir, parallax.ratio))


def render_patches(count: int, seed: int, workers: int, touching: float = 0.0) -> list[Sample]:
    """Many more rendered dice than `render_samples` can hold whole frames of: each frame is
    kept only around its dice, so thousands of throws (every blur, camera and light) fit."""
    from multiprocessing import Pool

    jobs = [(seed, i, touching) for i in range(count)]
    with Pool(workers) as pool:
        parts = pool.map(_dice_patch, jobs, chunksize=16)
    return [Sample(image, boxes, values, cocked, die_px=die_px, faces=faces, parallax=parallax)
            for image, boxes, values, cocked, faces, die_px, parallax in parts]


def table_scale_photos(photos: list[Sample], copies: int, seed: int) -> list[Sample]:
    """Real dice as the table camera sees them: each train photo shrunk so its median die is
    13-19 px wide, then blurred, noised and JPEG-compressed as the renderer's camera does.
    The photos' dice differ in size; those shrunk below 12.5 px teach no value."""
    from vision.renderer import blur_noise_jpeg

    rng = np.random.default_rng(seed)
    out = []
    for s in photos:
        if not len(s.boxes):
            continue
        sizes = np.maximum(s.boxes[:, 2] - s.boxes[:, 0], s.boxes[:, 3] - s.boxes[:, 1])
        for _ in range(copies):
            target = rng.uniform(13.0, 19.0)
            k = target / float(np.median(sizes))
            small = cv2.resize(s.image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
            copy = Sample(blur_noise_jpeg(small, rng), s.boxes * k, s.values, die_px=target)
            copy.readable = sizes * k >= 12.5  # the table's dice are 13-19 px wide
            out.append(copy)
    return out


def colour_jitter(img: np.ndarray, rng: random.Random, allow_invert: bool) -> np.ndarray:
    """Other dice colours than the ones photographed: permuted channels, gains, gamma, inverse."""
    out = img
    if rng.random() < 0.5:
        out = out[:, :, rng.sample(range(3), 3)]
    out = out.astype(np.float32)
    gains = np.array([rng.uniform(0.75, 1.25) for _ in range(3)], np.float32)
    out = out * gains * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    mean = out.mean()
    out = (out - mean) * rng.uniform(0.7, 1.3) + mean
    out = np.clip(out, 0, 255)
    if rng.random() < 0.3:
        out = 255.0 * (out / 255.0) ** rng.uniform(0.7, 1.4)
    if allow_invert and rng.random() < 0.1:
        out = 255.0 - out
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.1))
    if rng.random() < 0.5:
        out = out + np.random.normal(0, rng.uniform(1, 8), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def detector_example(
    s: Sample, rng: random.Random, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An augmented detector input and its heat-map, regression targets and regression mask."""
    h, w = s.small.shape[:2]
    k = s.det_scale
    if len(s.boxes) and rng.random() < 0.8:
        box = s.boxes[rng.randrange(len(s.boxes))]
        fx = (box[0] + box[2]) / 2 * k + rng.uniform(-80, 80)
        fy = (box[1] + box[3]) / 2 * k + rng.uniform(-80, 80)
    else:
        fx, fy = rng.uniform(0, w), rng.uniform(0, h)
    angle = rng.uniform(0, 360)
    scale = math.exp(rng.uniform(math.log(0.7), math.log(1.45)))
    m = cv2.getRotationMatrix2D((fx, fy), angle, scale)
    m[0, 2] += size / 2 - fx
    m[1, 2] += size / 2 - fy
    if rng.random() < 0.5:
        m[0] = -m[0]
        m[0, 2] += size
    border = tuple(int(v) for v in np.median(s.small.reshape(-1, 3), axis=0))
    img = cv2.warpAffine(s.small, m, (size, size), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    img = colour_jitter(img, rng, allow_invert=False)
    cells = size // dm.DETECTOR_STRIDE
    heat = np.zeros((cells, cells), np.float32)
    reg = np.zeros((4, cells, cells), np.float32)
    mask = np.zeros((cells, cells), np.float32)
    gy, gx = np.mgrid[0:cells, 0:cells].astype(np.float32) + 0.5
    for box in s.boxes:
        cx, cy = (box[0] + box[2]) / 2 * k, (box[1] + box[3]) / 2 * k
        px, py = m @ np.array([cx, cy, 1.0])
        bw, bh = (box[2] - box[0]) * k * scale, (box[3] - box[1]) * k * scale
        if not (0 <= px < size and 0 <= py < size):
            continue
        ux, uy = px / dm.DETECTOR_STRIDE, py / dm.DETECTOR_STRIDE
        sigma = 0.3 + 0.12 * max(bw, bh) / dm.DETECTOR_STRIDE
        heat = np.maximum(heat, np.exp(-((gx - ux) ** 2 + (gy - uy) ** 2) / (2 * sigma**2)))
        ix, iy = min(int(ux), cells - 1), min(int(uy), cells - 1)
        heat[iy, ix] = 1.0
        ref = dm.REFERENCE_DIE_PX * dm.DETECTOR_SCALE
        reg[:, iy, ix] = (ux - ix - 0.5, uy - iy - 0.5, math.log(bw / ref), math.log(bh / ref))
        mask[iy, ix] = 1.0
    return img, heat, reg, mask


def pick(real: list[Sample], rendered: list[Sample], rng: random.Random, share: float,
         extra: tuple[tuple[list[Sample], float], ...] = ()) -> Sample:
    """A random train image: real photos, and rendered frames with probability `share`;
    `extra` pools (samples, probability) come first (with no extra pool the draws are those
    of the committed models' commands)."""
    if extra:
        u = rng.random()
        for pool, p in extra:
            if u < p and pool:
                return rng.choice(pool)
            u -= p
    if rendered and rng.random() < share:
        return rng.choice(rendered)
    return rng.choice(real)


def classifier_example(s: Sample, rng: random.Random, kind: str,
                       tilt: float = 0.0, cocked_views: float = 0.0,
                       flat_views: float = 0.0) -> tuple[np.ndarray, int]:
    """A crop as the reader would take it: a jittered flat die (its value), a cocked die
    (`dm.COCKED`) or a negative (`dm.NOT_A_DIE`).

    With `cocked_views` > 0, that share of the cocked crops is cut where the detector found
    the die (`Sample.cocked_views`): the reader sees a cocked die through the detector, which
    mostly finds one face of it, a quarter die off the die's centre and smaller than the die.
    `flat_views` does the same for the flat dice (`Sample.flat_views`): their candidates too
    may lie off the top face, on a side face the camera sees or between two dice pressed
    together, and must still read as the die's value.

    With `tilt` > 0, half the crops are also seen through a random perspective (each corner
    moved by up to `tilt` crop sides), as the camera sees dice off the centre of its view.
    """
    h, w = s.image.shape[:2]
    sizes = np.maximum(s.faces[:, 2] - s.faces[:, 0], s.faces[:, 3] - s.faces[:, 1])
    centres = np.stack([s.faces[:, [0, 2]].mean(1), s.faces[:, [1, 3]].mean(1)], 1)
    label = dm.NOT_A_DIE
    if kind == "die" or (kind == "near" and len(sizes) == 0):
        kind = "die" if len(sizes) else "background"
    chosen = np.flatnonzero(s.cocked if kind == "cocked" else ~s.cocked & s.readable)
    if kind in ("die", "cocked") and len(chosen) == 0:
        kind = "background"
    views, share = {"cocked": (s.cocked_views, cocked_views),
                    "die": (s.flat_views, flat_views)}.get(kind, ([], 0.0))
    if share > 0 and views and rng.random() < share:
        cx, cy, size, label = rng.choice(views)
        cx += rng.uniform(-1, 1)
        cy += rng.uniform(-1, 1)
        size *= rng.uniform(0.9, 1.1)
    elif kind in ("die", "cocked"):
        i = int(chosen[rng.randrange(len(chosen))])
        size = float(sizes[i]) * rng.uniform(0.85, 1.15)
        cx = centres[i, 0] + rng.uniform(-0.12, 0.12) * sizes[i]
        cy = centres[i, 1] + rng.uniform(-0.12, 0.12) * sizes[i]
        label = dm.COCKED if kind == "cocked" else int(s.values[i])
    elif kind == "near":
        i = rng.randrange(len(sizes))
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.6, 1.1) * sizes[i]
        cx, cy = centres[i, 0] + r * math.cos(a), centres[i, 1] + r * math.sin(a)
        size = float(sizes[i]) * rng.uniform(0.8, 1.2)
    elif kind == "hard" and s.hard_negatives:
        cx, cy, size = rng.choice(s.hard_negatives)
        cx += rng.uniform(-3, 3)
        cy += rng.uniform(-3, 3)
        size *= rng.uniform(0.85, 1.15)
    else:
        size = s.die_px * rng.uniform(0.6, 1.5)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    if label == dm.NOT_A_DIE and len(sizes):
        d = np.hypot(centres[:, 0] - cx, centres[:, 1] - cy)
        if (d < 0.45 * sizes).any():
            return classifier_example(s, rng, "background", tilt, cocked_views, flat_views)
    side = dm.crop_side(size, size)
    m = dm.crop_matrix(cx, cy, side, rng.uniform(0, 360))
    if rng.random() < 0.5:
        m[0] = -m[0]
        m[0, 2] += dm.CROP_SIZE
    if tilt > 0 and rng.random() < 0.5:
        corners = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]) * dm.CROP_SIZE
        moved = corners + np.float32(
            [[rng.uniform(-tilt, tilt) * dm.CROP_SIZE for _ in range(2)] for _ in range(4)])
        view = cv2.getPerspectiveTransform(corners, moved) @ np.vstack([m, [0.0, 0.0, 1.0]])
        crop = cv2.warpPerspective(s.image, view, (dm.CROP_SIZE, dm.CROP_SIZE),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        crop = cv2.warpAffine(s.image, m, (dm.CROP_SIZE, dm.CROP_SIZE), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return colour_jitter(crop, rng, allow_invert=True), label


def detector_peaks(net: cv2.dnn.Net, s: Sample,
                   threshold: float) -> Iterator[tuple[dm.Candidate, np.ndarray]]:
    """The detector's peaks on a sample at `threshold` or above, each with the mask of the
    labelled boxes that hold its centre."""
    net.setInput(dm.to_blob([dm.detector_input(s.image, s.det_scale)]))
    for c in dm.decode_detections(net.forward()[0], s.det_scale, threshold):
        inside = ((s.boxes[:, 0] <= c.cx) & (c.cx <= s.boxes[:, 2])
                  & (s.boxes[:, 1] <= c.cy) & (c.cy <= s.boxes[:, 3]))
        yield c, inside


def mine_detector_views(detector_file: Path, samples: list[Sample]) -> tuple[int, int, int]:
    """Peaks of the exported detector away from every labelled die (tray holes, specks: hard
    negatives), those on cocked dice (`Sample.cocked_views`) and those on exactly one readable
    flat die (`Sample.flat_views`); how many of each."""
    net = cv2.dnn.readNetFromONNX(str(detector_file))
    count = views = flat = 0
    for s in samples:
        for c, inside in detector_peaks(net, s, 0.05):
            if not inside.any():
                s.hard_negatives.append((c.cx, c.cy, max(c.width, c.height)))
                count += 1
            elif c.score < 0.3:  # below the reader's detect_threshold
                continue
            elif s.cocked[inside].any():
                s.cocked_views.append((c.cx, c.cy, max(c.width, c.height), dm.COCKED))
                views += 1
            elif inside.sum() == 1 and s.readable[inside].all():
                value = int(s.values[inside][0])
                s.flat_views.append((c.cx, c.cy, max(c.width, c.height), value))
                flat += 1
    return count, views, flat
