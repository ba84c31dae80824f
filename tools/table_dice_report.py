"""Flat dice at the simulated table, read as the table reads them.

For each camera mount of the simulated table (`controller.sim.camera.simulated_mount`, the
mount a game with that seed is played under) the start position is drawn with dice thrown
where that game's throws land, calibrated from a frame of it with the mount's height measured
to the centimetre (as the simulated table does), and read by the table's own frame reader
(its thresholds, its dice regions, the calibration's parallax):

    .venv/bin/python tools/table_dice_report.py --game maedn --seeds 100-119 --throws 100

One line per mount: lens height, die width, the calibration's warnings, and of the flat dice
how many were read right, asked again (flagged cocked: the table would ask for a re-roll),
read wrong (the table would accept a wrong roll) and not found. The per-mount figures in
docs/vision-dice.md ("Where the table's flat dice go unread") and docs/calibration.md
("A blurred picture") were measured this way.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.sim.camera import measured_camera_heights, simulated_mount
from vision import renderer
from vision.calibrate import calibrate
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.frame_reader import FrameReader, die_size_px
from vision.geometry import load_geometry

SIZE = (1280, 720)
OUTCOMES = ("right", "asked again", "read wrong", "not found")


def seed_range(text: str) -> range:
    """"100-119" (both ends included) or a single seed."""
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if match is None or int(match[2] or match[1]) < int(match[1]):
        raise argparse.ArgumentTypeError(f"expected SEED or FIRST-LAST, got {text!r}")
    return range(int(match[1]), int(match[2] or match[1]) + 1)


def mount_report(game: str, seed: int, throws: int) -> tuple[dict[str, object], Counter[str]]:
    """The mount's facts and how its flat dice were read."""
    geometry = load_geometry()
    camera = simulated_mount(seed, game, SIZE)
    height = measured_camera_heights(seed, SIZE)[game]
    players = 4 if game == "maedn" else 2
    start = maedn_start(players) if game == "maedn" else STANDARD_BACKGAMMON
    first = renderer.render(renderer.Scene(board=start), seed=seed, camera=camera,
                            geometry=geometry, size=SIZE)
    calib = calibrate(first.image, game, players=players, camera_height_mm=height)
    reader = FrameReader(calib, players=players)
    board = geometry.board(game)
    facts = {"height_mm": height, "die_px": die_size_px(calib.to_image, board.width, board.height),
             "warnings": calib.warnings}
    count: Counter[str] = Counter()
    per_throw = 1 if game == "maedn" else 2
    for throw in range(throws):
        values = tuple(int(v) for v in np.random.default_rng([seed, throw]).integers(1, 7,
                                                                                    per_throw))
        frame = renderer.render(renderer.Scene(board=start, dice=values, throw=throw), seed=seed,
                                camera=camera, geometry=geometry, size=SIZE)
        readings = reader.read(frame.image).dice
        for die, (x0, y0, x1, y1) in zip(frame.dice, frame.dice_boxes, strict=True):
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            found = [r for r in readings
                     if r.box[0] <= cx <= r.box[2] and r.box[1] <= cy <= r.box[3]]
            if not found:
                count["not found"] += 1
            elif found[0].cocked:
                count["asked again"] += 1
            else:
                count["right" if found[0].value == die.value else "read wrong"] += 1
    return facts, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("maedn", "backgammon"), default="maedn")
    parser.add_argument("--seeds", type=seed_range, default=seed_range("100-109"))
    parser.add_argument("--throws", type=int, default=100, help="throws per mount")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    total: Counter[str] = Counter()
    print("seed  height mm  die px  " + "  ".join(OUTCOMES) + "  warnings")
    for seed in args.seeds:
        facts, count = mount_report(args.game, seed, args.throws)
        total += count
        print(f"{seed:4d}  {facts['height_mm']:9.0f}  {facts['die_px']:6.1f}  "
              + "  ".join(f"{count[o]:{len(o)}d}" for o in OUTCOMES)
              + f"  {' '.join(facts['warnings']) or '-'}", flush=True)
    print("all" + " " * 22 + "  ".join(f"{total[o]:{len(o)}d}" for o in OUTCOMES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
