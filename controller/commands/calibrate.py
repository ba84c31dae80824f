"""`spieltisch calibrate`: find the board in a picture of the start position, learn its colours.

Writes the calibration file the frame reader needs and an overlay picture with every field
outlined, so a person can check at a glance that the fields sit where the board's fields are.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from controller.commands.vision import camera_height

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="find the board and learn its colours from a start-position picture")
    parser.add_argument("image", type=Path, nargs="?", metavar="IMAGE",
                        help="picture of the board in its start position (or use --camera)")
    parser.add_argument("--camera", type=int, default=None, metavar="INDEX",
                        help="grab the picture from this OpenCV camera instead of a file")
    parser.add_argument("--game", choices=("backgammon", "maedn"), required=True)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4),
                        help="Mensch: how many colours stand in their houses (default 4)")
    parser.add_argument("--out", type=Path, default=Path("calibration.json"),
                        help="calibration file to write (default calibration.json)")
    parser.add_argument("--overlay", type=Path, default=None,
                        help="picture with every field outlined (default: next to --out)")
    parser.add_argument("--no-markers", action="store_true",
                        help="ignore ArUco markers and find the board from its outline")
    parser.add_argument("--camera-height", type=camera_height, default=None, metavar="MM",
                        help="the lens's height above the board in mm, measured with a tape "
                             "(default 650): how much side face a flat die shows the camera")
    parser.add_argument("--geometry", type=Path, default=None,
                        help="board geometry TOML (default: the Hofer 12-in-1 table)")
    parser.set_defaults(func=_run)


def _grab(camera: int):  # -> np.ndarray | None
    import cv2

    capture = cv2.VideoCapture(camera)
    try:
        ok, frame = capture.read()
    finally:
        capture.release()
    return frame if ok else None


def _run(args: argparse.Namespace) -> int:
    import cv2

    from controller.words.reasons import lookup
    from vision.calibration import CalibrationError, calibrate, overlay
    from vision.geometry import GeometryError

    if (args.image is None) == (args.camera is None):
        print("calibrate: give either IMAGE or --camera INDEX", file=sys.stderr)
        return 2
    if args.camera is not None:
        image = _grab(args.camera)
        if image is None:
            print(f"calibrate: camera {args.camera} gave no picture", file=sys.stderr)
            return 1
    else:
        image = cv2.imread(str(args.image), cv2.IMREAD_COLOR) if args.image.is_file() else None
        if image is None:
            why = "no such file" if not args.image.is_file() else "not a readable image"
            print(f"calibrate: {args.image}: {why}", file=sys.stderr)
            return 1
    from vision.parallax import DEFAULT_CAMERA_HEIGHT_MM

    height = DEFAULT_CAMERA_HEIGHT_MM if args.camera_height is None else args.camera_height
    try:
        calib = calibrate(image, args.game, use_markers=not args.no_markers,
                          players=args.players,
                          geometry_file=str(args.geometry) if args.geometry else None,
                          camera_height_mm=height)
    except (CalibrationError, GeometryError, ValueError) as exc:
        print(f"calibrate: {exc}", file=sys.stderr)
        why = getattr(exc, "reason", None)
        if why is not None:
            print(f"  {why.de} / {why.en}", file=sys.stderr)
        return 1
    calib.save(args.out)
    overlay_path = args.overlay or args.out.with_name(args.out.stem + "_overlay.png")
    if not cv2.imwrite(str(overlay_path), overlay(image, calib)):
        print(f"calibrate: cannot write {overlay_path}", file=sys.stderr)
        return 1
    print(f"board found from its {calib.method}; calibration written to {args.out}")
    print(f"check the outlined fields in {overlay_path}")
    if calib.piece_colours:
        print(f"piece colours learned: {', '.join(map(str, calib.piece_colours))}")
    for key in calib.warnings:
        text = lookup(key)
        print(f"warning: {text.de} / {text.en}")
    return 0
