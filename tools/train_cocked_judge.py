"""Train the table camera's cocked-die judge (`vision/cocked_judge.py`) on rendered throws.

Needs PyTorch for training only (`pip install torch==2.13.0 onnx`). Usage:

    .venv/bin/python tools/train_cocked_judge.py [--out vision/models] [--patches 6000]

The data are rendered throws (`dice_training_data.render_patches`: both boards, 35 % of dice
cocked, every camera, blur and light of the renderer), each kept around its dice. The judge
sees each die where the committed detector finds it (a cocked die mostly by one face, a
quarter die off its centre) and where its box is; every crop is turned by the camera's lean as
the reader turns it (`vision.cocked_judge.judge_matrix`). Held-out throws of another seed say
how often it calls a flat die cocked and how many cocked dice it catches; the exact commands
of the committed file are in `vision/models/README.md`. The photos are not used: they hold no
cocked die and no camera height.
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import sys
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_training_data import Sample, colour_jitter, detector_peaks, render_patches
from train_dice_model import (
    add_judge_arguments,
    block,
    export,
    start_judge_training,
    train_two_classes,
)

from vision import cocked_judge as cj
from vision import dice_model as dm

log = logging.getLogger("train_cocked_judge")

#: A die as the judge sees it: the sample, the centre (pixels), cocked or not.
JudgeView = tuple[Sample, float, float, bool]


def make_judge() -> nn.Module:
    """Four 3x3 conv blocks with pooling (4 -> 24-48-64-96 channels), global average pool,
    two outputs (flat, cocked): the crop classifier's shape on the judge's four channels."""
    return nn.Sequential(
        block(cj.JUDGE_CHANNELS, 24), nn.MaxPool2d(2),
        block(24, 48), nn.MaxPool2d(2),
        block(48, 64), nn.MaxPool2d(2),
        block(64, 96), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(96, 2),
    )


def judge_views(samples: list[Sample], detector_file: Path) -> list[JudgeView]:
    """Each labelled die at its box's centre, and every detector peak the reader would look at
    (score at least 0.3) inside a labelled box: cocked when any die whose box holds it is."""
    net = dm.load_net(detector_file)
    views: list[JudgeView] = []
    for s in samples:
        for (x0, y0, x1, y1), cocked in zip(s.boxes.tolist(), s.cocked.tolist(), strict=True):
            views.append((s, (x0 + x1) / 2, (y0 + y1) / 2, bool(cocked)))
        for c, inside in detector_peaks(net, s, 0.3):
            if inside.any():
                views.append((s, c.cx, c.cy, bool(s.cocked[inside].any())))
    return views


def judge_example(view: JudgeView, rng: random.Random | None) -> tuple[np.ndarray, float]:
    """The judge's crop of a view and the die's lean in die sizes; with `rng`, jittered as a
    calibration and a detector may err (centre, die size, lean) and turned about the lean's
    axis, with the colours varied."""
    s, cx, cy, _ = view
    die_px = s.die_px
    ex, ey = s.parallax.shift(cx, cy)
    turn, mirror = 0.0, False
    if rng is not None:
        cx += rng.uniform(-0.08, 0.08) * die_px
        cy += rng.uniform(-0.08, 0.08) * die_px
        die_px *= rng.uniform(0.92, 1.08)
        k = rng.uniform(0.85, 1.15)
        ex, ey = ex * k, ey * k
        turn, mirror = rng.uniform(-6.0, 6.0), rng.random() < 0.5
    m = cj.judge_matrix(cx, cy, die_px, (ex, ey), turn, mirror)
    crop = cv2.warpAffine(s.image, m, (cj.JUDGE_CROP, cj.JUDGE_CROP), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    if rng is not None:
        crop = colour_jitter(crop, rng, allow_invert=False)
    return crop, math.hypot(ex, ey) / die_px


def train_judge(views: list[JudgeView], steps: int, batch: int, lr: float,
                seed: int) -> nn.Module:
    """Half flat, half cocked views a batch (`train_two_classes`)."""
    def to_input(chosen: list[JudgeView], rng: random.Random) -> torch.Tensor:
        exs = [judge_example(v, rng) for v in chosen]
        return torch.from_numpy(cj.judge_blob([e[0] for e in exs], [e[1] for e in exs]))

    return train_two_classes(make_judge(), [v for v in views if not v[3]],
                             [v for v in views if v[3]], to_input, steps, batch, lr, seed)


def report(judge_file: Path, views: list[JudgeView]) -> None:
    """How the exported judge does on held-out views, at a few thresholds."""
    judge = cj.CockedJudge(judge_file)
    p = np.concatenate([
        judge.p_cocked(s.image, [(cx, cy)], s.die_px, s.parallax) for s, cx, cy, _ in views])
    truth = np.array([v[3] for v in views])
    for t in (0.5, 0.7, 0.9, 0.97):
        log.info("held out, P(cocked) >= %.2f: flat called cocked %d of %d, cocked caught "
                 "%d of %d", t, int((p[~truth] >= t).sum()), int((~truth).sum()),
                 int((p[truth] >= t).sum()), int(truth.sum()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_judge_arguments(parser, patches=6000, held_out=600, steps=6000, seed=50)
    parser.add_argument("--touching", type=float, default=0.2,
                        help="share of rendered throws whose dice lie pressed face to face")
    args = parser.parse_args(argv)
    start_judge_training(args)
    patches = render_patches(args.patches, args.seed, args.workers, args.touching)
    views = judge_views(patches, args.detector)
    log.info("%d patches, %d views (%d cocked)", len(patches), len(views),
             sum(v[3] for v in views))
    net = train_judge(views, args.steps, args.batch, args.lr, args.seed)
    path = args.out / cj.JUDGE_FILE.name
    export(net, torch.zeros(1, cj.JUDGE_CHANNELS, cj.JUDGE_CROP, cj.JUDGE_CROP), path,
           {0: "batch"})
    if args.held_out:
        held = render_patches(args.held_out, args.seed + 1000, args.workers, args.touching)
        report(path, judge_views(held, args.detector))
    return 0


if __name__ == "__main__":
    sys.exit(main())
