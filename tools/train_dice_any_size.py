"""Train the detector and classifier of the reader for dice of any size (`vision.dice_scale`).

Needs PyTorch for training only (`pip install torch==2.13.0 onnx`). Data: the `train` splits of
the real photo sets beside the repository (`../shared/data/dice-oblique`, `dice-topdown`,
`dice-webcam-wood`); their `test` splits are never read here. Usage (the committed models'
exact command is in `vision/models/README.md`):

    .venv/bin/python tools/train_dice_any_size.py --out DIR [--val-every 5] [--threads 1]

`--val-every N` holds out every N-th train photo of each set to choose settings on, and
reports the reader on them at the end.
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_training_data import colour_jitter
from train_dice_model import (
    cross_entropy_step,
    export,
    freeze_batch_norms,
    load_classifier_onnx,
    make_classifier,
    make_detector,
)

from vision import dice_model as dm
from vision import dice_scale as ds
from vision.dice_eval import LabelledImage, load_labels

log = logging.getLogger("train_dice_any_size")

#: The photo sets and the share of training examples drawn from each.
SETS = {"dice-oblique": 0.5, "dice-topdown": 0.3, "dice-webcam-wood": 0.2}
DATA_ROOT = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
#: A die this wide (px, longer side at the detector's input) or wider, up to `POSITIVE[1]`,
#: is a centre the detector must find; narrower or (up to `IGNORED_ABOVE`) wider ones are
#: left out of the loss (neighbouring levels find them); wider still, their every part
#: (pips, pip groups, side faces) must give no heat.
POSITIVE = (9.0, 40.0)
IGNORED_ABOVE = 56.0
#: The classifier's crops that show no die but look like one at the wrong scale: parts of a
#: die (pips, a side face; sizes relative to the die) and groups of dice.
PART_SIZES = (0.2, 0.55)
GROUP_SIZES = (1.8, 3.2)
#: With `--upright` the classifier's crops are turned by at most this many degrees.
UPRIGHT_TURN = 15.0
#: A detector peak on a die counts as a view of it at the reader's detector threshold.
VIEW_SCORE = 0.3
CLASSIFIER_KINDS = ("die",) * 10 + ("part",) * 3 + ("group",) * 2 + ("near",) * 2 + (
    "background",) * 1 + ("hard",) * 2


@dataclass
class Photo:
    """One train photo: the image, its dice's boxes and values, the detector's peaks on it
    that are no die at their scale (hard negatives: centre x, y, size) and those that are one
    (views: centre x, y, size, the die's value)."""

    image: np.ndarray
    boxes: np.ndarray
    values: np.ndarray
    hard: list[tuple[float, float, float]] = field(default_factory=list)
    views: list[tuple[float, float, float, int]] = field(default_factory=list)

    @property
    def sizes(self) -> np.ndarray:
        return np.maximum(self.boxes[:, 2] - self.boxes[:, 0], self.boxes[:, 3] - self.boxes[:, 1])

    @property
    def centres(self) -> np.ndarray:
        return np.stack([self.boxes[:, [0, 2]].mean(1), self.boxes[:, [1, 3]].mean(1)], 1)


def load_sets(root: Path, val_every: int) -> tuple[dict[str, list[Photo]],
                                                     dict[str, list[LabelledImage]]]:
    """Each set's train photos, and every `val_every`-th of them held out (as labels)."""
    train: dict[str, list[Photo]] = {}
    held: dict[str, list[LabelledImage]] = {}
    for name in SETS:
        train[name], held[name] = [], []
        for i, item in enumerate(load_labels(root / name, "train")):
            if val_every and i % val_every == 0:
                held[name].append(item)
                continue
            boxes = np.array([d.box for d in item.dice], np.float32).reshape(-1, 4)
            values = np.array([d.value for d in item.dice], np.int64)
            train[name].append(Photo(cv2.imread(str(item.path), cv2.IMREAD_COLOR), boxes, values))
    return train, held


def pick(sets: dict[str, list[Photo]], rng: random.Random) -> Photo:
    names = list(SETS)
    return rng.choice(sets[rng.choices(names, [SETS[n] for n in names])[0]])


def detector_example(p: Photo, rng: random.Random, size: int = 256
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An input at a random scale (mostly one where a chosen die is 11-34 px wide), its heat
    map, the weight of each cell in the heat loss, and the regression targets and mask."""
    h, w = p.image.shape[:2]
    sizes, centres = p.sizes, p.centres
    if len(sizes) and rng.random() < 0.85:
        i = rng.randrange(len(sizes))
        k = math.exp(rng.uniform(math.log(11.0), math.log(34.0))) / float(sizes[i])
        fx = centres[i, 0] + rng.uniform(-0.4, 0.4) * size / k
        fy = centres[i, 1] + rng.uniform(-0.4, 0.4) * size / k
    else:
        typical = float(np.median(sizes)) if len(sizes) else 40.0
        k = math.exp(rng.uniform(math.log(8.0), math.log(80.0))) / typical
        fx, fy = rng.uniform(0, w), rng.uniform(0, h)
    k = min(k, 2.5)
    reach = 0.75 * size / k
    x0, y0 = max(0, int(fx - reach)), max(0, int(fy - reach))
    x1, y1 = min(w, int(fx + reach) + 1), min(h, int(fy + reach) + 1)
    part = cv2.resize(p.image[y0:y1, x0:x1], None, fx=k, fy=k,
                      interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    angle = rng.uniform(-20, 20) + (180.0 if rng.random() < 0.3 else 0.0)
    m = cv2.getRotationMatrix2D(((fx - x0) * k, (fy - y0) * k), angle, 1.0)
    m[0, 2] += size / 2 - (fx - x0) * k
    m[1, 2] += size / 2 - (fy - y0) * k
    if rng.random() < 0.5:
        m[0] = -m[0]
        m[0, 2] += size
    border = tuple(int(v) for v in np.median(part.reshape(-1, 3), axis=0))
    img = cv2.warpAffine(part, m, (size, size), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    img = colour_jitter(img, rng, allow_invert=False)
    cells = size // dm.DETECTOR_STRIDE
    heat = np.zeros((cells, cells), np.float32)
    weight = np.ones((cells, cells), np.float32)
    reg = np.zeros((4, cells, cells), np.float32)
    mask = np.zeros((cells, cells), np.float32)
    gy, gx = np.mgrid[0:cells, 0:cells].astype(np.float32) + 0.5
    for box, (cx, cy) in zip(p.boxes, centres, strict=True):
        px, py = m @ np.array([(cx - x0) * k, (cy - y0) * k, 1.0])
        bw, bh = (box[2] - box[0]) * k, (box[3] - box[1]) * k
        s = max(bw, bh)
        ux, uy = px / dm.DETECTOR_STRIDE, py / dm.DETECTOR_STRIDE
        if not (-2 <= ux < cells + 2 and -2 <= uy < cells + 2):
            continue
        near = (gx - ux) ** 2 + (gy - uy) ** 2
        if s < POSITIVE[0] or POSITIVE[1] < s <= IGNORED_ABOVE:
            weight[near <= (0.5 * s / dm.DETECTOR_STRIDE + 1.0) ** 2] = 0.0
            continue
        if s > IGNORED_ABOVE or not (0 <= px < size and 0 <= py < size):
            continue
        sigma = 0.3 + 0.12 * s / dm.DETECTOR_STRIDE
        heat = np.maximum(heat, np.exp(-near / (2 * sigma**2)))
        ix, iy = min(int(ux), cells - 1), min(int(uy), cells - 1)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (ux - ix - 0.5, uy - iy - 0.5, math.log(bw / ds.LEVEL_DIE_PX),
                          math.log(bh / ds.LEVEL_DIE_PX))
        mask[iy, ix] = 1.0
    return img, heat, weight, reg, mask


def weighted_focal_loss(logits: torch.Tensor, target: torch.Tensor,
                        weight: torch.Tensor) -> torch.Tensor:
    """CenterNet's focal loss with cells of weight 0 left out."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - target) ** 4 * (1 - pos) * weight
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


def train_detector(sets: dict[str, list[Photo]], steps: int, batch: int, seed: int,
                   lr: float) -> torch.nn.Module:
    rng = random.Random(seed)
    net = make_detector()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    start = time.time()
    for step in range(steps):
        exs = [detector_example(pick(sets, rng), rng) for _ in range(batch)]
        x = torch.from_numpy(dm.to_blob([e[0] for e in exs]))
        heat, weight, reg, mask = (torch.from_numpy(np.stack([e[j] for e in exs]))
                                   for j in range(1, 5))
        out = net(x)
        loss_heat = weighted_focal_loss(out[:, 0], heat, weight)
        loss_reg = ((out[:, 1:] - reg).abs() * mask[:, None]).sum() / mask.sum().clamp(min=1)
        loss = loss_heat + loss_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0 or step == steps - 1:
            log.info("detector step %d/%d heat %.3f reg %.3f (%.0fs)", step, steps,
                     loss_heat.item(), loss_reg.item(), time.time() - start)
    return net.eval()


def mine_hard_negatives(detector_file: Path, sets: dict[str, list[Photo]]) -> tuple[int, int]:
    """Peaks of the exported detector over the pyramid (as the reader runs it) that are no
    die at their scale: off every labelled die, or on one at under 0.6 or over 1.7 times its
    size (a pip group, a side face, a group of dice) — and those at the reader's detector
    threshold that are one, kept as `Photo.views` (the boxes the reader will cut the die's
    crop from, often off its centre or size in a heap). How many of each."""
    net = dm.load_net(detector_file)
    count = views = 0
    for photos in sets.values():
        for p in photos:
            sizes, centres = p.sizes, p.centres
            for c in ds.detect_levels(net, p.image, 0.1):
                size = max(c.width, c.height)
                inside = ((p.boxes[:, 0] <= c.cx) & (c.cx <= p.boxes[:, 2])
                          & (p.boxes[:, 1] <= c.cy) & (c.cy <= p.boxes[:, 3]))
                near = np.hypot(centres[:, 0] - c.cx, centres[:, 1] - c.cy) < 0.3 * sizes
                right = inside & near & (size >= 0.6 * sizes) & (size <= 1.7 * sizes)
                if not right.any():
                    p.hard.append((c.cx, c.cy, size))
                    count += 1
                elif c.score >= VIEW_SCORE:
                    p.views.append((c.cx, c.cy, size, int(p.values[int(np.argmax(right))])))
                    views += 1
    return count, views


def classifier_example(p: Photo, rng: random.Random, kind: str, upright: bool = False,
                       views: float = 0.0, tilt: float = 0.0) -> tuple[np.ndarray, int]:
    """A crop as the reader cuts it, and its class: a jittered die (its value) or one of the
    kinds that show no die (`CLASSIFIER_KINDS`). Turned by any angle, or with `upright` by
    at most `UPRIGHT_TURN` degrees (the photo's up stays up: seen from the side, a die's top
    face is the one above its side faces), mirrored left-right half the time. With `views`,
    that share of the dice is cut where the detector found them (`Photo.views`), as the
    reader cuts them; with `tilt`, half the crops are seen through a random perspective (each
    corner moved by up to `tilt` crop sides), as a camera sees dice from the side."""
    h, w = p.image.shape[:2]
    sizes, centres = p.sizes, p.centres
    if not len(sizes) and kind != "hard":
        kind = "background"
    if kind == "hard" and not p.hard:
        kind = "near" if len(sizes) else "background"
    label = dm.NOT_A_DIE
    if kind == "die" and p.views and views > 0 and rng.random() < views:
        cx, cy, size, label = rng.choice(p.views)
        cx, cy = cx + rng.uniform(-1, 1), cy + rng.uniform(-1, 1)
        size *= rng.uniform(0.95, 1.05)
    elif kind in ("die", "part", "group", "near"):
        i = rng.randrange(len(sizes))
        bw, bh = p.boxes[i, 2] - p.boxes[i, 0], p.boxes[i, 3] - p.boxes[i, 1]
        if kind == "die":
            size = float(sizes[i]) * rng.uniform(0.87, 1.15)
            cx = centres[i, 0] + rng.uniform(-0.1, 0.1) * bw
            cy = centres[i, 1] + rng.uniform(-0.1, 0.1) * bh
            label = int(p.values[i])
        elif kind == "part":
            size = float(sizes[i]) * rng.uniform(*PART_SIZES)
            cx = centres[i, 0] + rng.uniform(-0.4, 0.4) * bw
            cy = centres[i, 1] + rng.uniform(-0.4, 0.4) * bh
        elif kind == "group":
            size = float(sizes[i]) * rng.uniform(*GROUP_SIZES)
            cx = centres[i, 0] + rng.uniform(-0.5, 0.5) * size
            cy = centres[i, 1] + rng.uniform(-0.5, 0.5) * size
        else:
            a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.6, 1.1) * sizes[i]
            cx, cy = centres[i, 0] + r * math.cos(a), centres[i, 1] + r * math.sin(a)
            size = float(sizes[i]) * rng.uniform(0.8, 1.2)
    elif kind == "hard":
        cx, cy, size = rng.choice(p.hard)
        cx, cy = cx + rng.uniform(-2, 2), cy + rng.uniform(-2, 2)
        size *= rng.uniform(0.9, 1.1)
    else:
        typical = float(np.median(sizes)) if len(sizes) else 40.0
        size = typical * math.exp(rng.uniform(math.log(0.3), math.log(3.0)))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    if label == dm.NOT_A_DIE and len(sizes):
        near = np.hypot(centres[:, 0] - cx, centres[:, 1] - cy) < 0.3 * sizes
        if (near & (size > 0.7 * sizes) & (size < 1.4 * sizes)).any():
            return classifier_example(p, rng, "die", upright, views, tilt)  # it shows a die
    angle = rng.uniform(-UPRIGHT_TURN, UPRIGHT_TURN) if upright else rng.uniform(0, 360)
    crop = ds.die_crop(p.image, cx, cy, dm.crop_side(size, size), angle, rng.random() < 0.5)
    if tilt > 0 and rng.random() < 0.5:
        corners = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]) * dm.CROP_SIZE
        moved = corners + np.float32([[rng.uniform(-tilt, tilt) * dm.CROP_SIZE
                                       for _ in range(2)] for _ in range(4)])
        crop = cv2.warpPerspective(crop, cv2.getPerspectiveTransform(corners, moved),
                                   (dm.CROP_SIZE, dm.CROP_SIZE), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
    return colour_jitter(crop, rng, allow_invert=True), label


def train_classifier(sets: dict[str, list[Photo]], steps: int, batch: int, seed: int,
                     lr: float, init: Path | None = None, upright: bool = False,
                     views: float = 0.0, tilt: float = 0.0) -> torch.nn.Module:
    """Train the crop classifier anew, or fine-tune the exported one in `init` (its batch
    norms folded and frozen, see `train_dice_model.load_classifier_onnx`); `upright`,
    `views`, `tilt`: see `classifier_example`."""
    rng = random.Random(seed)
    net = make_classifier() if init is None else load_classifier_onnx(init)
    net.train()
    if init is not None:
        freeze_batch_norms(net)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    start = time.time()
    for step in range(steps):
        exs = [classifier_example(pick(sets, rng), rng, rng.choice(CLASSIFIER_KINDS), upright,
                                  views, tilt) for _ in range(batch)]
        x = torch.from_numpy(dm.to_blob([e[0] for e in exs]))
        loss, acc = cross_entropy_step(net, opt, sched, x, torch.tensor([e[1] for e in exs]))
        if step % 200 == 0 or step == steps - 1:
            log.info("classifier step %d/%d loss %.3f acc %.3f (%.0fs)", step, steps, loss,
                     acc, time.time() - start)
    return net.eval()


def report_held_out(model_dir: Path, held: dict[str, list[LabelledImage]]) -> None:
    from vision.dice_eval import evaluate

    reader = ds.AnySizeDiceReader(model_dir)
    for name, items in held.items():
        if items:
            report = evaluate(lambda im: [(d.value, d.box) for d in reader.read(im)], items)
            summary = {k: v for k, v in report.as_dict().items() if k != "failures"}
            log.info("held-out train photos of %s: %s", name, summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_ROOT,
                        help="folder holding the photo sets")
    parser.add_argument("--out", type=Path, default=dm.MODEL_DIR)
    parser.add_argument("--val-every", type=int, default=0)
    parser.add_argument("--detector-steps", type=int, default=2500)
    parser.add_argument("--detector-lr", type=float, default=3e-3)
    parser.add_argument("--classifier-steps", type=int, default=8000,
                        help="0: train and export the detector only")
    parser.add_argument("--classifier-batch", type=int, default=128)
    parser.add_argument("--classifier-lr", type=float, default=3e-3)
    parser.add_argument("--init-classifier", type=Path,
                        help="fine-tune this exported classifier (.onnx) instead of starting anew")
    parser.add_argument("--reuse-detector", action="store_true",
                        help="keep the detector already in --out, train only the classifier")
    parser.add_argument("--mine-with", type=Path,
                        help="the detector whose peaks give the hard negatives (default: the "
                             "one in --out)")
    parser.add_argument("--upright", action="store_true",
                        help="train the classifier on crops kept upright (turned at most "
                             f"{UPRIGHT_TURN:g} degrees), so it can tell a die's top face "
                             "from its side faces in a photo taken from the side")
    parser.add_argument("--views", type=float, default=0.0,
                        help="share of the dice's crops cut where the detector finds them")
    parser.add_argument("--tilt", type=float, default=0.0,
                        help="perspective augmentation of the crops (corner shift, in sides)")
    parser.add_argument("--shares", type=lambda t: [float(v) for v in t.split(",")],
                        help="each set's share of the examples, in the order of SETS "
                             f"(default: {','.join(f'{v:g}' for v in SETS.values())})")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    if args.shares:
        if len(args.shares) != len(SETS) or min(args.shares) < 0 or not sum(args.shares):
            parser.error(f"--shares: {len(SETS)} non-negative numbers, not all 0")
        SETS.update(zip(SETS, args.shares, strict=True))
    sets, held = load_sets(args.data, args.val_every)
    log.info("train photos %s, held out %s", {n: len(v) for n, v in sets.items()},
             {n: len(v) for n, v in held.items()})
    detector_file = args.out / ds.DETECTOR_FILE.name
    if not args.reuse_detector:
        detector = train_detector(sets, args.detector_steps, 16, args.seed, args.detector_lr)
        export(detector, torch.zeros(1, 3, 320, 320), detector_file, {2: "height", 3: "width"})
    if not args.classifier_steps:
        return 0
    log.info("%d hard negatives and %d views of dice mined",
             *mine_hard_negatives(args.mine_with or detector_file, sets))
    classifier = train_classifier(sets, args.classifier_steps, args.classifier_batch,
                                  args.seed, args.classifier_lr, args.init_classifier,
                                  args.upright, args.views, args.tilt)
    export(classifier, torch.zeros(1, 3, dm.CROP_SIZE, dm.CROP_SIZE),
           args.out / ds.CLASSIFIER_FILE.name, {0: "batch"})
    if any(held.values()):
        report_held_out(args.out, held)
    return 0


if __name__ == "__main__":
    sys.exit(main())
