"""Unsure readings against the legal results of the turn, measured on degraded renders.

Random positions and rolls; the board after the turn is a legal result or an illegal play of
every kind the simulator makes (`controller.sim.illegal`), half and half; it is rendered, made
unsure as a camera out of focus in dim light makes it, read by the table's frame reader, and
the readings that come out unsure are decided as the table decides them
(`controller.table.board_scoring`):

    .venv/bin/python tools/board_scoring_report.py --game backgammon --frames 300 --blur 1.5

Prints one JSON object: per kind of frame (sure or unsure, legal or illegal) how many, and of
the unsure ones what the table made of them. `taken_as_legal` of an illegal play and
`flagged_falsely` of a legal result must be 0.
The figures in docs/vision.md ("When the reading is unsure") were measured this way.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.sim.illegal import make_illegal
from controller.table import board_scoring as bs
from vision.calibrate import calibrate
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.frame_reader import FrameReader
from vision.render_dataset import random_backgammon, random_maedn
from vision.renderer import Scene, render

PLAYERS = 4


def turn(game: str, rng: np.random.Generator) -> tuple[Any, tuple[int, ...]] | None:
    """A random position with the seat on turn and its roll (None: not a position)."""
    try:
        if game == "backgammon":
            pos = bg.Position.from_board(random_backgammon(rng), int(rng.integers(2)),
                                         bg.Options.preset("standard"))
            return pos, (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        pos = maedn.Position.from_board(random_maedn(rng, PLAYERS), int(rng.integers(PLAYERS)),
                                        maedn.Options.preset("hofer"), players=PLAYERS)
        return pos, (int(rng.integers(1, 7)),)
    except ValueError:
        return None


def results(pos: Any, dice: tuple[int, ...]) -> tuple[Any, ...]:
    """The distinct boards the legal plays leave (as `Referee.candidate_boards`)."""
    if isinstance(pos, bg.Position):
        boards = [after.to_board() for after in pos.legal_results(dice)]
    else:
        boards = [pos.apply(m, dice[0]).to_board() for m in pos.legal_plays(dice[0])]
    return tuple(dict.fromkeys(boards)) or (pos.to_board(),)


def degrade(image: np.ndarray, blur: float, rng: np.random.Generator) -> np.ndarray:
    """Out of focus (Gaussian, `blur` px), dimmer (0.6–1.0 of the light), noisy."""
    soft = cv2.GaussianBlur(image, (0, 0), blur).astype(np.float32) * rng.uniform(0.6, 1.0)
    return np.clip(soft + rng.normal(0.0, 4.0 * blur, image.shape), 0, 255).astype(np.uint8)


def outcome(decided: tuple[Any, ...], truth: Any, standing: Any, legal: bool,
            results: tuple[Any, ...]) -> str:
    if not decided:
        return "left_unsure"
    if legal and decided == (truth,):
        return "taken_right"
    if decided == (standing,):
        return "read_as_unchanged"
    if len(decided) == 1 and decided[0] not in results:
        # a careless board taken: the referee flags it as the illegal play it is
        return "flagged" if not legal else "flagged_falsely"
    if not legal:
        return "taken_as_legal" if len(decided) == 1 else "offered_as_legal"
    if len(decided) > 1:
        return "offered_with_truth" if truth in decided else "offered_without_truth"
    return "taken_wrong"


def measure(game: str, frames: int, blur: float, seed: int) -> dict[str, int]:
    rng, choose = np.random.default_rng(seed), random.Random(seed)
    start = STANDARD_BACKGAMMON if game == "backgammon" else maedn_start(PLAYERS)
    first = render(Scene(start), seed=seed)
    reader = FrameReader(calibrate(first.image, game, players=PLAYERS),
                         players=PLAYERS if game == "maedn" else 2, dice_reader=None)
    tally: Counter[str] = Counter()
    for index in range(frames * 50):
        if sum(tally[k] for k in tally if ":" not in k) >= frames:
            break
        found = turn(game, rng)
        if found is None:
            continue
        pos, dice = found
        legal = choose.random() < 0.5
        made = None if legal else make_illegal(game, pos, dice, choose)
        if not legal and made is None:
            continue
        truth = choose.choice(results(pos, dice)) if legal else made[1]  # type: ignore[index]
        image = render(Scene(truth), seed=index, camera=first.camera).image
        observation = reader.read(degrade(image, blur, rng))
        kind = "legal" if legal else "illegal"
        if observation.evidence is None:
            tally["blocked"] += 1
            continue
        if observation.board is not None:
            tally[f"sure {kind}"] += 1
            continue
        tally[f"unsure {kind}"] += 1
        standing = pos.to_board()
        legal_results = results(pos, dice)
        decided = bs.decide(bs.rank(observation, legal_results, standing))
        what = outcome(decided, truth, standing, legal, legal_results)
        if not legal and what != "left_unsure":
            what += f" ({made[0]})"  # type: ignore[index]
        tally[f"unsure {kind}: {what}"] += 1
    return dict(sorted(tally.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("backgammon", "maedn"), required=True)
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--blur", type=float, default=1.5, help="Gaussian sigma in pixels")
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    print(json.dumps(measure(args.game, args.frames, args.blur, args.seed), indent=1))


if __name__ == "__main__":
    main()
