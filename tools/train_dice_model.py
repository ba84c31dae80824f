"""Train the dice detector and classifier on the `train` split and export them to ONNX.

Needs PyTorch for training only (`pip install torch==2.13.0 onnx`); the reader itself runs the
exported files with OpenCV. Usage:

    .venv/bin/python tools/train_dice_model.py [--data DIR] [--out vision/models] [--val-every 0]

`--val-every N` holds out every N-th train image to choose settings on and reports the reader on
them with 1, 2 and 4 views; the committed model is trained with `--val-every 0` (all 200 train
photos). `--init-classifier FILE.onnx` fine-tunes an exported classifier instead of starting
anew (the exact commands of the committed models are in `vision/models/README.md`). The test
split is never read here.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision import dice_model as dm
from vision.dice_eval import default_data_dir, load_labels
from vision.parallax import Parallax

log = logging.getLogger("train_dice_model")


def block(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def make_detector() -> nn.Module:
    return nn.Sequential(
        block(3, 16, 2),
        block(16, 24, 2),
        block(24, 32, 2),
        block(32, 48),
        block(48, 48, dilation=2),
        nn.Conv2d(48, dm.DETECTOR_CHANNELS, 1),
    )


def make_classifier() -> nn.Module:
    return nn.Sequential(
        block(3, 24),
        nn.MaxPool2d(2),
        block(24, 48),
        nn.MaxPool2d(2),
        block(48, 64),
        nn.MaxPool2d(2),
        block(64, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(96, dm.NUM_CLASSES),
    )


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


def focal_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - target) ** 4 * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


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


def train_detector(real: list[Sample], rendered: list[Sample], steps: int, batch: int,
                   seed: int) -> nn.Module:
    rng = random.Random(seed)
    net = make_detector()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    size = 256
    start = time.time()
    for step in range(steps):
        exs = [detector_example(pick(real, rendered, rng, 0.25), rng, size) for _ in range(batch)]
        x = torch.from_numpy(dm.to_blob([e[0] for e in exs]))
        heat = torch.from_numpy(np.stack([e[1] for e in exs]))
        reg = torch.from_numpy(np.stack([e[2] for e in exs]))
        mask = torch.from_numpy(np.stack([e[3] for e in exs]))
        out = net(x)
        loss_heat = focal_loss(out[:, 0], heat)
        n = mask.sum().clamp(min=1)
        loss_reg = ((out[:, 1:] - reg).abs() * mask[:, None]).sum() / n
        loss = loss_heat + loss_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0 or step == steps - 1:
            log.info("detector step %d/%d heat %.3f reg %.3f (%.0fs)", step, steps,
                     loss_heat.item(), loss_reg.item(), time.time() - start)
    return net.eval()


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


def load_classifier_onnx(path: Path) -> nn.Module:
    """A classifier holding the weights of an exported one, to fine-tune it.

    The export folds each batch norm into its convolution, so the convolutions get the folded
    weights and biases and every batch norm becomes an identity kept frozen (see
    `freeze_batch_norms`): the loaded net computes exactly what the ONNX file does.
    """
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    net = make_classifier()
    convs = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    linear = next(m for m in net.modules() if isinstance(m, nn.Linear))
    conv_nodes = [n for n in model.graph.node if n.op_type == "Conv"]
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    if len(conv_nodes) != len(convs):
        raise ValueError(f"{path}: {len(conv_nodes)} convolutions, the classifier has {len(convs)}")
    with torch.no_grad():
        for conv, norm, node in zip(convs, norms, conv_nodes, strict=True):
            w, b = (np.array(weights[name]) for name in node.input[1:3])
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: convolution {node.name} is {w.shape}, "
                                 f"the classifier's is {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0)
            norm.weight.fill_(math.sqrt(1.0 + norm.eps))
            norm.bias.copy_(torch.from_numpy(b))
        w, b = (np.array(weights[name]) for name in gemm.input[1:3])
        if len(w) == dm.NUM_CLASSES - 1:
            # A classifier from before the cocked class: that class starts from nothing, with a
            # low prior, and learns from the rendered cocked dice.
            w = np.vstack([w, np.zeros((1, w.shape[1]), w.dtype)])
            b = np.append(b, np.float32(-3.0))
        linear.weight.copy_(torch.from_numpy(w))
        linear.bias.copy_(torch.from_numpy(b))
    return net


def freeze_batch_norms(net: nn.Module) -> None:
    """Keep batch norms on their running statistics (a loaded net's are folded identities)."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


#: Kinds of classifier crops that show no die (see `classifier_example`).
NEGATIVE_KINDS = ("near", "background", "hard")


def train_classifier(real: list[Sample], rendered: list[Sample], steps: int, batch: int,
                     seed: int, lr: float = 3e-3, init: Path | None = None,
                     tilt: float = 0.0, rendered_share: float = 0.1,
                     extra: tuple[tuple[list[Sample], float], ...] = (),
                     negative_share: float | None = None,
                     cocked_views: float = 0.0, flat_views: float = 0.0,
                     cocked_class: bool = True) -> nn.Module:
    """Train (or, from `init`, fine-tune) the crop classifier with a one-cycle learning rate;
    `rendered_share` of the crops come from rendered frames (the table camera's small dice),
    and each `extra` pool's share from it (see `pick`). With `negative_share`, the crops that
    are no die come from whole rendered frames with that probability, else from the photos:
    the extra pools hold little but dice, and the reader must learn the whole board's look
    (checkers, pieces, markers) as not a die. `cocked_views`, `flat_views`: see
    `classifier_example`. Without `cocked_class` no crop teaches the cocked class: at the
    table the judge (`vision.cocked_judge`) decides cocked, and the classifier reads the value
    a die would show lying flat, its probability no longer drawn off by side faces."""
    rng = random.Random(seed)
    net = make_classifier() if init is None else load_classifier_onnx(init)
    net.train()
    if init is not None:
        freeze_batch_norms(net)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    kinds = ["die"] * 6 + ["cocked"] * 2 * cocked_class + ["near", "background", "hard", "hard"]
    # the photos have no cocked dice
    with_cocked = [s for pool in [rendered] + [p for p, _ in extra] for s in pool
                   if s.cocked.any()]
    start = time.time()
    for step in range(steps):
        chosen = [rng.choice(kinds) for _ in range(batch)]
        picks = [(rng.choice(with_cocked) if kind == "cocked" and with_cocked
                  else pick(real, rendered, rng, negative_share)
                  if negative_share is not None and kind in NEGATIVE_KINDS
                  else pick(real, rendered, rng, rendered_share, extra), kind)
                 for kind in chosen]
        exs = [classifier_example(s, rng, kind, tilt, cocked_views, flat_views)
               for s, kind in picks]
        x = torch.from_numpy(dm.to_blob([e[0] for e in exs]))
        loss, acc = cross_entropy_step(net, opt, sched, x, torch.tensor([e[1] for e in exs]))
        if step % 200 == 0 or step == steps - 1:
            log.info("classifier step %d/%d loss %.3f acc %.3f (%.0fs)", step, steps,
                     loss, acc, time.time() - start)
    return net.eval()


def cross_entropy_step(net: nn.Module, opt: torch.optim.Optimizer,
                       sched: torch.optim.lr_scheduler.LRScheduler, x: torch.Tensor,
                       y: torch.Tensor) -> tuple[float, float]:
    """One optimiser step of a crop classifier on batch (x, y); its loss and accuracy."""
    out = net(x)
    loss = nn.functional.cross_entropy(out, y, label_smoothing=0.02)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    return loss.item(), (out.argmax(1) == y).float().mean().item()


def train_two_classes(net: nn.Module, negatives: list, positives: list,
                      to_input: Callable[[list, random.Random], torch.Tensor], steps: int,
                      batch: int, lr: float, seed: int) -> nn.Module:
    """Train a two-output judge: half of each batch drawn from `negatives` (label 0), half
    from `positives` (label 1), made into the net's input by `to_input(chosen, rng)`; AdamW
    with a one-cycle learning rate."""
    rng = random.Random(seed)
    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    y = torch.tensor([i % 2 for i in range(batch)])
    start = time.time()
    for step in range(steps):
        chosen = [rng.choice(positives if i % 2 else negatives) for i in range(batch)]
        loss, acc = cross_entropy_step(net, opt, sched, to_input(chosen, rng), y)
        if step % 200 == 0 or step == steps - 1:
            log.info("judge step %d/%d loss %.3f acc %.3f (%.0fs)", step, steps, loss, acc,
                     time.time() - start)
    return net.eval()


def add_judge_arguments(parser: argparse.ArgumentParser, *, patches: int, held_out: int,
                        steps: int, seed: int) -> None:
    """The options every judge's trainer takes, with that judge's defaults for its data,
    length and seed."""
    parser.add_argument("--out", type=Path, default=dm.MODEL_DIR)
    parser.add_argument("--detector", type=Path, default=dm.DETECTOR_FILE,
                        help="the detector whose peaks give the views (default: committed)")
    parser.add_argument("--patches", type=int, default=patches,
                        help="rendered throws kept around their dice to train on")
    parser.add_argument("--held-out", type=int, default=held_out,
                        help="rendered throws of another seed to report on")
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=2e-3,
                        help="peak learning rate of the one-cycle schedule")
    parser.add_argument("--workers", type=int, default=1, help="processes rendering")
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--threads", type=int, default=1)


