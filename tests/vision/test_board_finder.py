"""Finding the board on rendered frames: homography error in mm from markers, from the outline
(checked against the print's layout) and from corners a user gives; refusals that name the
real cause."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.board_errors import (
    MARKERS_MISSING,
    NOT_THIS_BOARD,
    PARTLY_OUTSIDE,
    WRONG_CORNERS,
    CalibrationError,
)
from vision.board_finder import BoardFix, find_board, parse_corners
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.camera_pose import pose_from_homography, rectangle_aspect
from vision.geometry import load_geometry
from vision.renderer import Camera, Scene, render

GEO = load_geometry()
GEO_DIR = Path(__file__).resolve().parents[2] / "vision" / "boards"
GAMES = ("backgammon", "maedn")
SMALL = (640, 360)


def start_scene(game: str, **options: object) -> Scene:
    start = STANDARD_BACKGAMMON if game == "backgammon" else maedn_start(4)
    return Scene(start, **options)  # type: ignore[arg-type]


def error_mm(frame_camera: Camera, fix: BoardFix, game: str) -> np.ndarray:
    """How far from where the renderer really drew board points the calibration puts them,
    in mm of board (pixels divided by the camera's scale)."""
    w, h = GEO.board_size(game)
    xs, ys = np.meshgrid(np.linspace(0, w, 12), np.linspace(0, h, 10))
    truth = np.column_stack([xs.ravel(), ys.ravel()])
    off = np.linalg.norm(fix.to_image(truth) - frame_camera.project(truth), axis=1)
    return off / frame_camera.px_per_mm


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(5))
def test_homography_from_markers_is_accurate_to_a_few_mm(game: str, seed: int) -> None:
    frame = render(start_scene(game), seed=seed)
    fix = find_board(frame.image, game)
    assert fix.method == "markers" and fix.markers_found == (0, 1, 2, 3)
    err = error_mm(frame.camera, fix, game)
    assert err.mean() < 1.5 and err.max() < 3.0, f"mean {err.mean():.2f} max {err.max():.2f} mm"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(5))
def test_homography_from_the_outline_without_markers(game: str, seed: int) -> None:
    frame = render(start_scene(game, markers=False), seed=seed)
    fix = find_board(frame.image, game)
    assert fix.method == "outline"
    assert MARKERS_MISSING in fix.warnings
    err = error_mm(frame.camera, fix, game)
    assert err.mean() < 1.5 and err.max() < outline_bound_mm(game), \
        f"mean {err.mean():.2f} max {err.max():.2f} mm"


def outline_bound_mm(game: str) -> float:
    """How far off a found outline may put any board point. Mensch is held by its field
    circles in both directions: 2 mm. Backgammon is held along its length only by outline,
    frame, bar and trays, which the finder lets lie up to `GROUP_SLACK` mm off (a raised
    frame seen at a slant; the points' steep sides barely resist sliding along themselves):
    on flat renders up to about 4 mm at the board's ends, inside the issue's bound of 1 % of
    the board's diagonal, which is what is asserted."""
    if game == "maedn":
        return 2.0
    w, h = GEO.board_size(game)
    return 0.01 * float(np.hypot(w, h))


# A 640x360 camera sees the markers about 14 px wide, too blurred to read in these poses, and
# the board at half a pixel per mm: they must not pull the outline out to themselves (77-85 mm
# off, once). Too small to read the print surely, the board is found right or refused, never
# found wrong.
@pytest.mark.parametrize(("game", "seed"), [("backgammon", 0), ("backgammon", 8),
                                            ("backgammon", 20), ("maedn", 16), ("maedn", 28)])
def test_markers_too_small_to_read_do_not_bend_the_outline(game: str, seed: int) -> None:
    frame = render(start_scene(game), seed=seed, size=SMALL)
    try:
        fix = find_board(frame.image, game)
    except CalibrationError as exc:
        assert exc.reason == NOT_THIS_BOARD
        return
    assert len(fix.markers_found) < 2 and fix.method == "outline"
    err = error_mm(frame.camera, fix, game)
    assert err.max() < 6.0, f"mean {err.mean():.2f} max {err.max():.2f} mm"  # 2.5 px here


@pytest.mark.parametrize(("game", "seed", "size"), [("maedn", 28, None),
                                                    ("backgammon", 10, SMALL)])
def test_three_markers_and_the_outline_together(game: str, seed: int,
                                                size: tuple[int, int] | None) -> None:
    frame = render(start_scene(game), seed=seed, **({"size": size} if size else {}))
    fix = find_board(frame.image, game)
    assert fix.method == "markers" and len(fix.markers_found) == 3
    err = error_mm(frame.camera, fix, game)
    assert err.max() < 3.0, f"mean {err.mean():.2f} max {err.max():.2f} mm"


def test_a_strongly_bending_lens_is_measured_with_the_board() -> None:
    """Twice the renderer's strongest distortion: straight lines bow by several pixels, and
    a homography alone would be millimetres off at the corners."""
    for seed in range(3):
        camera = dataclasses.replace(Camera.random(np.random.default_rng(seed),
                                                   GEO.board_size("backgammon")), k1=0.06)
        frame = render(start_scene("backgammon", markers=False), seed=seed, camera=camera)
        fix = find_board(frame.image, "backgammon")
        assert fix.lens.kappa != 0.0
        err = error_mm(frame.camera, fix, "backgammon")
        assert err.mean() < 1.5 and err.max() < outline_bound_mm("backgammon"), \
            f"mean {err.mean():.2f} max {err.max():.2f} mm"


