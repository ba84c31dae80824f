"""`spieltisch vision`: read dice from image files; score the dice reader on a labelled folder."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("vision", help="camera and photo tools (dice reading)")
    group = parser.add_subparsers(dest="vision_command", metavar="TOOL")
    parser.set_defaults(func=lambda _args: _usage(parser))

    dice = group.add_parser("dice", help="read the dice in image files")
    dice.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    dice.add_argument("--json", action="store_true", help="one JSON line per image")
    dice.add_argument("--die-size", type=float, default=None, metavar="PX",
                      help="expected die width in pixels (default: found in each picture)")
    dice.add_argument("--camera-height", type=camera_height, default=None, metavar="MM",
                      help="the lens's height above the board, looking down at the picture's "
                           "centre: flat dice off that centre show side faces (default: every "
                           "die seen straight from above)")
    dice.set_defaults(func=_run_dice)

    ev = group.add_parser("eval", help="score the dice reader on a labelled folder")
    ev.add_argument("folder", type=Path, metavar="DIR", help="folder with labels.json and images")
    ev.add_argument("--split", default=None, help="only images of this split (e.g. test)")
    ev.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ev.add_argument("--die-size", type=float, default=None, metavar="PX",
                    help="die width in pixels (default: the labels' die_px, else found in "
                         "each picture)")
    ev.set_defaults(func=_run_eval)


def camera_height(text: str) -> float:
    """argparse type: a lens height in mm above the board that the dice reader can work with."""
    from vision.parallax import Parallax

    try:
        return Parallax.check_height(float(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _reader(die_size: float | None, parallax=None, any_size: bool = False):
    """The dice reader (imported lazily) for dice `die_size` px wide (default: the photos')
    seen by a camera with that `vision.parallax.Parallax` (default: none, looking straight at
    every die); with no size nor camera and `any_size`, the reader that finds each picture's
    die sizes itself (`vision.dice_scale`)."""
    from vision.dice import DiceReader

    if die_size is None and parallax is None and any_size:
        from vision.dice_scale import AnySizeDiceReader

        return AnySizeDiceReader()
    if die_size is None:
        return DiceReader(parallax=parallax)
    return DiceReader(die_size_px=die_size, parallax=parallax)


def _run_dice(args: argparse.Namespace) -> int:
    import cv2

    from vision.dice import DiceInputError, DiceModelError
    from vision.parallax import Parallax

    try:
        reader = _reader(args.die_size, any_size=args.camera_height is None)
    except DiceModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    status = 0
    for path in args.images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            why = "no such file" if not path.is_file() else "not a readable image"
            _emit(args.json, {"image": str(path), "error": f"{path}: {why}"})
            status = 1
            continue
        start = time.perf_counter()
        try:
            if args.camera_height is not None:
                height, width = image.shape[:2]
                reader.parallax = Parallax.of_camera((width / 2, height / 2), args.camera_height)
            dice = reader.read(image)
        except DiceInputError as exc:
            _emit(args.json, {"image": str(path), "error": f"{path}: {exc}"})
            status = 1
            continue
        ms = (time.perf_counter() - start) * 1000.0
        record = {"image": str(path), "dice": [d.to_json() for d in dice], "ms": round(ms, 3)}
        _emit(args.json, record)
    return status


def _emit(as_json: bool, record: dict) -> None:
    if as_json:
        print(json.dumps(record), flush=True)
    elif "error" in record:
        print(f"{record['image']}: error: {record['error']}", file=sys.stderr, flush=True)
    else:
        values = " ".join(
            "?" if d["cocked"] else str(d["value"]) for d in record["dice"]
        ) or "(no dice)"
        print(f"{record['image']}: {values}  ({record['ms']:.1f} ms)", flush=True)


def _run_eval(args: argparse.Namespace) -> int:
    from vision.dice import DiceModelError
    from vision.dice_eval import EvalReport, LabelError, evaluate, load_labels

    try:
        images = load_labels(args.folder, args.split)
        report = EvalReport()
        # --die-size wins; else each image's own `die_px` (the renderer writes it), else the
        # reader finds each picture's sizes. Each image's camera (the renderer writes it) says
        # what side faces flat dice show.
        groups: dict[tuple, list] = {}
        for im in images:
            size = im.die_px if args.die_size is None else args.die_size
            groups.setdefault((size, im.parallax), []).append(im)
        for (size, parallax), group in groups.items():
            reader = _reader(size, parallax, any_size=True)
            evaluate(lambda im, r=reader: [(d.value, d.box) for d in r.read(im)], group, report)
    except (LabelError, DiceModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_dict()))
        return 0
    print(f"images:              {report.images}")
    print(f"dice:                {report.dice}")
    print(f"per-die accuracy:    {report.die_accuracy:.2%} "
          f"({report.right} right, {report.wrong_value} wrong value, {report.missed} missed)")
    print(f"false dice/image:    {report.false_per_image:.3f} ({report.false_dice} in all)")
    print(f"images all right:    {report.image_accuracy:.2%} "
          f"({report.images_all_right} of {report.images})")
    print(f"ms per image:        {report.ms_median:.2f} (median)")
    if report.failures:
        print("not entirely right: " + ", ".join(report.failures))
    return 0
