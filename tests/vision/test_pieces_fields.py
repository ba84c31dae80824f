"""Pieces: every stack height 0–15 on points, bar and trays; every Mensch field in every colour;
the colour model itself."""

from __future__ import annotations

import numpy as np
import pytest

from controller.words.events import BackgammonBoard, MaednBoard
from vision.calibration import STANDARD_BACKGAMMON, calibrate, maedn_start
from vision.frame_reader import FrameReader
from vision.pieces import ColourModel
from vision.renderer import Scene, render


@pytest.fixture(scope="module")
def backgammon() -> tuple:
    frame = render(Scene(STANDARD_BACKGAMMON), seed=41)
    return frame.camera, FrameReader(calibrate(frame.image, "backgammon"), dice_reader=None)


@pytest.fixture(scope="module")
def maedn() -> tuple:
    frame = render(Scene(maedn_start(4)), seed=42)
    return frame.camera, FrameReader(calibrate(frame.image, "maedn"), players=4,
                                     dice_reader=None)


def stack_board(height: int, where: str) -> BackgammonBoard:
    """`height` white checkers at `where`; the other white and all black checkers elsewhere."""
    points = [0] * 24
    extra = {"bar_white": 0, "bar_black": 0, "off_white": 0, "off_black": 0}
    rest = 15 - height
    if where.startswith("p"):
        points[int(where[1:]) - 1] = height
    else:
        extra[where] = height
    spare = [i for i in (2, 9, 14, 21) if f"p{i + 1}" != where]
    points[spare[0]] = rest
    black = -15 if where != "off_black" else -(15 - height)
    if where in ("bar_black", "off_black"):
        points[spare[0]] = 15
        black = -(15 - height)
    points[spare[1]] = black
    return BackgammonBoard(tuple(points), **extra)


PLACES = ("p1", "p6", "p7", "p12", "p13", "p18", "p19", "p24", "bar_white", "bar_black",
          "off_white", "off_black")


@pytest.mark.parametrize("height", range(16))
def test_every_stack_height_is_counted(backgammon: tuple, height: int) -> None:
    camera, reader = backgammon
    for k, where in enumerate(PLACES[height % 4::4]):
        board = stack_board(height, where)
        obs = reader.read(render(Scene(board), seed=100 * height + k, camera=camera).image)
        assert obs.board == board, f"{height} checkers at {where} read as {obs.board}"


@pytest.mark.parametrize("colour", range(4))
def test_every_field_is_read_in_every_colour(maedn: tuple, colour: int) -> None:
    camera, reader = maedn
    positions = list(range(-1, 44))
    for k in range(0, len(positions), 4):
        mine = tuple(sorted(([*positions[k:k + 4], -1, -1, -1])[:4]))
        seats = tuple(mine if seat == colour else (-1, -1, -1, -1) for seat in range(4))
        board = MaednBoard(seats)
        obs = reader.read(render(Scene(board), seed=1000 + 50 * colour + k,
                                 camera=camera).image)
        assert obs.board == board, f"colour {colour} at {mine} read as {obs.board}"
        names = [name for name, _ in obs.field_confidence]
        assert len(names) == 72 and all(0.0 <= c <= 1.0 for _, c in obs.field_confidence)


def test_colour_model_prefers_the_class_a_sample_came_from() -> None:
    rng = np.random.default_rng(3)
    red = rng.normal([0.2, 0.2, 0.6, 0.4], 0.01, (200, 4)).astype(np.float32)
    cream = rng.normal([0.28, 0.34, 0.38, 0.8], 0.01, (200, 4)).astype(np.float32)
    model = ColourModel.fit({"red": red[:100], "cream": cream[:100]})
    dist = model.distances(np.concatenate([red[100:], cream[100:]]))
    assert (dist[:100].argmin(axis=1) == 0).all() and (dist[100:].argmin(axis=1) == 1).all()
    blend = 0.5 * (red[100:110].mean(axis=0) + cream[100:110].mean(axis=0))
    first, second = np.array([0]), np.array([1])
    assert model.mixture_distances(blend[None], first, second)[0] < 1.0
    assert model.distances(blend[None]).min() > 25.0


def test_colour_model_round_trips_through_json() -> None:
    rng = np.random.default_rng(4)
    model = ColourModel.fit({"a": rng.normal(0.5, 0.1, (50, 4)).astype(np.float32)})
    assert ColourModel.from_json(model.to_json()) == model
