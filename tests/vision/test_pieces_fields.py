"""Pieces: every stack height 0–15 on points, bar and trays; every Mensch field in every colour;
the pixel labels and the light they are read in."""

from __future__ import annotations

import numpy as np
import pytest

from controller.words import BackgammonBoard, MaednBoard
from vision.board_evidence import (
    MaednEvidence,
    conserve_pawns,
    maedn_evidence,
    missing_checkers,
    unseen_in_house,
)
from vision.board_look import (
    BACKGROUND,
    FIRST_PIECE,
    SHADOW,
    UNEXPLAINED,
    WEAK,
    EmptyBoard,
    PieceColour,
    PixelSet,
    classify,
    classify_set,
)
from vision.board_regions import FieldDiscs
from vision.calibrate import calibrate
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.frame_reader import FrameReader
from vision.geometry import load_geometry
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


def _board(colour: tuple[int, int, int], size: tuple[int, int] = (60, 80)) -> np.ndarray:
    return np.full((*size, 3), colour, np.uint8)


def test_pixels_are_told_apart_as_board_shadow_piece_or_unknown() -> None:
    empty = EmptyBoard(_board((150, 200, 220)), noise=(4.0, 4.0, 4.0))  # cream, as measured
    red = PieceColour.learn("red", np.random.default_rng(1).normal((40, 40, 190), 8, (300, 3)))
    frame = _board((150, 200, 220))
    frame[10:20] = (75, 100, 110)  # the same cream in a shadow
    frame[20:30] = (42, 38, 185)  # a red piece
    frame[30:40] = (120, 160, 230)  # skin: nothing learned looks like it
    ys, xs = np.mgrid[0:40, 0:80]
    labels, _ = classify(frame, empty, (red,), ys.ravel(), xs.ravel())
    rows = labels.reshape(40, 80)
    assert (rows[:10] == BACKGROUND).all()
    assert (rows[10:20] == SHADOW).all()
    assert (rows[20:30] == FIRST_PIECE).all()
    assert (rows[30:40] == UNEXPLAINED).all()


def test_a_piece_in_a_shadow_is_its_colour_when_the_shadow_is_taken_out() -> None:
    empty = EmptyBoard(_board((150, 200, 220)))
    red = PieceColour.learn("red", np.random.default_rng(2).normal((40, 40, 190), 6, (300, 3)))
    frame = _board((12, 12, 57))  # the red piece at 0.3 of its light
    ys, xs = np.mgrid[0:10, 0:10]
    dark, _ = classify(frame, empty, (red,), ys.ravel(), xs.ravel())
    lit, _ = classify(frame, empty, (red,), ys.ravel(), xs.ravel(), np.full(100, 0.3))
    assert (lit == FIRST_PIECE).all() and not (dark == FIRST_PIECE).all()


def test_the_light_of_a_frame_is_brought_to_the_empty_boards() -> None:
    rng = np.random.default_rng(3)
    board = rng.integers(60, 200, (240, 320, 3)).astype(np.uint8)
    ramp = np.linspace(0.7, 1.1, 320)[None, :, None] * np.array([1.0, 0.95, 0.9])
    frame = np.clip(board * ramp, 0, 255).astype(np.uint8)
    frame[50:120, 60:140] = (30, 200, 30)  # a piece the fit must leave out
    light = EmptyBoard(board).light(frame)
    ys, xs = np.mgrid[150:240, 200:320]
    gain = light.at(ys, xs).reshape(90, 120, 3)
    assert np.allclose(gain, ramp[0, 200:320][None], atol=0.05)
    corrected = light.correct(frame)
    assert np.abs(corrected[150:, 200:].astype(int) - board[150:, 200:]).mean() < 4


def test_piece_colours_round_trip_through_json() -> None:
    colour = PieceColour.learn("white", np.random.default_rng(4).normal(220, 10, (80, 3)))
    assert PieceColour.from_json(colour.to_json()) == colour


def _house_evidence(pawn_logp: float) -> MaednEvidence:
    """Seat colour 0 with one pawn seen on t05 and its four house fields read empty, the
    first of them with `pawn_logp` for a pawn of its colour, the others as bare fields."""
    names = ("h00", "h01", "h02", "h03", "t05")
    logp = np.array([[0.0, pawn_logp]] + [[0.0, -14.0]] * 3 + [[-14.0, 0.0]])
    return MaednEvidence(names, (0,), logp, np.zeros(len(names)), load_geometry().board("maedn"))


def test_a_pawn_missing_from_its_house_is_said_only_when_the_house_is_surely_bare() -> None:
    """A pawn on a house field painted its own colour is easily missed: a seat with fewer than
    four pieces seen is an illegal board only when its empty house fields are read surely."""
    board = MaednBoard(pieces=((5,),))
    assert unseen_in_house(_house_evidence(-6.0), board, (0,)) == ["h00"]
    assert unseen_in_house(_house_evidence(-14.0), board, (0,)) == []
    full = MaednBoard(pieces=((-1, -1, -1, 5),))
    assert unseen_in_house(_house_evidence(-6.0), full, (0,)) == []


