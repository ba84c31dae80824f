"""`spieltisch calibrate`: find the board, learn the empty board and the pieces, prove it reads.

    spieltisch calibrate FRAME --game G [--players N] [--geometry TOML]
        [--corners X1,Y1,X2,Y2,X3,Y3,X4,Y4] [--empty FRAME] [--position JSON] --out FILE

FRAME shows `--position` (the JSON of a table-log `board` line; default the start position);
`--empty` is a frame of the empty board from the same camera. Writes the calibration file and
an overlay picture with every field outlined. Exit 0 only when the calibration was written;
otherwise 1, with the cause on standard error (in German and English where the table shows it).
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import sys
from pathlib import Path
from typing import NoReturn

import cv2
import numpy as np

from controller.commands.vision import camera_height
from controller.table_log import TableLogError, event_from_json
from controller.words import BackgammonBoard, BoardObserved, MaednBoard, lookup
from vision.board_errors import CalibrationError
from vision.board_finder import parse_corners
from vision.calibrate import calibrate
from vision.calibration_overlay import overlay
from vision.geometry import GeometryError

log = logging.getLogger(__name__)


def _usage_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """Usage errors exit 1 like every other failure of this command (a script checks 0)."""
    parser.print_usage(sys.stderr)
    parser.exit(1, f"{parser.prog}: error: {message}\n")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="find the board and learn the empty board and the pieces",
        description=__doc__.split("\n\n")[1] if __doc__ else None)
    parser.error = functools.partial(_usage_error, parser)  # type: ignore[method-assign]
    parser.add_argument("image", type=Path, nargs="?", metavar="FRAME",
                        help="picture of the board showing --position (or use --camera)")
    parser.add_argument("--camera", type=int, default=None, metavar="INDEX",
                        help="grab the pictures from this OpenCV camera instead of files")
    parser.add_argument("--game", choices=("backgammon", "maedn"), required=True)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4),
                        help="Mensch: how many colours stand in their houses (default 4)")
    parser.add_argument("--geometry", type=Path, default=None, metavar="TOML",
                        help="board geometry (default: the Hofer table; docs/geometry.md)")
    parser.add_argument("--corners", type=_corners, default=None,
                        metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4",
                        help="the board's outer corners in the picture (pixels): top-left, "
                             "top-right, bottom-right, bottom-left as the camera sees them")
    parser.add_argument("--empty", type=Path, default=None, metavar="FRAME",
                        help="a picture of the empty board from the same camera (best)")
    parser.add_argument("--position", default=None, metavar="JSON",
                        help="the position FRAME shows: a table-log board line (JSON, or a "
                             "file holding it); default the start position")
    parser.add_argument("--out", type=Path, default=Path("calibration.json"),
                        help="calibration file to write (default calibration.json)")
    parser.add_argument("--overlay", type=Path, default=None,
                        help="picture with every field outlined (default: next to --out)")
    parser.add_argument("--no-markers", action="store_true",
                        help="ignore ArUco markers and find the board from its outline")
    parser.add_argument("--camera-height", type=camera_height, default=None, metavar="MM",
                        help="the lens's height above the board in mm, measured with a tape "
                             "(default: worked out from the board's perspective)")
    parser.set_defaults(func=_run)


def _corners(text: str) -> np.ndarray:
    """argparse type for --corners: the message says what a valid value looks like."""
    try:
        return parse_corners(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _grab(camera: int, prompt: str) -> np.ndarray | None:
    if prompt and sys.stdin.isatty():
        input(prompt)
    capture = cv2.VideoCapture(camera)
    try:
        ok, frame = capture.read()
    finally:
        capture.release()
    return frame if ok else None


def _picture(path: Path, what: str) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
    if image is None:
        why = "no such file" if not path.is_file() else "not a readable image"
        raise ValueError(f"{what} {path}: {why}")
    return image


def parse_position(text: str, game: str) -> BackgammonBoard | MaednBoard:
    """`--position`: a table-log board line (JSON text, or a file holding it)."""
    source = text
    if not text.lstrip().startswith("{") and Path(text).is_file():
        source = Path(text).read_text("utf-8")
    try:
        data = json.loads(source)
        if isinstance(data, dict):
            data = {"type": "board", **data}
        event = event_from_json(data)
    except (json.JSONDecodeError, TableLogError) as exc:
        raise ValueError(f"--position is not a board line: {exc}") from None
    if not isinstance(event, BoardObserved):
        raise ValueError("--position is not a board line")
    wanted = BackgammonBoard if game == "backgammon" else MaednBoard
    if not isinstance(event.board, wanted):
        raise ValueError(f"--position is not a {game} position")
    return event.board


def _run(args: argparse.Namespace) -> int:
    if (args.image is None) == (args.camera is None):
        print("calibrate: give either FRAME or --camera INDEX", file=sys.stderr)
        return 1
    try:
        start = parse_position(args.position, args.game) if args.position else None
        if args.camera is not None:
            empty = None
            if args.empty is None and sys.stdin.isatty():
                empty = _grab(args.camera, "Clear the board, then press Enter "
                                           "(Brett abräumen, dann Enter drücken) ")
            image = _grab(args.camera, "Set up the pieces, then press Enter "
                                       "(Steine aufstellen, dann Enter drücken) ")
            if image is None:
                raise ValueError(f"camera {args.camera} gave no picture")
        else:
            image = _picture(args.image, "picture")
            empty = None
        if args.empty is not None:
            empty = _picture(args.empty, "empty board")
        calib = calibrate(image, args.game, start=start, use_markers=not args.no_markers,
                          players=args.players,
                          geometry_file=str(args.geometry) if args.geometry else None,
                          camera_height_mm=args.camera_height, empty=empty,
                          corners=args.corners)
    except (CalibrationError, GeometryError, ValueError, OSError) as exc:
        print(f"calibrate: {exc}", file=sys.stderr)
        why = getattr(exc, "reason", None)
        if why is not None:
            print(f"  {why.de} / {why.en}", file=sys.stderr)
        else:  # a file, an option or the camera: the line above names which
            print("  Bild, Datei oder Angabe fehlerhaft (siehe oben) / "
                  "a picture, file or option is wrong (see above)", file=sys.stderr)
        print("  Die bisherige Kalibrierung bleibt gültig / "
              "the previous calibration stays in force", file=sys.stderr)
        return 1
    overlay_path = args.overlay or args.out.with_name(args.out.stem + "_overlay.png")
    try:
        calib.save(args.out)
    except OSError as exc:
        print(f"calibrate: cannot write {args.out}: {exc}", file=sys.stderr)
        return 1
    if not cv2.imwrite(str(overlay_path), overlay(image, calib)):
        print(f"calibrate: cannot write {overlay_path} (the calibration was written)",
              file=sys.stderr)
    print(f"board found from its {calib.method}; calibration written to {args.out}")
    print(f"check the outlined fields in {overlay_path}")
    if calib.empty_source != "frame":
        print("no picture of the empty board: the empty fields under the pieces were "
              "borrowed from fields like them (give --empty for a surer reading)")
    if calib.colours_in_play:
        print(f"piece colours learned: {', '.join(map(str, calib.colours_in_play))}")
    for key in calib.warnings:
        text = lookup(key)
        print(f"warning: {text.de} / {text.en}")
    return 0
