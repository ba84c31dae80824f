"""Checker rims along the lanes (`vision.lane_rings`): where a ring is looked for, and how
its score is weighed per checker colour."""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_evidence import lane_counts
from vision.board_regions import lane_rows
from vision.calibration import STANDARD_BACKGAMMON
from vision.camera_pose import CameraPose
from vision.geometry import load_geometry
from vision.lane_rings import RingScores, learn_levels, ring_places, ring_scores

GEO = load_geometry().backgammon
POSE = CameraPose((GEO.width / 2, GEO.height / 2), 800.0, 1.0)
ROWS = lane_rows(GEO, POSE)
PLACES = ring_places(GEO, ROWS)
NAMES = [lane.name for lane in GEO.lanes()]


def _rim_half(lane_name: str, facing: float) -> np.ndarray:
    """New structure of a first checker's rim on `lane_name`, only on the half of the ring
    facing along the lane (`facing` 1) or back towards the frame (-1)."""
    lane = GEO.lane(lane_name)
    i = NAMES.index(lane_name)
    new = np.zeros((round(GEO.height), round(GEO.width)), np.float32)
    centre = np.array(lane.at(GEO.checker_diameter / 2 + ROWS.lean[i]))
    radius = GEO.checker_diameter / 2 - 1.0
    for t in np.linspace(0, 2 * np.pi, 720, endpoint=False):
        offset = np.array([np.cos(t), np.sin(t)]) * radius
        if facing * float(offset @ np.array(lane.direction)) > 0:
            x, y = np.round(centre + offset).astype(int)
            new[y, x] = 60.0
    return cv2.GaussianBlur(new, (0, 0), 1.0)


def test_a_first_checker_whose_frame_side_is_hidden_still_shows_its_rim() -> None:
    """A raised frame hides the first checker's rim on the frame's side: the half facing
    along the point is enough, while the hidden half alone makes no ring."""
    i = NAMES.index("p24")
    seen = ring_scores(_rim_half("p24", 1.0), PLACES)
    hidden = ring_scores(_rim_half("p24", -1.0), PLACES)
    assert seen.near(i, 0.0) > 5.0
    assert hidden.near(i, 0.0) < 1.0
    assert seen.near(NAMES.index("p23"), 0.0) == 0.0


def _scores(white: float, black: float, empty: float) -> tuple[RingScores, dict[str, int]]:
    """Ring scores of the start position: `white`/`black` where each colour's checkers start,
    `empty` everywhere else."""
    counts = lane_counts(STANDARD_BACKGAMMON)
    scores = []
    for lane, along in zip(GEO.lanes(), PLACES.along, strict=True):
        n = counts.get(lane.name, 0)
        level = white if n > 0 else black if n < 0 else empty
        scores.append(np.full(len(along), level, np.float64))
    return RingScores(PLACES.along, tuple(scores)), counts


def test_rim_levels_are_learned_per_colour() -> None:
    """White checkers on cream points draw faint rims, black ones strong rims: a faint white
    rim must still count as a white checker, which one level for both would not allow."""
    scores, counts = _scores(white=8.0, black=40.0, empty=0.5)
    white, black = learn_levels(scores, GEO.lanes(), counts)
    assert white is not None and black is not None
    assert white.present == 8.0 and black.present == 40.0
    assert white.p_piece(np.array([8.0]))[0] > 0.9
    assert black.p_piece(np.array([8.0]))[0] < 0.5  # as faint as an empty place, nearly
    assert white.p_piece(np.array([0.5]))[0] < 0.3


def test_a_colour_whose_rims_do_not_stand_out_gets_no_levels() -> None:
    scores, counts = _scores(white=0.6, black=40.0, empty=0.5)
    white, black = learn_levels(scores, GEO.lanes(), counts)
    assert white is None and black is not None