def start_judge_training(args: argparse.Namespace) -> None:
    """Logging, the seed and the thread counts a judge's trainer runs with (OpenCV on one
    thread: the rendering workers are processes)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)


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


def export(net: nn.Module, example: torch.Tensor, path: Path, dynamic: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, example, str(path), dynamo=False, opset_version=13,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": dynamic, "output": dynamic})
    log.info("wrote %s (%d bytes)", path, path.stat().st_size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--out", type=Path, default=dm.MODEL_DIR)
    parser.add_argument("--val-every", type=int, default=0)
    parser.add_argument("--detector-steps", type=int, default=3000)
    parser.add_argument("--classifier-steps", type=int, default=9000)
    parser.add_argument("--classifier-batch", type=int, default=128)
    parser.add_argument("--classifier-lr", type=float, default=3e-3,
                        help="peak learning rate of the classifier's one-cycle schedule")
    parser.add_argument("--tilt", type=float, default=0.0,
                        help="perspective augmentation of classifier crops (corner shift, sides)")
    parser.add_argument("--init-classifier", type=Path,
                        help="fine-tune this exported classifier (.onnx) instead of starting anew")
    parser.add_argument("--rendered", type=int, default=300,
                        help="frames from vision.renderer to add (cocked dice come only from them)")
    parser.add_argument("--rendered-share", type=float, default=0.1,
                        help="share of classifier crops taken from the rendered frames")
    parser.add_argument("--patches", type=int, default=0,
                        help="rendered frames kept only around their dice (see render_patches)")
    parser.add_argument("--patch-share", type=float, default=0.0,
                        help="share of classifier crops taken from those patches")
    parser.add_argument("--small-photos", type=int, default=0,
                        help="copies of each train photo at the table camera's scale")
    parser.add_argument("--small-share", type=float, default=0.0,
                        help="share of classifier crops taken from those copies")
    parser.add_argument("--negative-share", type=float,
                        help="share of the crops showing no die taken from whole rendered "
                             "frames (default: drawn like the dice)")
    parser.add_argument("--cocked-views", type=float, default=0.0,
                        help="share of the cocked crops cut where the detector finds the die")
    parser.add_argument("--flat-views", type=float, default=0.0,
                        help="share of the flat dice's crops cut where the detector finds them")
    parser.add_argument("--touching", type=float, default=0.0,
                        help="share of rendered throws whose dice lie pressed face to face")
    parser.add_argument("--no-cocked-class", action="store_true",
                        help="teach no cocked crops (the table's judge decides cocked)")
    parser.add_argument("--classifier-file", default=dm.CLASSIFIER_FILE.name,
                        help="file name of the exported classifier in --out")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes rendering the patches")
    parser.add_argument("--reuse-detector", action="store_true",
                        help="keep the detector already in --out, train only the classifier")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    samples, val = load_samples(args.data, args.val_every)
    rendered = render_samples(args.rendered, args.seed, args.touching) if args.rendered else []
    patches = (render_patches(args.patches, args.seed, args.workers, args.touching)
               if args.patches else [])
    small = table_scale_photos(samples, args.small_photos, args.seed)
    log.info("%d train photos, %d held out, %d rendered frames, %d patches, %d small photos",
             len(samples), len(val), len(rendered), len(patches), len(small))
    detector_file = args.out / dm.DETECTOR_FILE.name
    if not args.reuse_detector:
        detector = train_detector(samples, rendered, args.detector_steps, 16, args.seed)
        export(detector, torch.zeros(1, 3, 320, 320), detector_file, {2: "height", 3: "width"})
    log.info("%d hard negatives, %d views of cocked dice and %d of flat dice mined",
             *mine_detector_views(detector_file, samples + rendered + patches + small))
    extra = tuple((pool, share) for pool, share in ((patches, args.patch_share),
                                                     (small, args.small_share)) if pool)
    classifier = train_classifier(samples, rendered, args.classifier_steps,
                                  args.classifier_batch, args.seed, args.classifier_lr,
                                  args.init_classifier, args.tilt, args.rendered_share, extra,
                                  args.negative_share, args.cocked_views, args.flat_views,
                                  not args.no_cocked_class)
    export(classifier, torch.zeros(1, 3, dm.CROP_SIZE, dm.CROP_SIZE),
           args.out / args.classifier_file, {0: "batch"})
    if val:
        from vision.dice import DiceReader
        from vision.dice_eval import evaluate

        for views in (1, 2, 4):
            reader = DiceReader(model_dir=args.out, views=views)
            report = evaluate(lambda im, r=reader: [(d.value, d.box) for d in r.read(im)], val)
            log.info("held-out train photos, %d views: %s", views, report.as_dict())
    return 0


if __name__ == "__main__":
    sys.exit(main())
