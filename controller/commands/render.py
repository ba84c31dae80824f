"""`spieltisch render`: write a folder of rendered frames with their truth in labels.json."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from controller.rules.games import NAMES
from vision.render_dataset import write_dataset

log = logging.getLogger(__name__)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, got {text!r}") from None
    if w < 160 or h < 120:
        raise argparse.ArgumentTypeError(f"size {w}x{h} is too small (at least 160x120)")
    return w, h


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a share is 0..1, got {value}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render", help="render labelled camera frames of random positions (images + labels.json)")
    parser.add_argument("outdir", type=Path, metavar="OUTDIR")
    parser.add_argument("--game", choices=NAMES, required=True)
    parser.add_argument("--count", type=int, default=100, help="number of frames (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same frames (default 0)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                        help="Mensch: number of seats (default 2)")
    parser.add_argument("--hand", type=_share, default=0.1,
                        help="share of frames with a hand over the board (default 0.1)")
    parser.add_argument("--cocked", type=_share, default=0.1,
                        help="chance that a die is cocked (default 0.1)")
    parser.add_argument("--size", type=_size, default=(1280, 720), help="WxH (default 1280x720)")
    parser.add_argument("--palette", choices=("hofer", "walnut"), default="hofer",
                        help="the table's colours (default hofer)")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if args.count < 1:
        print(f"render: --count must be at least 1, got {args.count}", file=sys.stderr)
        return 2
    try:
        labels = write_dataset(args.outdir, args.game, args.count, args.seed,
                               players=args.players, hand=args.hand, cocked=args.cocked,
                               size=args.size, palette=args.palette)
    except (OSError, ValueError) as exc:
        print(f"render: {exc}", file=sys.stderr)
        return 1
    print(f"{args.count} frames written; labels in {labels}")
    return 0
