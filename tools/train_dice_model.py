"""Train the dice detector and classifier on the `train` split and export them to ONNX.

Needs PyTorch for training only (`pip install torch==2.13.0 onnx`); the reader itself runs the
exported files with OpenCV. Usage:

    .venv/bin/python tools/train_dice_model.py [--data DIR] [--out vision/models] [--val-every 0]

`--val-every N` holds out every N-th train image to choose settings on and reports the reader on
them with 1, 2 and 4 views; the committed model is trained with `--val-every 0` (all 200 train
photos). `--init-classifier FILE.onnx` fine-tunes an exported classifier instead of starting
anew (the exact commands of the committed models are in `vision/models/README.md`). The test
split is never read here. The data (photos, rendered throws, crops) come from
`tools/dice_training_data.py`; this module holds the networks, their training and export.
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_training_data import (
    Sample,
    classifier_example,
    detector_example,
    load_samples,
    mine_detector_views,
    pick,
    render_patches,
    render_samples,
    table_scale_photos,
)

from vision import dice_model as dm
from vision.dice_eval import default_data_dir

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



def focal_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - target) ** 4 * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)




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
