"""`spieltisch vision`: read dice or the board from image files; score the readers on a folder.

    spieltisch vision board FRAME... --calibration FILE --json

prints one JSON line per frame, in order: `{"image": ..., "board": {...}}` (the table log's
board shape), `{"image": ..., "blocked": "<why>"}` when a hand or an object hides the board or
the reading is not sure enough, or `{"image": ..., "error": "<what is wrong>"}`; it goes on
after each and exits 0 unless the calibration cannot be read (then 1).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import cv2

from controller.table_log import TableLogError, event_from_json, event_to_json
from controller.words import BoardObserved

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

    board = group.add_parser("board", help="read the board in frames of a calibrated camera")
    board.add_argument("images", nargs="+", type=Path, metavar="FRAME")
    board.add_argument("--calibration", type=Path, required=True, metavar="FILE",
                       help="the file `spieltisch calibrate` wrote for this camera")
    board.add_argument("--json", action="store_true", help="one JSON line per frame")
    board.set_defaults(func=_run_board)

    ev = group.add_parser("eval", help="score the dice or board reader on a labelled folder")
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


def _run_board(args: argparse.Namespace) -> int:
    from vision.board_errors import CalibrationError
    from vision.calibration import Calibration
    from vision.frame_reader import FrameReader
    from vision.geometry import GeometryError
    from vision.print_match import AnyViewReader

    try:
        calib = Calibration.load(args.calibration)
        reader = AnyViewReader(FrameReader(calib, players=calib.players, dice_reader=None,
                                           all_checkers=True))
    except (CalibrationError, GeometryError, ValueError) as exc:
        print(f"vision board: {exc}", file=sys.stderr)
        return 1
    for path in args.images:
        record: dict = {"image": str(path)}
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            why = "no such file" if not path.is_file() else "not a readable image"
            record["error"] = f"{path}: {why}"
        else:
            try:
                reading = reader.read_board(image)
            except ValueError as exc:
                reading, record["error"] = None, f"{path}: {exc}"
            if reading is not None and reading.board is not None:
                record["board"] = board_json(reading.board)
            elif reading is not None:
                record["blocked"] = reading.why
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            shown = record.get("board") or record.get("blocked") or record.get("error")
            print(f"{path}: {shown}", flush=True)
    return 0


def board_json(board: object) -> dict:
    """A board as the table log writes it (without the line's type and time)."""
    line = event_to_json(BoardObserved(board=board))  # type: ignore[arg-type]
    return {k: v for k, v in line.items() if k not in ("type", "t")}


def _run_eval(args: argparse.Namespace) -> int:
    from vision.dice import DiceModelError
    from vision.dice_eval import EvalReport, LabelError, evaluate, load_labels

    if _holds_boards(args.folder):
        return _run_board_eval(args)

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


def _holds_boards(folder: Path) -> bool:
    """True for a folder of set-ups (photoreal renders, `spieltisch record`), not of dice."""
    try:
        return "setups" in json.loads((folder / "labels.json").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, TypeError):
        return False


def _parse_board(obj: dict) -> object:
    event = event_from_json({"type": "board", **obj})
    return event.board  # type: ignore[attr-defined]


def _run_board_eval(args: argparse.Namespace) -> int:
    from vision.board_eval import BoardLabelError, evaluate_boards, load_setups

    repository = Path(__file__).resolve().parents[2]
    try:
        setups = load_setups(args.folder, _parse_board, args.split, repository)
        report = evaluate_boards(setups).as_dict()
    except (BoardLabelError, TableLogError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"set-ups:             {report['setups']} ({report['calibrated']} calibrated)")
    for refusal in report["refused"]:
        print(f"  refused: {refusal}")
    print(f"corners within 1 %:  {report['corners_within_1pct']} of "
          f"{report['corners_measured']} (of the board's diagonal)")
    print(f"clear frames:        {report['clear_right']} of {report['clear_frames']} boards "
          f"right ({report['board_accuracy']:.2%}), {report['clear_no_board']} without a board")
    print(f"fields:              {report['fields_right']} of {report['fields']} right "
          f"({report['field_accuracy']:.2%})")
    print(f"hand frames:         {report['hands_blocked']} of {report['hand_frames']} blocked")
    print(f"wrong readings:      {len(report['wrong_readings'])}")
    for wrong in report["wrong_readings"]:
        print(f"  {wrong}")
    print(f"ms per frame:        {report['ms_median']:.1f} (median)")
    return 0
