"""Board geometry: the layout the rule texts describe, and a geometry file that fails loudly."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from vision.geometry import GeometryError, MaednGeometry, load_geometry

GEO = load_geometry()
BG = GEO.backgammon
MA = GEO.maedn


def test_backgammon_has_24_points_bar_and_two_trays() -> None:
    names = [lane.name for lane in BG.lanes()]
    assert names == [f"p{i}" for i in range(1, 25)] + [
        "bar_white", "bar_black", "off_white", "off_black"]


def test_whites_home_board_is_bottom_right_and_points_run_round_the_board() -> None:
    # Text 004: White's 1-point is bottom right, its 12-point bottom left, 13 top left, 24 top
    # right; the bar splits each side between the 6th and 7th point.
    lanes = {lane.name: lane for lane in BG.lanes()}
    bottom = [lanes[f"p{i}"].origin for i in range(1, 13)]
    top = [lanes[f"p{i}"].origin for i in range(13, 25)]
    assert all(y == BG.height - BG.frame for _, y in bottom)
    assert all(y == BG.frame for _, y in top)
    xs_bottom = [x for x, _ in bottom]
    xs_top = [x for x, _ in top]
    assert xs_bottom == sorted(xs_bottom, reverse=True)  # 1..12 from right to left
    assert xs_top == sorted(xs_top)  # 13..24 from left to right
    bar_x = BG.bar_x + BG.bar_width / 2
    assert lanes["p6"].origin[0] > bar_x > lanes["p7"].origin[0]
    assert lanes["p18"].origin[0] < bar_x < lanes["p19"].origin[0]


def test_points_do_not_overlap_and_fit_inside_the_frame() -> None:
    x0, y0, x1, y1 = BG.inner_rect
    for point in range(1, 25):
        for x, y in BG.point_triangle(point):
            assert x0 - 1e-9 <= x <= x1 + 1e-9 and y0 - 1e-9 <= y <= y1 + 1e-9
    centres = sorted(BG.point_centre_x(p) for p in range(1, 13))
    gaps = [b - a for a, b in itertools.pairwise(centres)]
    assert min(gaps) >= BG.point_width - 1e-9


def test_fifteen_checkers_fit_on_one_point_overlapping() -> None:
    lane = BG.lanes()[0]
    assert lane.extent(5) == pytest.approx(5 * BG.checker_diameter)
    assert lane.extent(15) <= BG.point_length
    offsets = lane.offsets(15)
    assert len(offsets) == 15 and offsets == sorted(offsets)
    assert offsets[1] - offsets[0] > 0


def test_dice_area_lies_between_the_stacks_of_the_right_half() -> None:
    x0, y0, x1, y1 = BG.dice_area
    assert BG.right_x <= x0 < x1 <= BG.right_x + 6 * BG.point_width
    assert y0 > BG.frame + BG.stack_length and y1 < BG.height - BG.frame - BG.stack_length


def test_maedn_has_40_track_16_goal_16_house_fields_none_overlapping() -> None:
    fields = MA.fields()
    kinds = [name[0] for name, _, _ in fields]
    assert (kinds.count("t"), kinds.count("g"), kinds.count("h")) == (40, 16, 16)
    centres = [c for _, c, _ in fields]
    closest = min(math.dist(a, b) for i, a in enumerate(centres) for b in centres[i + 1:])
    assert closest >= MA.field_diameter


def test_track_fields_are_neighbours_in_order() -> None:
    track = MA.track()
    for i in range(40):
        assert math.dist(track[i], track[(i + 1) % 40]) == pytest.approx(MA.cell)


def test_goal_begins_next_to_the_field_before_the_start_field() -> None:
    # A piece walks 39 fields from its start field, then enters its goal.
    track = MA.track()
    for colour in range(4):
        before_start = track[(10 * colour + 39) % 40]
        goal = MA.goal(colour)
        assert math.dist(before_start, goal[0]) == pytest.approx(MA.cell)
        for a, b in itertools.pairwise(goal):
            assert math.dist(a, b) == pytest.approx(MA.cell)


def test_two_players_sit_opposite_on_colours_0_and_2() -> None:
    assert MA.seat_colours(2) == (0, 2)
    track = MA.track()
    centre = (MA.width / 2, MA.height / 2)
    a, b = track[0], track[20]  # the two start fields
    assert (a[0] + b[0]) / 2 == pytest.approx(centre[0])
    assert (a[1] + b[1]) / 2 == pytest.approx(centre[1])
    with pytest.raises(ValueError, match=r"2\.\.4 players"):
        MA.seat_colours(5)


def test_seat_positions_map_to_fields_in_the_seats_own_counting() -> None:
    assert MaednGeometry.field_name(2, 0) == "t20"
    assert MaednGeometry.field_name(2, 39) == "t19"
    assert MaednGeometry.field_name(2, 40) == "g20"
    assert MaednGeometry.field_name(1, -1, 3) == "h13"
    with pytest.raises(ValueError, match=r"-1\.\.43"):
        MaednGeometry.field_name(0, 44)


def test_markers_sit_outside_the_board_corners() -> None:
    corners = GEO.markers.corners(BG.width, BG.height)
    assert sorted(corners) == [0, 1, 2, 3]
    x, y = corners[0][2]  # bottom-right corner of the top-left marker
    assert x < 0 and y < 0
    x, y = corners[2][0]
    assert x > BG.width and y > BG.height


def test_geometry_file_changes_sizes(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("[backgammon]\npoint_width = 40\n[maedn]\ncell = 44\n", "utf-8")
    geo = load_geometry(path)
    assert geo.backgammon.point_width == 40.0 and geo.maedn.cell == 44.0
    assert geo.backgammon.width == BG.width + 12 * 4


@pytest.mark.parametrize(("text", "message"), [
    ("[backgammon]\npoint_widht = 40\n", r"unknown key \[backgammon\]\.point_widht"),
    ("[chess]\nsize = 1\n", "unknown section"),
    ("[maedn]\ncell = -4\n", r"\[maedn\]\.cell must be positive"),
    ("[maedn]\ncell = 'big'\n", r"\[maedn\]\.cell must be a number"),
    ("[maedn]\nseat_colours_2 = 'x'\n", "must be a list of integers"),
    ("[maedn\n", "not valid TOML"),
])
def test_bad_geometry_file_names_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(GeometryError, match=message) as info:
        load_geometry(path)
    assert "bad.toml" in str(info.value)


def test_missing_geometry_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(GeometryError, match=r"nothere\.toml"):
        load_geometry(tmp_path / "nothere.toml")


@pytest.mark.parametrize(("text", "key"), [
    ("[backgammon]\nstack_length = 200\n", r"\[backgammon\]\.stack_length"),
    ("[backgammon]\nchecker_diameter = 50\n", r"\[backgammon\]\.checker_diameter"),
    ("[maedn]\nfield_diameter = 45\n", r"\[maedn\]\.field_diameter"),
    ("[maedn]\nseat_colours_2 = [0, 0]\n", r"\[maedn\]\.seat_colours_2"),
    ("[maedn]\nseat_colours_4 = [0, 1, 2, 4]\n", r"\[maedn\]\.seat_colours_4"),
])
def test_sizes_that_cannot_fit_together_are_rejected(tmp_path: Path, text: str, key: str
                                                     ) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(GeometryError, match=key):
        load_geometry(path)


BOARDS = Path(__file__).resolve().parents[2] / "vision" / "boards"


@pytest.mark.parametrize("name", ["hofer", "tournament", "paper"])
def test_example_boards_load_and_keep_every_lane_on_the_board(name: str) -> None:
    geo = load_geometry(BOARDS / f"{name}.toml").backgammon
    for lane in geo.lanes():
        for along in (0.0, lane.stack_length):
            for across in (-lane.width / 2, lane.width / 2):
                x, y = lane.at(along, across)
                assert -1e-9 <= x <= geo.width + 1e-9 and -1e-9 <= y <= geo.height + 1e-9


def test_default_geometry_is_the_hofer_board_file() -> None:
    assert load_geometry(BOARDS / "hofer.toml") == GEO


def test_tournament_board_has_a_tray_column_on_each_side_and_bears_off_right() -> None:
    geo = load_geometry(BOARDS / "tournament.toml").backgammon
    trays = geo.tray_rects()
    assert sorted(trays) == ["left bottom", "left top", "right bottom", "right top"]
    assert trays["left top"][2] <= geo.left_x - geo.tray_gap + 1e-9
    assert geo.tray_rect("white") == trays["right bottom"]
    assert geo.width == pytest.approx(2 * geo.frame + 12 * geo.point_width + geo.bar_width
                                      + 2 * (geo.tray_width + geo.tray_gap))


def test_a_board_without_trays_or_bar_has_only_the_points(tmp_path: Path) -> None:
    path = tmp_path / "plain.toml"
    path.write_text('[backgammon]\ntrays = "none"\nbar_width = 0\n', "utf-8")
    geo = load_geometry(path).backgammon
    assert [lane.name for lane in geo.lanes()] == [f"p{i}" for i in range(1, 25)]
    assert geo.bar_rect is None and geo.lane("off_white") is None
    assert geo.right_x == geo.bar_x  # the halves meet


def test_whites_home_on_the_left_mirrors_the_points(tmp_path: Path) -> None:
    path = tmp_path / "mirrored.toml"
    path.write_text('[backgammon]\nwhite_home = "left"\ntrays = "none"\n', "utf-8")
    geo = load_geometry(path).backgammon
    # Without trays the board is the Hofer board less its tray column, mirrored.
    assert geo.point_centre_x(1) == pytest.approx(geo.width - BG.point_centre_x(1))
    x = geo.point_centre_x
    assert x(1) < x(6) < geo.bar_x < x(7) < x(12)  # White's home board bottom left
    assert x(24) < x(19) < geo.bar_x < x(18) < x(13)


@pytest.mark.parametrize(("text", "message"), [
    ('[backgammon]\ntrays = "top"\n', r"\[backgammon\]\.trays must be one of"),
    ('[backgammon]\ntrays = "left"\n', r"off_white is \"right bottom\", but trays = \"left\""),
    ('[backgammon]\noff_black = "right bottom"\n', "name the same tray compartment"),
    ("[backgammon]\npoint_width = 0\n", r"point_width must be positive"),
    ("[backgammon]\nbar_width = -3\n", r"bar_width must be 0 or more"),
])
def test_contradictory_board_layouts_name_the_key(tmp_path: Path, text: str, message: str
                                                  ) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(GeometryError, match=message):
        load_geometry(path)
