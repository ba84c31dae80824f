"""An outline's sides recombined from the picture's long lines: which lines may replace a side,
the pairwise search, and the development photoreal frames where a plank seam or a board's
shadow passed for a side (tests/data/photoreal, development part: tuned on)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.board_finder import board_corners, find_board
from vision.geometry import load_geometry
from vision.outline_sides import recombined, side_options

ROOT = Path(__file__).resolve().parents[2]
PHOTOREAL = ROOT / "tests" / "data" / "photoreal"
BOARD = np.array([(100.0, 100.0), (500.0, 100.0), (500.0, 400.0), (100.0, 400.0)])


def line(a: tuple[float, float], b: tuple[float, float], support: float = 100.0):
    a_, b_ = np.array(a), np.array(b)
    return (a_, (b_ - a_) / np.linalg.norm(b_ - a_), support)


def test_a_side_may_take_only_near_lines_of_its_direction_once_each() -> None:
    lines = [line((0, 60), (600, 60)),       # 40 px above the top: near
             line((0, 60.5), (600, 60.8)),   # the same line again
             line((0, 20), (600, 20)),       # 80 px above: beyond reach
             line((300, 0), (300, 500)),     # across the top side, not along it
             line((0, 90), (600, 130))]      # tilted 3.8 degrees, within 20 px at the ends
    options = side_options(BOARD, lines, reach=50.0)
    top = options[0]
    assert np.allclose(top[0][0], BOARD[0])  # the side itself comes first
    assert len(top) == 3
    assert np.allclose(top[1][0], lines[0][0]) and np.allclose(top[2][0], lines[4][0])


def test_two_wrong_sides_are_swapped_together_for_the_best_score() -> None:
    truth = np.array([(100.0, 130.0), (500.0, 120.0), (510.0, 400.0), (100.0, 400.0)])
    found = np.array([(100.0, 90.0), (500.0, 60.0), (540.0, 400.0), (100.0, 400.0)])
    lines = [line(found[0], found[1], 900), line(found[1], found[2], 800),
             line(truth[0], truth[1], 300), line(truth[1], truth[2], 200),
             line((0, 250), (600, 250), 1000)]  # the bar's line: far from every side

    def score(corners: np.ndarray) -> float:
        return -float(np.abs(corners - truth).max())

    assert np.allclose(recombined(found, lines, score), truth, atol=1e-6)
    assert recombined(truth, lines, score) is truth  # nothing scores better: unchanged


def _setup(name: str) -> dict:
    labels = json.loads((PHOTOREAL / "labels.json").read_text("utf-8"))
    return next(s for s in labels["setups"] if s["id"] == name)


# bg03: oak planks, a seam a few centimetres beyond the board's far edge (one corner was 8 % of
# the diagonal off); md10: oak, rounded fields (every corner 2 % off).
@pytest.mark.parametrize("name", ["bg03", "md10"])
def test_the_outline_on_oak_planks_is_the_board(name: str) -> None:
    setup = _setup(name)
    assert setup["split"] == "dev"
    geometry = load_geometry(ROOT / setup["geometry"])
    image = cv2.imread(str(PHOTOREAL / f"images/{name}_empty.jpg"))
    fix = find_board(image, setup["game"], geometry)
    geo = geometry.board(setup["game"])
    found = fix.to_image(board_corners(geo.width, geo.height))
    true = np.array(setup["corners_px"])
    diagonal = float(np.linalg.norm(true[2] - true[0]))
    off = np.linalg.norm(found - true, axis=1) / diagonal
    assert fix.method == "outline" and off.max() < 0.01, f"corners off {off.round(3)}"
