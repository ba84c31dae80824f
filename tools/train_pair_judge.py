"""Train one of the table camera's pair judges (`vision/pair_judge.py`) on rendered throws.

Needs PyTorch for training only (`pip install torch==2.13.0 onnx`). Usage:

    .venv/bin/python tools/train_pair_judge.py --pair 4 6 [--out vision/models] [--patches 16000]

The data are rendered throws (`dice_training_data.render_patches`: both boards, every camera,
blur and light of the renderer), each kept around its dice; only the flat dice showing one of
the pair are used. The judge sees each such die around its top face as the reader at the table
cuts it: from the labelled box and from every box the committed detector finds on it
(`vision.dice.top_face`). Unlike the crop classifier's training, no blur is added to the crops:
the renderer's own blur is the camera's, and more would make faces that no one can tell apart
and teach the judge to shrug. Held-out throws of another seed say how often the judge and the
committed table classifier (its share of the pair) are right on the same dice; the exact
commands of the committed files are in `vision/models/README.md`.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_training_data import Sample, detector_peaks, render_patches
from train_dice_model import (
    add_judge_arguments,
    block,
    export,
    start_judge_training,
    train_two_classes,
)

from vision import dice_model as dm
from vision import pair_judge as pj
from vision.dice import top_face

log = logging.getLogger("train_pair_judge")

#: A top face as the judge sees it: the sample, centre x, y and size (pixels), whether it
#: shows the pair's higher value.
FaceView = tuple[Sample, float, float, float, bool]


def make_judge() -> nn.Module:
    """Conv blocks 3 -> 32 | 64-64 | 96 | 128 with pooling between, global average pool, two
    outputs (lower, higher value): the first pooling comes after one block, so the pips'
    spacing is seen at the crop's full resolution."""
    return nn.Sequential(
        block(3, 32), nn.MaxPool2d(2),
        block(32, 64), block(64, 64), nn.MaxPool2d(2),
        block(64, 96), nn.MaxPool2d(2),
        block(96, 128), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(128, 2),
    )


def face_views(samples: list[Sample], detector_file: Path,
               pair: tuple[int, int]) -> list[FaceView]:
    """Each flat die showing one of the pair at its labelled top face, and at the top face of
    every detector peak the reader would look at (score at least 0.3) that lies inside that
    die's box alone."""
    net = dm.load_net(detector_file)
    views: list[FaceView] = []
    for s in samples:
        wanted = ~s.cocked & s.readable & np.isin(s.values, pair)
        if not wanted.any():
            continue
        for i in np.flatnonzero(wanted).tolist():
            x0, y0, x1, y1 = s.faces[i].tolist()
            views.append((s, (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0),
                          bool(s.values[i] == pair[1])))
        for c, inside in detector_peaks(net, s, 0.3):
            if inside.sum() == 1 and wanted[inside].all():
                cx, cy, w, h = top_face(c.cx, c.cy, c.width, c.height, s.parallax)
                views.append((s, cx, cy, max(w, h), bool(s.values[inside][0] == pair[1])))
    return views


def light_jitter(crop: np.ndarray, rng: random.Random) -> np.ndarray:
    """Other dice and board colours and light: permuted channels, gains, contrast, noise; no
    blur (see the module doc)."""
    out = crop[:, :, rng.sample(range(3), 3)] if rng.random() < 0.5 else crop
    out = out.astype(np.float32)
    gains = np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    out = out * gains * rng.uniform(0.75, 1.25) + rng.uniform(-25, 25)
    mean = out.mean()
    out = (out - mean) * rng.uniform(0.75, 1.25) + mean
    if rng.random() < 0.5:
        out = out + np.random.normal(0, rng.uniform(1, 5), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def judge_example(view: FaceView, rng: random.Random | None) -> np.ndarray:
    """The judge's crop of a view; with `rng` moved, resized and turned as a detector's box
    may differ, mirrored, and with its colours varied."""
    s, cx, cy, size, _ = view
    turn = 0.0
    if rng is not None:
        cx += rng.uniform(-0.06, 0.06) * size
        cy += rng.uniform(-0.06, 0.06) * size
        size *= rng.uniform(0.92, 1.08)
        turn = rng.uniform(0.0, 360.0)
    crop = pj.pair_crop(s.image, cx, cy, size, turn)
    if rng is not None:
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        crop = light_jitter(crop, rng)
    return crop


def train_judge(views: list[FaceView], steps: int, batch: int, lr: float,
                seed: int) -> nn.Module:
    """Half lower, half higher values a batch (`train_two_classes`)."""
    def to_input(chosen: list[FaceView], rng: random.Random) -> torch.Tensor:
        return torch.from_numpy(dm.to_blob([judge_example(v, rng) for v in chosen]))

    return train_two_classes(make_judge(), [v for v in views if not v[4]],
                             [v for v in views if v[4]], to_input, steps, batch, lr, seed)


def report(judge_file: Path, views: list[FaceView], pair: tuple[int, int]) -> None:
    """The exported judge against the committed table classifier's share of the pair, on the
    same held-out top faces (labelled and detected)."""
    judge = pj.PairJudge(pair, judge_file)
    classifier = dm.load_net(dm.TABLE_CLASSIFIER_FILE)
    truth = np.array([v[4] for v in views])
    p_judge = np.concatenate([judge.p_higher(s.image, [(cx, cy, size)])
                              for s, cx, cy, size, _ in views])
    crops = [dm.crop_die(s.image, cx, cy, dm.crop_side(size, size))
             for s, cx, cy, size, _ in views]
    classifier.setInput(dm.to_blob(crops))
    probs = dm.softmax(classifier.forward().reshape(len(crops), dm.NUM_CLASSES))
    low, high = pair
    p_classifier = probs[:, high] / np.maximum(probs[:, low] + probs[:, high], 1e-9)
    for name, p in (("judge", p_judge), ("classifier", p_classifier)):
        wrong = (p >= 0.5) != truth
        log.info("held out, %s: %d of %d %ds/%ds wrong (%d %ds, %d %ds)", name,
                 int(wrong.sum()), len(views), low, high, int((wrong & ~truth).sum()), low,
                 int((wrong & truth).sum()), high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", type=int, nargs=2, required=True, metavar=("LOW", "HIGH"),
                        help=f"the values the judge tells apart, one of {sorted(pj.PAIR_FILES)}")
    add_judge_arguments(parser, patches=16000, held_out=2000, steps=5000, seed=70)
    args = parser.parse_args(argv)
    pair = tuple(args.pair)
    if pair not in pj.PAIR_FILES:
        parser.error(f"--pair {args.pair[0]} {args.pair[1]}: judged pairs are "
                     f"{sorted(pj.PAIR_FILES)}")
    start_judge_training(args)
    patches = render_patches(args.patches, args.seed, args.workers)
    views = face_views(patches, args.detector, pair)
    log.info("%d patches, %d views (%d of %ds)", len(patches), len(views),
             sum(v[4] for v in views), pair[1])
    net = train_judge(views, args.steps, args.batch, args.lr, args.seed)
    path = args.out / pj.PAIR_FILES[pair].name
    export(net, torch.zeros(1, 3, pj.PAIR_CROP, pj.PAIR_CROP), path, {0: "batch"})
    if args.held_out:
        held = render_patches(args.held_out, args.seed + 1000, args.workers)
        report(path, face_views(held, args.detector, pair), pair)
    return 0


if __name__ == "__main__":
    sys.exit(main())