def test_outline_is_used_on_request_even_when_markers_are_there() -> None:
    frame = render(start_scene("maedn"), seed=11)
    fix = find_board(frame.image, "maedn", use_markers=False)
    assert fix.method == "outline" and fix.markers_found == ()
    assert error_mm(frame.camera, fix, "maedn").mean() < 1.5


def test_corners_given_by_the_user_are_refined_to_the_print() -> None:
    frame = render(start_scene("maedn", markers=False), seed=12)
    w, h = GEO.board_size("maedn")
    truth = frame.camera.project(np.array([(0, 0), (w, 0), (w, h), (0, h)], float))
    clicked = truth + np.random.default_rng(1).uniform(-4, 4, truth.shape)  # a few px off
    fix = find_board(frame.image, "maedn", corners=clicked)
    assert fix.method == "corners"
    assert error_mm(frame.camera, fix, "maedn").max() < 2.5


def test_corners_parse_from_the_command_line_form() -> None:
    assert parse_corners("1,2,3,4,5,6,7,8").tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    with pytest.raises(ValueError, match="8 numbers"):
        parse_corners("1,2,3")
    with pytest.raises(ValueError, match="8 numbers"):
        parse_corners("a,b,c,d,e,f,g,h")


def test_corners_in_the_wrong_order_or_outside_are_refused() -> None:
    frame = render(start_scene("maedn", markers=False), seed=12)
    w, h = GEO.board_size("maedn")
    truth = frame.camera.project(np.array([(0, 0), (w, 0), (w, h), (0, h)], float))
    with pytest.raises(CalibrationError, match="wrong order") as info:
        find_board(frame.image, "maedn", corners=truth[[0, 2, 1, 3]])
    assert info.value.reason == WRONG_CORNERS
    with pytest.raises(CalibrationError, match="outside the picture"):
        find_board(frame.image, "maedn", corners=truth + np.array([2000.0, 0.0]))


def test_a_geometry_of_another_layout_is_refused_with_the_measurement() -> None:
    """The Hofer backgammon board described as a tournament board (two trays, other sizes):
    no outline fits; the message names the proportions seen and the geometry's."""
    frame = render(start_scene("backgammon", markers=False), seed=3)
    tournament = load_geometry(GEO_DIR / "tournament.toml")
    with pytest.raises(CalibrationError) as info:
        find_board(frame.image, "backgammon", tournament)
    assert info.value.reason == NOT_THIS_BOARD
    assert "742 × 500 mm" in str(info.value)  # what the geometry says, beside what was seen



def test_an_outline_that_is_not_the_board_is_refused() -> None:
    """A plain box on a table has the Mensch board's square outline but none of its fields."""
    image = np.full((720, 1280, 3), (120, 140, 150), np.uint8)
    image[110:610, 390:890] = (60, 90, 200)
    with pytest.raises(CalibrationError) as info:
        find_board(image, "maedn")
    assert info.value.reason == NOT_THIS_BOARD
    assert "not this board" in str(info.value)


def _shifted_camera(game: str) -> Camera:
    """A camera moved sideways until the board's left edge leaves the picture while the two
    right-hand markers stay well inside it."""
    w, h = GEO.board_size(game)
    cam = Camera.random(np.random.default_rng(8), (w, h))
    right_markers = np.array([p for i in (1, 2) for p in GEO.markers.corners(w, h)[i]])
    for shift in np.arange(0.0, 2 * w, 5.0):
        x, y, z = cam.position
        moved = dataclasses.replace(cam, position=(x + shift, y, z))
        left_edge = moved.project(np.array([(0.0, 0.0), (0.0, h)]))[:, 0]
        markers_x = moved.project(right_markers)[:, 0]
        if left_edge.max() < -20 and markers_x.min() > 40:
            return moved
    raise AssertionError("no camera position puts the board partly outside")


@pytest.mark.parametrize("game", GAMES)
def test_board_partly_outside_the_picture_is_warned_about(game: str) -> None:
    frame = render(start_scene(game), seed=9, camera=_shifted_camera(game))
    fix = find_board(frame.image, game)
    assert PARTLY_OUTSIDE in fix.warnings and MARKERS_MISSING in fix.warnings


def test_board_partly_outside_without_markers_is_an_error_saying_so() -> None:
    frame = render(start_scene("maedn", markers=False), seed=9,
                   camera=_shifted_camera("maedn"))
    with pytest.raises(CalibrationError) as info:
        find_board(frame.image, "maedn")
    assert info.value.reason in (PARTLY_OUTSIDE, NOT_THIS_BOARD)


def test_no_board_in_the_picture_is_an_error() -> None:
    with pytest.raises(CalibrationError, match="outline"):
        find_board(np.full((720, 1280, 3), 150, np.uint8), "backgammon")


def test_camera_pose_and_true_proportions_from_a_tilted_view() -> None:
    cam = Camera(size=(1280, 720), position=(300.0, 250.0, 650.0), yaw=0.02, tilt_x=0.35,
                 tilt_y=0.1, focal=1000.0, k1=0.0)
    board = np.array([(0, 0), (562, 0), (562, 420), (0, 420)], float)
    hom, _ = cv2.findHomography(board, cam.project(board), 0)
    pose = pose_from_homography(hom, cam.size)
    assert pose.height == pytest.approx(650, abs=5)
    assert pose.nadir == pytest.approx((300, 250), abs=3)
    assert rectangle_aspect(cam.project(board), cam.size) == pytest.approx(562 / 420, rel=0.01)
    assert pose_from_homography(hom, cam.size, 700.0).height == 700.0
