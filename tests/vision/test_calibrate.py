"""Calibration on rendered frames: the empty board and the pieces learned, the frames read back,
refusals that name the real cause (in German and English), the calibration file, and the
`spieltisch calibrate` / `spieltisch vision board` commands as a table owner uses them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.words import BackgammonBoard, MaednBoard
from tests.cli import spieltisch
from vision.board_errors import (
    CAMERA_MOVED,
    COVERED,
    DICE_TOO_SMALL,
    NOT_EMPTY,
    NOT_ONE_SIZE,
    POSITION_DIFFERS,
    TOO_DIM,
    CalibrationError,
)
from vision.calibrate import calibrate, refresh
from vision.calibration import STANDARD_BACKGAMMON, Calibration, maedn_start
from vision.calibration_overlay import overlay
from vision.frame_reader import FrameReader
from vision.geometry import load_geometry
from vision.renderer import Scene, render

GEO = load_geometry()
EMPTY = {"backgammon": BackgammonBoard(points=(0,) * 24),
         "maedn": MaednBoard(pieces=((), (), (), ()))}
MIDGAME = MaednBoard(pieces=((-1, 3, 17, 41), (-1, -1, 0, 22)))


def start_of(game: str) -> BackgammonBoard | MaednBoard:
    return STANDARD_BACKGAMMON if game == "backgammon" else maedn_start(4)


def frames(game: str, seed: int, **options: object) -> tuple[np.ndarray, np.ndarray, object]:
    """(start frame, empty frame, camera) of one camera mount."""
    start = render(Scene(start_of(game), **options), seed=seed)  # type: ignore[arg-type]
    empty = render(Scene(EMPTY[game], **options), seed=seed + 1000,  # type: ignore[arg-type]
                   camera=start.camera)
    return start.image, empty.image, start.camera


@pytest.mark.parametrize("game", ["backgammon", "maedn"])
def test_the_empty_board_and_the_colours_in_play_are_learned(game: str) -> None:
    start, empty, _ = frames(game, 3)
    calib = calibrate(start, game, empty=empty)
    assert calib.empty_source == "frame"
    assert calib.empty.shape == (round(GEO.board_size(game)[1]), round(GEO.board_size(game)[0]),
                                 3)
    if game == "maedn":
        assert calib.colours_in_play == (0, 1, 2, 3)
    else:
        white, black = calib.piece_colours
        assert white.mean[2] > black.mean[2] + 0.5  # log brightness: white checkers lighter


def test_only_the_colours_of_the_seats_in_play_are_learned() -> None:
    image = render(Scene(maedn_start(2)), seed=5).image
    calib = calibrate(image, "maedn", players=2)
    assert calib.colours_in_play == (0, 2) and calib.players == 2


def test_without_an_empty_frame_the_empty_fields_are_borrowed_and_it_still_reads() -> None:
    start, _, camera = frames("maedn", 6)
    calib = calibrate(start, "maedn")
    assert calib.empty_source == "position"
    reader = FrameReader(calib, players=2, dice_reader=None)
    board = MaednBoard(pieces=((-1, 0, 5, 40), (-1, -1, 10, 43)))
    assert reader.read(render(Scene(board), seed=61, camera=camera).image).board == board


def test_calibrating_mid_game_from_the_position_the_journal_holds() -> None:
    frame = render(Scene(MIDGAME), seed=7)
    empty = render(Scene(EMPTY["maedn"]), seed=1007, camera=frame.camera)
    calib = calibrate(frame.image, "maedn", start=MIDGAME, empty=empty.image)
    assert calib.colours_in_play == (0, 2) and calib.players == 2
    reader = FrameReader(calib, players=2, dice_reader=None)
    later = MaednBoard(pieces=((-1, 5, 17, 41), (-1, -1, 3, 22)))
    assert reader.read(render(Scene(later), seed=71, camera=frame.camera).image).board == later


def test_a_frame_that_is_not_the_position_given_is_refused_naming_the_fields() -> None:
    frame = render(Scene(MIDGAME), seed=8)
    empty = render(Scene(EMPTY["maedn"]), seed=1008, camera=frame.camera)
    with pytest.raises(CalibrationError) as info:
        calibrate(frame.image, "maedn", empty=empty.image, players=2)  # told: start position
    assert info.value.reason in (POSITION_DIFFERS, NOT_EMPTY)
    assert "t" in str(info.value)  # names track fields


def test_a_pawn_of_the_first_colour_missing_from_the_position_is_named() -> None:
    """Colour 0 is a colour, not "nothing": its pawn said to stand on t3 but absent is a
    field that reads back differently."""
    short = MaednBoard(pieces=((-1, 17, 41), (-1, -1, 0, 22)))
    frame = render(Scene(short), seed=10)
    empty = render(Scene(EMPTY["maedn"]), seed=1010, camera=frame.camera)
    with pytest.raises(CalibrationError, match="t3") as info:
        calibrate(frame.image, "maedn", start=MIDGAME, empty=empty.image)
    assert info.value.reason == POSITION_DIFFERS


def test_the_pieces_are_learned_again_only_from_a_frame_of_the_position() -> None:
    """`refresh` relearns the pieces on the same view and empty board from a frame of a known
    position, in its light; a frame that does not show it, or of another size, is refused and
    the calibration in force is left as it was."""
    start, empty, camera = frames("maedn", 12)
    calib = calibrate(start, "maedn", empty=empty, players=4)
    dim = render(Scene(MIDGAME, light=0.55), seed=1012, camera=camera).image
    renewed = refresh(calib, dim, MIDGAME)
    assert renewed.homography == calib.homography and renewed.piece_colours != \
        calib.piece_colours
    assert renewed.colours_in_play == (0, 2)
    later = MaednBoard(pieces=((-1, 5, 17, 41), (-1, -1, 3, 22)))
    frame = render(Scene(later, light=0.55), seed=1013, camera=camera).image
    assert FrameReader(renewed, players=2, dice_reader=None).read(frame).board == later
    with pytest.raises(CalibrationError) as info:
        refresh(calib, frame, MIDGAME)
    assert info.value.reason == POSITION_DIFFERS
    with pytest.raises(CalibrationError) as info:
        refresh(calib, cv2.resize(frame, (640, 360)), MIDGAME)
    assert info.value.reason == NOT_ONE_SIZE


def test_an_empty_house_said_to_be_full_is_refused() -> None:
    two_colours = render(Scene(maedn_start(2)), seed=16).image  # colours 1 and 3 are empty
    with pytest.raises(CalibrationError, match="colour 1"):
        calibrate(two_colours, "maedn", players=4)


def test_an_empty_board_with_a_piece_on_it_is_refused() -> None:
    start, _, camera = frames("maedn", 9)
    stray = render(Scene(MaednBoard(pieces=((12,), ()))), seed=1009, camera=camera).image
    with pytest.raises(CalibrationError, match="t12") as info:
        calibrate(start, "maedn", empty=stray)
    assert info.value.reason == NOT_EMPTY


def test_a_hand_over_the_board_at_calibration_is_refused() -> None:
    _, empty, camera = frames("backgammon", 10)
    hand = render(Scene(STANDARD_BACKGAMMON, hand=True), seed=10, camera=camera).image
    with pytest.raises(CalibrationError) as info:
        calibrate(hand, "backgammon", empty=empty)
    assert info.value.reason in (COVERED, POSITION_DIFFERS, NOT_EMPTY)


def test_the_camera_moved_between_the_empty_board_and_the_position() -> None:
    start, _, camera = frames("backgammon", 11)
    moved = dataclasses.replace(camera, position=(camera.position[0] + 60, *camera.position[1:]))
    empty = render(Scene(EMPTY["backgammon"]), seed=11, camera=moved).image
    with pytest.raises(CalibrationError) as info:
        calibrate(start, "backgammon", empty=empty)
    assert info.value.reason in (CAMERA_MOVED, NOT_EMPTY, POSITION_DIFFERS)


def test_pictures_of_different_sizes_are_refused() -> None:
    start, empty, _ = frames("maedn", 12)
    with pytest.raises(CalibrationError) as info:
        calibrate(start, "maedn", empty=cv2.resize(empty, (640, 360)))
    assert info.value.reason == NOT_ONE_SIZE


@pytest.mark.parametrize("game", ["backgammon", "maedn"])
def test_dice_too_small_to_read_are_warned_about(game: str) -> None:
    small = render(Scene(start_of(game)), seed=2, size=(800, 450))  # type: ignore[arg-type]
    assert DICE_TOO_SMALL.key in calibrate(small.image, game).warnings
    table = render(Scene(start_of(game)), seed=2)  # type: ignore[arg-type]
    assert DICE_TOO_SMALL.key not in calibrate(table.image, game).warnings


def test_dim_light_is_warned_about_or_named_as_the_cause() -> None:
    start = STANDARD_BACKGAMMON
    try:
        assert TOO_DIM.key in calibrate(render(Scene(start, light=0.15), seed=6).image,
                                        "backgammon").warnings
    except CalibrationError as exc:
        assert TOO_DIM.en.lower() in str(exc)
    assert TOO_DIM.key not in calibrate(render(Scene(start), seed=6).image,
                                        "backgammon").warnings


def test_calibration_file_round_trip_and_written_whole(tmp_path: Path) -> None:
    start, empty, _ = frames("maedn", 12)
    calib = calibrate(start, "maedn", empty=empty, camera_height_mm=716.0)
    path = tmp_path / "calibration.json"
    calib.save(path)
    loaded = Calibration.load(path)
    assert loaded.to_json() == calib.to_json()
    assert loaded.camera_height_mm == 716.0 and loaded.height_measured
    assert np.array_equal(loaded.empty, calib.empty)
    assert not list(tmp_path.glob("*.tmp"))


def test_broken_calibration_files_name_the_problem(tmp_path: Path) -> None:
    start, empty, _ = frames("maedn", 12)
    data = calibrate(start, "maedn", empty=empty).to_json()
    cases = {"missing": {k: v for k, v in data.items() if k != "piece_colours"},
             "old": {**data, "version": 1}, "broken_png": {**data, "empty_png": "AAAA"}}
    messages = {"missing": r"lacks key 'piece_colours'", "old": "calibrate again",
                "broken_png": "malformed"}
    for name, content in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(content), "utf-8")
        with pytest.raises(CalibrationError, match=messages[name]):
            Calibration.load(path)
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x89PNG\x00\xff not json")
    with pytest.raises(CalibrationError, match=r"garbage\.json"):
        Calibration.load(garbage)


def test_overlay_outlines_the_points_where_the_renderer_drew_them() -> None:
    frame = render(Scene(STANDARD_BACKGAMMON, clean=True), seed=13)
    calib = calibrate(frame.image, "backgammon")
    drawn = overlay(frame.image, calib)
    tips = frame.camera.project(np.array([GEO.backgammon.point_triangle(p)[2]
                                          for p in range(1, 25)]))
    hits = 0
    for x, y in np.round(tips).astype(int):
        patch = drawn[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).astype(int)
        hits += bool(((patch[:, 0] > 200) & (patch[:, 1] < 60) & (patch[:, 2] > 200)).any())
    assert hits == 24


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("table")
    start, empty, camera = frames("maedn", 14, markers=False)
    cv2.imwrite(str(folder / "start.png"), start)
    cv2.imwrite(str(folder / "empty.png"), empty)
    board = MaednBoard(pieces=((-1, 2, 30, 42), (-1, -1, 0, 11), (5, 6, 7, 8), (-1,) * 4))
    cv2.imwrite(str(folder / "play.png"), render(Scene(board), seed=141, camera=camera).image)
    cv2.imwrite(str(folder / "hand.png"),
                render(Scene(board, hand=True), seed=142, camera=camera).image)
    (folder / "board.json").write_text(json.dumps({"pieces": [list(p) for p in board.pieces]}))
    bumped = dataclasses.replace(camera, yaw=camera.yaw + 0.06,
                                 position=(camera.position[0] + 25.0, *camera.position[1:]))
    cv2.imwrite(str(folder / "bumped.png"), render(Scene(board), seed=143, camera=bumped).image)
    return folder


def test_calibrate_command_writes_the_calibration_and_vision_board_reads_it(pictures: Path
                                                                         ) -> None:
    out = pictures / "cal.json"
    done = spieltisch("calibrate", str(pictures / "start.png"), "--game", "maedn",
                      "--empty", str(pictures / "empty.png"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (pictures / "cal_overlay.png").is_file()
    read = spieltisch("vision", "board", str(pictures / "play.png"), str(pictures / "hand.png"),
                      str(pictures / "nothere.png"), str(pictures / "bumped.png"),
                      "--calibration", str(out), "--json")
    assert read.returncode == 0, read.stderr
    lines = [json.loads(line) for line in read.stdout.splitlines()]
    assert [line["image"] for line in lines] == [
        str(pictures / n) for n in ("play.png", "hand.png", "nothere.png", "bumped.png")]
    assert lines[0]["board"] == json.loads((pictures / "board.json").read_text())
    assert set(lines[1]) == {"image", "blocked"} and "hand" in lines[1]["blocked"]
    assert set(lines[2]) == {"image", "error"} and "no such file" in lines[2]["error"]
    # the camera moved by 25 mm and turned: the board is found again by its print
    assert lines[3]["board"] == lines[0]["board"]


def test_calibrate_command_takes_the_position_as_a_table_log_board_line(pictures: Path) -> None:
    board_line = {"type": "board", **json.loads((pictures / "board.json").read_text())}
    done = spieltisch("calibrate", str(pictures / "play.png"), "--game", "maedn",
                      "--empty", str(pictures / "empty.png"), "--position",
                      json.dumps(board_line), "--out", str(pictures / "mid.json"))
    assert done.returncode == 0, done.stderr
    assert Calibration.load(pictures / "mid.json").players == 4


@pytest.mark.parametrize(("args", "says"), [
    (["--position", '{"pieces": [[-1, -1, -1, -1], [-1, -1, -1, -1]]}', "--empty", "EMPTY"],
     "position"),
    (["--position", '{"points": [1, 2]}'], "--position"),
    (["--corners", "1,2,3"], "8 numbers"),
    (["--corners", "5000,0,6000,0,6000,900,5000,900"], "outside the picture"),
    (["--camera-height", "10"], "above the dice"),
    (["--geometry", "nothere.toml"], "nothere.toml"),
])
def test_calibrate_command_refuses_bad_input_with_the_cause_and_exit_1(
        pictures: Path, args: list[str], says: str) -> None:
    out = pictures / f"refused{len(args)}{args[0]}.json"
    args = [str(pictures / "empty.png") if a == "EMPTY" else a for a in args]
    done = spieltisch("calibrate", str(pictures / "start.png"), "--game", "maedn",
                      "--out", str(out), *args)
    assert done.returncode == 1
    assert says in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("picture", ["blank", "dark", "noise"])
def test_a_frame_that_is_no_board_is_refused_in_german_and_english(tmp_path: Path,
                                                                   picture: str) -> None:
    rng = np.random.default_rng(1)
    image = {"blank": np.full((720, 1280, 3), 200, np.uint8),
             "dark": np.full((720, 1280, 3), 3, np.uint8),
             "noise": rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)}[picture]
    cv2.imwrite(str(tmp_path / "frame.png"), image)
    done = spieltisch("calibrate", str(tmp_path / "frame.png"), "--game", "backgammon",
                      "--out", str(tmp_path / "cal.json"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "Brett" in done.stderr and "board" in done.stderr


def test_vision_board_exits_1_when_the_calibration_cannot_be_read(tmp_path: Path) -> None:
    broken = tmp_path / "cal.json"
    broken.write_text("{", "utf-8")
    done = spieltisch("vision", "board", str(tmp_path / "x.png"), "--calibration", str(broken),
                      "--json")
    assert done.returncode == 1 and "cal.json" in done.stderr and done.stdout == ""


def test_backgammon_rim_levels_round_trip_and_older_files_still_read(tmp_path: Path) -> None:
    """The per-colour rim levels are kept in the file; a file written before them (no
    `rim_levels` key) still loads and reads with its one level for both colours."""
    start, empty, _ = frames("backgammon", 12)
    calib = calibrate(start, "backgammon", empty=empty)
    assert calib.rim_levels is not None and all(v is not None for v in calib.rim_levels)
    path = tmp_path / "calibration.json"
    calib.save(path)
    assert Calibration.load(path).rim_levels == calib.rim_levels
    older = calib.to_json()
    del older["rim_levels"]
    older["edge_levels"] = [calib.rim_levels[1].present, calib.rim_levels[1].absent]
    path.write_text(json.dumps(older), "utf-8")
    loaded = Calibration.load(path)
    assert loaded.rim_levels is None and loaded.edge_levels == calib.rim_levels[1]
    reading = FrameReader(loaded, dice_reader=None).read_board(start)
    assert reading.board == STANDARD_BACKGAMMON
