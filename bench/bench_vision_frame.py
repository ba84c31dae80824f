"""Vision speed: one 1280×720 frame → Observation on one core (goal: median ≤ 15 ms).

The reader that compares with the empty board beside the colour-class reader it replaced (on
the same frames, in the same run: `bench/previous_reader.py`); also the steps inside (the board
warp alone), a frame seen from another view through `vision board`'s search for the print
(`vision.print_match.AnyViewReader`, not in the table's loop) and the renderer that feeds the
simulator.
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from bench.previous_reader import PREVIOUS, time_previous
from bench.timing import print_table, summary
from controller.words import BackgammonBoard, MaednBoard
from vision.calibrate import calibrate
from vision.calibration import STANDARD_BACKGAMMON, die_size_px, maedn_start
from vision.frame_reader import FrameReader
from vision.lens import warp_board
from vision.pair_judge import PairJudge
from vision.print_match import AnyViewReader
from vision.render_dataset import random_scene
from vision.renderer import Scene, render

FRAMES = 20
ROUNDS = 10
#: Another view: where the picture's corners go (share of its width and height), about 3 %.
ELSEWHERE = np.float32([[0.025, -0.015], [-0.02, 0.03], [0.015, 0.02], [-0.03, -0.01]])
EMPTY = {"backgammon": BackgammonBoard(points=(0,) * 24),
         "maedn": MaednBoard(pieces=((), (), (), ()))}


def _ms(fn, items: list) -> tuple[float, float]:
    samples = []
    for _ in range(ROUNDS):
        for item in items:
            start = time.perf_counter()
            fn(item)
            samples.append((time.perf_counter() - start) * 1000.0)
    return summary(samples)


def main() -> None:
    cv2.setNumThreads(1)
    rows = []
    for game in ("backgammon", "maedn"):
        start = STANDARD_BACKGAMMON if game == "backgammon" else maedn_start(4)
        calib_frame = render(Scene(start), seed=7)
        empty = render(Scene(EMPTY[game]), seed=7, camera=calib_frame.camera).image
        calib = calibrate(calib_frame.image, game, empty=empty)
        rng = np.random.default_rng(1)
        scenes = [random_scene(rng, game) for _ in range(FRAMES)]
        render_samples = []
        images = []
        for i, scene in enumerate(scenes):
            t0 = time.perf_counter()
            images.append(render(scene, seed=i, camera=calib_frame.camera).image)
            render_samples.append((time.perf_counter() - t0) * 1000.0)
        board_only = FrameReader(calib, dice_reader=None)
        geo = board_only.board_geo
        hom, lens = board_only.homography, calib.lens
        rows.append((game, "warp board region only (through the lens model)",
                     *_ms(lambda im, h=hom, g=geo, k=lens: warp_board(im, h, g.width, g.height, k),
                          images)))
        rows.append((game, "frame → Observation (board, no dice)", *_ms(board_only.read, images)))
        previous = time_previous(game, calib_frame.image, images, ROUNDS)
        rows.append((game, f"… the reader before it ({PREVIOUS}, board, no dice)",
                     *(previous or ("n/a (no git history)", "n/a"))))
        h, w = images[0].shape[:2]
        corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        view = cv2.getPerspectiveTransform(corners, corners + ELSEWHERE * np.float32([w, h]))
        elsewhere = [cv2.warpPerspective(im, view, (w, h)) for im in images[:5]]
        any_view = AnyViewReader(FrameReader(calib, dice_reader=None))
        rows.append((game, "frame from another view → board (print found; vision board)",
                     *_ms(any_view.read_board, elsewhere)))
        with_dice = FrameReader(calib)
        if with_dice.dice_reader is not None:
            rows.append((game, "frame → Observation (board + dice reader)",
                         *_ms(with_dice.read, images)))
        else:
            rows.append((game, "frame → Observation (board + dice reader)", "n/a", "n/a"))
        if with_dice.dice_reader is not None:
            # paid only for a die read unsurely as one of a judged pair (4 or 6: 27 of 360 on
            # two clear sets); both pairs' judges are the same network
            face = [(640.0, 360.0, die_size_px(calib.to_image, geo.width, geo.height))]
            judge = PairJudge((4, 6))
            rows.append((game, "pair judge, one unsure die (two views)",
                         *_ms(lambda im, f=face, j=judge: j.p_higher(im, f), images)))
        rows.append((game, "render one frame (simulator)", *summary(render_samples)))
    print_table("Vision: 1280×720 frame on one core (cv2.setNumThreads(1)), ms",
                ("game", "step", "median ms", "p99 ms"), rows)


if __name__ == "__main__":
    main()