def test_a_little_change_on_paint_that_passes_for_the_pawns_is_weak_not_a_pawn() -> None:
    """A yellow house painted like its yellow pawns: the paint in a little more light is weak
    change with `quiet_lookalikes` (the Mensch fields), a pawn's bright top still a pawn."""
    rng = np.random.default_rng(5)
    paint = (30, 150, 160)
    empty = EmptyBoard(_board(paint), noise=(4.0, 4.0, 4.0))
    yellow = PieceColour.learn("yellow", rng.normal(paint, 12, (300, 3)))
    frame = _board(paint)
    frame[:20] = (33, 160, 171)  # the paint a little brighter
    frame[20:40] = (60, 215, 230)  # a pawn's lit top
    ys, xs = np.mgrid[0:40, 0:80]
    pixels = PixelSet.of(empty, ys, xs)
    plain, _ = classify_set(frame, pixels, (yellow,))
    quiet, _ = classify_set(frame, pixels, (yellow,), quiet_lookalikes=True)
    plain, quiet = plain.reshape(40, 80), quiet.reshape(40, 80)
    assert (plain[:20] == FIRST_PIECE).all() and (quiet[:20] == WEAK).all()
    assert (plain[20:] == FIRST_PIECE).all() and (quiet[20:] == FIRST_PIECE).all()


def test_weak_change_is_the_paint_on_a_field_painted_in_a_colour_in_play() -> None:
    """The same mix of weak and unchanged pixels says "empty" on a house field of a colour in
    play and leans to a pawn on a plain track field (a white pawn on a white field)."""
    names, looks = ("h00", "t01"), ("tint0", "track")
    discs = FieldDiscs(names, looks, np.zeros((2, 2)), np.zeros((2, 10), np.intp),
                       np.zeros((2, 10), np.intp))
    labels = np.array([[WEAK] * 6 + [BACKGROUND] * 4] * 2)
    evidence = maedn_evidence(labels, discs, (0,), load_geometry().board("maedn"))
    assert evidence.state(0) == 0  # the house field: empty
    assert evidence.state(1) == 1  # the track field: a pawn of colour 0


def test_a_board_short_of_fifteen_checkers_a_colour_is_named() -> None:
    """A sixth checker laid on a row of five looks like the row alone from above: a board
    that shows fewer than fifteen checkers of a colour is not given as read."""
    assert missing_checkers(STANDARD_BACKGAMMON) == ""
    points = list(STANDARD_BACKGAMMON.points)
    points[5] -= 1  # White's six-point: 4 instead of 5
    assert missing_checkers(BackgammonBoard(points=tuple(points))) == \
        "14 white checkers seen of 15"
    assert missing_checkers(BackgammonBoard(points=tuple(points), bar_white=1)) == ""


def test_a_frame_short_of_a_checker_is_read_at_the_table_but_not_alone(backgammon: tuple
                                                                       ) -> None:
    """At the table the referee flags a checker gone (a hit checker not on the bar); a frame
    read alone (`vision board`, `all_checkers`) gives no board that lacks one."""
    camera, reader = backgammon
    points = list(STANDARD_BACKGAMMON.points)
    points[12] -= 1  # White's mid-point: 4 instead of 5
    short = BackgammonBoard(points=tuple(points))
    image = render(Scene(short), seed=77, camera=camera).image
    assert reader.read_board(image).board == short
    alone = FrameReader(reader.calib, dice_reader=None, all_checkers=True).read_board(image)
    assert alone.board is None and alone.problem == "uncertain"
    assert "14 white checkers seen of 15" in alone.why


def _counted(rows: dict[str, list[float]]) -> dict[str, np.ndarray]:
    """`conserve_pawns` on colour 0's fields given as name → [P(empty), P(colour 0)]."""
    names = tuple(rows)
    logp = np.log(np.array([rows[n] for n in names]))
    evidence = MaednEvidence(names, (0,), logp, np.zeros(len(names)),
                             load_geometry().board("maedn"))
    return dict(zip(names, np.exp(conserve_pawns(evidence).logp), strict=True))


def test_four_pawns_surely_seen_leave_no_room_for_a_fifth() -> None:
    """A patch of light on t30 that is no pawn's colour left it 0.89 empty; colour 0's four
    pawns stand surely elsewhere, so t30 is empty for sure."""
    sure = {f"t{i:02d}": [1e-6, 1.0] for i in range(4)}
    counted = _counted({**sure, "t30": [0.89, 0.11]})
    assert counted["t30"][0] > 0.999 and counted["t00"][1] > 0.999


def test_a_fourth_pawn_blending_into_its_house_is_found_by_the_count() -> None:
    """Three pawns seen surely and a house field half believed to hold the fourth: the count
    of four settles it; two equally unsure fields for one missing pawn stay unsure."""
    sure = {f"t{i:02d}": [1e-6, 1.0] for i in range(3)}
    counted = _counted({**sure, "h00": [0.5, 0.5], "h01": [1.0 - 1e-6, 1e-6]})
    assert counted["h00"][1] > 0.95
    split = _counted({**sure, "h00": [0.5, 0.5], "h01": [0.5, 0.5]})
    assert 0.3 < split["h00"][1] < 0.7 and 0.3 < split["h01"][1] < 0.7


def test_surely_read_fields_are_left_as_they_are() -> None:
    names = ("t00", "t01")
    evidence = MaednEvidence(names, (0,), np.log(np.array([[1e-6, 1.0], [1.0, 1e-6]])),
                             np.zeros(2), load_geometry().board("maedn"))
    assert conserve_pawns(evidence) is evidence
