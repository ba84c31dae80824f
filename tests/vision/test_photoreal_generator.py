"""tools/photoreal without Blender: the split, the positions, the 3D layout of stacks and the
camera model that the labels' pixels come from."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "photoreal"))

import families
import layout
import positions
import post
from camera import Camera, board_to_world, choose_camera

from vision.geometry import MaednGeometry, load_geometry

ROOT = Path(__file__).resolve().parents[2]


def test_the_split_keeps_every_family_on_one_side() -> None:
    for kind, split in families.families_json().items():
        assert not set(split["dev"]) & set(split["heldout"]), kind
        assert split["dev"] and split["heldout"], kind
    assert len(families.TABLES["dev"] + families.TABLES["heldout"]) >= 6
    assert len(families.LIGHTS["dev"] + families.LIGHTS["heldout"]) >= 4
    for game, prints in families.PRINTS.items():
        assert len(prints["dev"] + prints["heldout"]) >= 6, game
        for name in prints["dev"] + prints["heldout"]:
            load_geometry(ROOT / families.board_file(name))


def test_random_backgammon_has_fifteen_a_side_and_respects_the_stack_limit() -> None:
    rng = np.random.default_rng(3)
    tall = 0
    for limit in (5, 10):
        for _ in range(200):
            board = positions.random_backgammon(rng, limit)
            white = sum(p for p in board["points"] if p > 0)
            black = -sum(p for p in board["points"] if p < 0)
            assert white + board["bar"]["white"] + board["off"]["white"] == 15
            assert black + board["bar"]["black"] + board["off"]["black"] == 15
            assert max(abs(p) for p in board["points"]) <= limit
            tall += max(abs(p) for p in board["points"]) > 5
    assert tall > 50  # tall stacks come up often when allowed


def test_random_maedn_never_puts_two_pieces_on_one_field() -> None:
    geo = MaednGeometry()
    rng = np.random.default_rng(4)
    for players in (2, 3, 4):
        colours = geo.seat_colours(players)
        for _ in range(100):
            board = positions.random_maedn(rng, colours)
            fields = [geo.field_name(c, p) for c, seat in zip(colours, board["pieces"],
                                                               strict=True)
                      for p in seat if p != -1]
            assert len(fields) == len(set(fields))
            assert all(len(seat) == 4 for seat in board["pieces"])


def test_a_shingled_stack_starts_flat_and_no_checker_cuts_the_one_below() -> None:
    lane = load_geometry().backgammon.lanes()[0]
    d, t = 29.0, 8.0
    for count in range(6, 16):
        starts = [s + 0.5 for s in lane.offsets(count)]
        tilts = layout.shingle_tilts(starts, d, t)
        assert tilts[0] == 0.0 and all(0 < a < math.radians(80) for a in tilts[1:])
        for k in range(1, count):
            below = layout._profile(starts[k - 1], tilts[k - 1], d, t)
            assert layout._clears(below, starts[k], tilts[k] + 1e-6, d)


@pytest.mark.parametrize("stacking", ["rows", "overlap", "layers"])
def test_checkers_lie_in_their_lane(stacking: str) -> None:
    geo = load_geometry().backgammon
    board = {"points": [0] * 24, "bar": {"white": 2, "black": 0}, "off": {"white": 4, "black": 0}}
    board["points"][5] = 9 if stacking != "rows" else 5
    pieces = layout.Checkers(29.0, 7.5)
    placed = layout.backgammon_pieces(geo, board, stacking, pieces, 0.0, -15.0,
                                      np.random.default_rng(1))
    assert len(placed) == board["points"][5] + 2 + 4
    lane = geo.lanes()[5]
    on_point = [np.array(p["matrix"])[:3, 3] for p in placed[:board["points"][5]]]
    for x, y, z in on_point:
        assert abs(x - lane.origin[0]) < geo.point_width / 2
        assert 0 < lane.origin[1] + y < geo.stack_length + 2  # bottom lane runs upwards
        assert 0 < z < 3 * pieces.thickness
    if stacking == "layers":
        assert on_point[5][2] == pytest.approx(on_point[0][2] + pieces.thickness, abs=1e-6)
    x0, y0, x1, y1 = geo.tray_rect("white")
    for p in placed[-4:]:
        x, y, z = np.array(p["matrix"])[:3, 3]
        assert x0 < x < x1 and y0 < -y < y1 and z > pieces.diameter / 3  # standing on edge


def test_dice_show_their_value_on_top() -> None:
    for value, place, corners in layout.dice((0, 0, 200, 80), 2, np.random.default_rng(9)):
        rotation = np.array(place["matrix"])[:3, :3]
        normal = {1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0),
                  4: (0, -1, 0)}[value]
        assert rotation @ np.array(normal) == pytest.approx([0, 0, 1], abs=1e-9)
        assert corners[:, 2].min() == pytest.approx(0.0, abs=1e-9)


def test_labels_pixels_land_where_the_distorted_picture_shows_them() -> None:
    """The post step's remap and Camera.to_pixels invert each other."""
    cam = choose_camera(np.random.default_rng(5), (562, 420), (1280, 720))
    cam = Camera(cam.position, cam.rotation, cam.focal_px, cam.size, 0.12)
    corners = board_to_world(np.array([(0, 0), (562, 0), (562, 420), (0, 420)], float))
    shown = cam.to_pixels(corners)
    assert (shown > 0).all() and (shown[:, 0] < 1280).all() and (shown[:, 1] < 720).all()
    rw, rh = cam.render_size()
    scale = 0.75
    map_x, map_y = post.undistort_maps(cam, (round(rw * scale), round(rh * scale)))
    in_render = (cam.project(corners) - (np.array(cam.size) - 1) / 2) * \
        (round(rw * scale) / rw) + (np.array([round(rw * scale), round(rh * scale)]) - 1) / 2
    for (u, v), expected in zip(shown, in_render, strict=True):
        iu, iv = round(u), round(v)  # the map at the nearest pixel, corrected to first order
        got = np.array([map_x[iv, iu], map_y[iv, iu]])
        assert got == pytest.approx(expected, abs=0.6)


def test_the_camera_sees_the_whole_board_from_above_within_the_brief() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        cam = choose_camera(rng, (480, 480), (1280, 720))
        assert 500 <= cam.position[2] <= 850
        assert cam.tilt_deg <= 25.5
        up = cam.matrix[:, 1]
        assert up[1] > math.cos(math.radians(30))  # the board's top edge at the picture's top
