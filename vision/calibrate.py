"""Calibrate: find the board, learn its empty look and the piece colours, prove it reads.

`calibrate` takes a frame of a known position (the start position by default) and, best, a
frame of the empty board from the same camera. The board is found (`vision.board_finder`);
the empty board is remembered pixel by pixel; each colour in play is learned from the fields
the position says it covers. Then both frames are read back with the finished calibration and
must give exactly the empty board and the position; otherwise calibration is refused naming
the fields that disagree, so a user is never told it succeeded when the table cannot read.
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision import calibration_learn as learn
from vision.board_errors import (
    BLURRED,
    CAMERA_MOVED,
    COVERED,
    DICE_TOO_SMALL,
    NOT_ONE_SIZE,
    OUTLINE_SECOND_LOOK,
    POSITION_DIFFERS,
    TOO_DIM,
    CalibrationError,
)
from vision.board_evidence import lane_counts, occupancy
from vision.board_finder import BoardFix, check_image, find_board, marker_quads
from vision.board_look import EmptyBoard, PieceColour, measure_noise
from vision.board_regions import field_discs, free_mask, lane_rows
from vision.calibration import (
    STANDARD_BACKGAMMON,
    Calibration,
    die_size_px,
    maedn_start,
)
from vision.camera_pose import CameraPose, pose_from_homography
from vision.frame_align import Aligner, realign
from vision.frame_reader import FrameReader, expected_state
from vision.geometry import BackgammonGeometry, MaednGeometry, TableGeometry, load_geometry
from vision.lane_rings import learn_levels
from vision.lens import warp_board
from vision.parallax import Parallax
from vision.piece_edges import EdgeLevels, structure
from vision.print_match import PrintMatcher
from vision.sharpness import marker_blur_px

log = logging.getLogger(__name__)

#: A blur (`vision.sharpness`) of this share of a die's width or more leaves the dice often
#: unread. Chosen on the simulated evenings' mounts (seeds 100–119 per board): the four of 40
#: on which a quarter of the flat dice went unread measure 0.232–0.280, the others 0.02–0.217
#: and one 0.243 (98 of 100 read right). Checked on Mensch mounts 120–147: 6 warned, 7.8 % of
#: their flat dice unread; 22 not warned, 1.3 % (docs/calibration.md).
BLURRED_DIE_SHARE = 0.225
#: Dice narrower than this (pixels) are not read reliably. Rendered dice on 15 camera mounts per
#: board, every value: 640×360 (dice ~7 px) 98 of 270 read wrong, 960×540 (~11 px) 15 of 270,
#: 1280×720 (13–18 px) about 1 in 100.
MIN_DIE_PX = 12.0
DIM_LEVEL = 0.22  # median board brightness (0..1) below which reading becomes unreliable
#: The start frame's layout must agree this well with the board found on the empty frame, or
#: the camera moved between the two.
SAME_VIEW = 0.8


def calibrate(image: np.ndarray, game: str, start: BackgammonBoard | MaednBoard | None = None,
              geometry_file: str | None = None, use_markers: bool = True,
              players: int = 4, camera_height_mm: float | None = None,
              empty: np.ndarray | None = None, corners: np.ndarray | None = None,
              ) -> Calibration:
    """Find the board and learn what it looks like from a frame of the position `start`
    (default: the start position of `players` seats) and, best, a frame of the `empty` board.

    `camera_height_mm` is the lens's height above the board (measured); without it the
    board's perspective tells. `corners` (picture px, top-left clockwise) overrule the search.
    Raises CalibrationError (with a reason in German and English) when the board cannot be
    read reliably; warnings (dim light, markers missing, ...) are kept in the result.
    """
    check_image(image)
    if empty is not None:
        check_image(empty)
        if empty.shape != image.shape:
            raise CalibrationError(f"the empty board's picture is {empty.shape[1]}×"
                                   f"{empty.shape[0]}, the position's {image.shape[1]}×"
                                   f"{image.shape[0]}", NOT_ONE_SIZE)
    if camera_height_mm is not None:
        Parallax.check_height(camera_height_mm)
    geometry = load_geometry(geometry_file)
    geo = geometry.board(game)
    if start is None:
        start = STANDARD_BACKGAMMON if game == "backgammon" else maedn_start(players, geo)
    if isinstance(geo, BackgammonGeometry) != isinstance(start, BackgammonBoard):
        raise ValueError(f"the position given is not a {game} position")
    fix = find_board(empty if empty is not None else image, game, geometry, use_markers,
                     corners)
    size = (image.shape[1], image.shape[0])
    if empty is not None:
        empty_warp = warp_board(empty, fix.homography, geo.width, geo.height, fix.lens)
        fix = _position_view(fix, image, empty_warp)
    pose = pose_from_homography(fix.homography, size, camera_height_mm)
    warnings = list(fix.warnings) + _picture_warnings(image, fix, geometry, game)
    warp = warp_board(image, fix.homography, geo.width, geo.height, fix.lens)
    if empty is not None:
        warp = _aligned(warp, empty_warp, free_mask(geo, pose))
        source = "frame"
    else:
        empty_warp = _borrowed_empty(geo, warp, start, pose)
        source = "position"
    board_look = EmptyBoard(empty_warp)
    lit = board_look.light(warp).correct(warp)
    if empty is not None:
        counts = lane_counts(start) if isinstance(start, BackgammonBoard) \
            else occupancy(geo, start)  # type: ignore[arg-type]
        still = ~learn.piece_mask(geo, counts, empty_warp.shape[:2], pose)
        board_look = EmptyBoard(empty_warp, measure_noise(lit, board_look, still))
        learn.check_still(lit, board_look, _places(geo, pose),
                          {n for n, c in counts.items() if c or isinstance(geo, MaednGeometry)},
                          still)
    colours, in_play = _learn_colours(geo, lit, board_look, start, pose)
    for warning in warnings:
        log.warning("calibration: %s / %s", warning.de, warning.en)
    calib = Calibration(
        game=game, image_size=size, homography=tuple(float(v) for v in fix.homography.ravel()),
        method=fix.method, empty=empty_warp, noise=board_look.noise, piece_colours=colours,
        colours_in_play=in_play,
        empty_source=source, warnings=tuple(w.key for w in warnings),
        players=len(start.pieces) if isinstance(start, MaednBoard) else 2,
        geometry_file=geometry_file, lens_kappa=fix.lens.kappa,
        camera_height_mm=float(pose.height), nadir_mm=pose.nadir,
        height_measured=camera_height_mm is not None)
    calib = _with_levels(calib, geo, lit, start)
    try:
        _read_back(calib, geo, lit, start, players, empty_warp if empty is not None else None)
    except CalibrationError as exc:
        poor = [w for w in warnings
                if w in (TOO_DIM, BLURRED, DICE_TOO_SMALL, OUTLINE_SECOND_LOOK)]
        if poor:  # a dim, blurred or small picture, or a doubtful outline: say so too
            exc.args = (f"{exc.args[0]} ({'; '.join(w.en.lower() for w in poor)})",)
        raise
    return calib


def refresh(calib: Calibration, image: np.ndarray, position: BackgammonBoard | MaednBoard
            ) -> Calibration:
    """`calib` relearned from a frame of an accepted `position` (the same camera view and
    empty board): the piece colours and what their rims and outlines score, in the light of
    now, which drifts over an evening. The frame must read back as the position with what
    was relearned; otherwise CalibrationError, and `calib` stays the one in force."""
    _check_frame(calib, image)
    geo = calib.geometry().board(calib.game)
    if isinstance(geo, BackgammonGeometry) != isinstance(position, BackgammonBoard):
        raise ValueError(f"the position given is not a {calib.game} position")
    warped = FrameReader(calib, players=calib.players, dice_reader=None).warp(image)
    if warped.lost:
        raise CalibrationError("the board is not where the calibration saw it: the camera or "
                               "the board moved", CAMERA_MOVED)
    board_look = EmptyBoard(calib.empty, calib.noise)
    lit = warped.light.correct(warped.image)
    colours, in_play = _learn_colours(geo, lit, board_look, position, calib.pose())
    players = len(position.pieces) if isinstance(position, MaednBoard) else calib.players
    new = _with_levels(dataclasses.replace(calib, piece_colours=colours, colours_in_play=in_play,
                                           players=players), geo, lit, position)
    _read_back(new, geo, lit, position, players, None)
    return new


def revisit(calib: Calibration, image: np.ndarray, position: BackgammonBoard | MaednBoard
            ) -> Calibration:
    """`calib` for a camera (or board) that moved further than a knock: the board found again
    in `image`, a frame of the accepted `position`, by its own print (`PrintMatcher`: the
    pieces hide its outline more than its print), else by its markers or outline; the empty
    board learned stays (it is kept in board millimetres, whatever the view), the pieces are
    learned again in the new view (`refresh`), and the frame must read back as the position.
    Otherwise CalibrationError, and `calib` stays the one in force."""
    _check_frame(calib, image)
    view = PrintMatcher.of(calib).view(calib, image)
    if view is not None:
        return refresh(view, image, position)
    size = (image.shape[1], image.shape[0])
    fix = find_board(image, calib.game, calib.geometry())
    pose = pose_from_homography(fix.homography, size,
                                calib.camera_height_mm if calib.height_measured else None)
    moved = dataclasses.replace(
        calib, homography=tuple(float(v) for v in fix.homography.ravel()), method=fix.method,
        lens_kappa=fix.lens.kappa, camera_height_mm=float(pose.height), nadir_mm=pose.nadir)
    return refresh(moved, image, position)


def _check_frame(calib: Calibration, image: np.ndarray) -> None:
    check_image(image)
    if (image.shape[1], image.shape[0]) != calib.image_size:
        raise CalibrationError(f"the frame is {image.shape[1]}×{image.shape[0]}, the "
                               f"calibration was made for {calib.image_size[0]}×"
                               f"{calib.image_size[1]}", NOT_ONE_SIZE)


def _with_levels(calib: Calibration, geo: BackgammonGeometry | MaednGeometry, lit: np.ndarray,
                 start: BackgammonBoard | MaednBoard) -> Calibration:
    """`calib` with what a checker's rim (backgammon) or a pawn's outline (Mensch) scores,
    learned from the fields `start` covers in `lit` and those it leaves bare."""
    reader = FrameReader(calib, players=calib.players, dice_reader=None)
    if isinstance(geo, BackgammonGeometry):
        rims = learn_levels(reader.ring_scores(lit), geo.lanes(),
                            lane_counts(start))  # type: ignore[arg-type]
        return dataclasses.replace(calib, rim_levels=rims, edge_levels=None)
    scores = reader.field_edges(structure(lit))
    taken = occupancy(geo, start)  # type: ignore[arg-type]
    names = field_discs(geo, calib.pose()).names
    levels = EdgeLevels.learn([s for n, s in zip(names, scores, strict=True) if n in taken],
                              np.array([s for n, s in zip(names, scores, strict=True)
                                        if n not in taken]))
    return dataclasses.replace(calib, edge_levels=levels)


def _position_view(fix: BoardFix, image: np.ndarray, empty_warp: np.ndarray) -> BoardFix:
    """The board as the position's picture shows it: where its print is found there
    (`PrintMatcher`) when that is not where the empty board's picture showed it (two photos
    taken by hand, a camera moved between them); else as found on the empty board."""
    seen = PrintMatcher(empty_warp, fix.homography, fix.lens).find_moved(image)
    return fix if seen is None else dataclasses.replace(fix, homography=seen)


def _aligned(warp: np.ndarray, empty_warp: np.ndarray, free: np.ndarray) -> np.ndarray:
    """The position's warp put where the empty board's lies (a camera knocked a little between
    the two pictures); a camera moved further is refused."""
    moved, lost = Aligner(structure(empty_warp), free).measure(structure(warp))
    if lost:
        raise CalibrationError("the empty board and the position were not taken from the "
                               "same camera view (did the camera or the board move?)",
                               CAMERA_MOVED)
    return warp if moved is None else realign(warp, moved)


def _picture_warnings(image: np.ndarray, fix: BoardFix, geometry: TableGeometry, game: str
                      ) -> list:
    geo = geometry.board(game)
    out = []
    warp = warp_board(image, fix.homography, geo.width, geo.height, fix.lens)
    if float(np.median(warp)) / 255.0 < DIM_LEVEL:
        out.append(TOO_DIM)
    die_px = die_size_px(fix.to_image, geo.width, geo.height)
    if die_px < MIN_DIE_PX:
        log.warning("calibration: dice will be %.1f px wide (at least %.0f read well)", die_px,
                    MIN_DIE_PX)
        out.append(DICE_TOO_SMALL)
    blur = marker_blur_px(image, marker_quads(image, fix, geometry, game))
    if blur is not None and blur >= BLURRED_DIE_SHARE * die_px:
        log.warning("calibration: edges blurred by %.1f px, %.0f %% of a die's width", blur,
                    100 * blur / die_px)
        out.append(BLURRED)
    return out


def _places(geo: BackgammonGeometry | MaednGeometry, pose: CameraPose
            ) -> dict[str, tuple[np.ndarray, ...]]:
    """Field or lane name → the warp pixels it is read on."""
    if isinstance(geo, BackgammonGeometry):
        rows = lane_rows(geo, pose)
        return {lane.name: (ys, xs) for lane, ys, xs in zip(rows.lanes, rows.ys, rows.xs,
                                                           strict=True)}
    discs = field_discs(geo, pose)
    return {name: (discs.ys[i], discs.xs[i]) for i, name in enumerate(discs.names)}


def _borrowed_empty(geo: BackgammonGeometry | MaednGeometry, warp: np.ndarray,
                    start: BackgammonBoard | MaednBoard, pose: CameraPose) -> np.ndarray:
    if isinstance(geo, BackgammonGeometry):
        return learn.synthesize_backgammon(geo, warp, lane_counts(start))  # type: ignore[arg-type]
    return learn.synthesize_maedn(geo, warp, occupancy(geo, start), pose)  # type: ignore[arg-type]


def _learn_colours(geo: BackgammonGeometry | MaednGeometry, lit: np.ndarray,
                   board_look: EmptyBoard, start: BackgammonBoard | MaednBoard, pose: CameraPose
                   ) -> tuple[tuple[PieceColour, ...], tuple[int, ...]]:
    """The piece colours in play, from the fields the position covers."""
    if isinstance(geo, BackgammonGeometry):
        rows = lane_rows(geo, pose)
        counts = lane_counts(start)  # type: ignore[arg-type]
        samples: dict[str, list[tuple]] = {"white": [], "black": []}
        for i, lane in enumerate(rows.lanes):
            n = counts.get(lane.name, 0)
            if not n:
                continue
            inside = (rows.along[i] > 3) & (rows.along[i] < lane.extent(abs(n)) - 3)
            samples["white" if n > 0 else "black"].append((rows.ys[i][inside],
                                                            rows.xs[i][inside]))
        return learn.learn_colours(lit, board_look, samples), ()
    discs = field_discs(geo, pose)
    occupied = occupancy(geo, start)  # type: ignore[arg-type]
    in_play = tuple(sorted(set(occupied.values())))
    index = {name: i for i, name in enumerate(discs.names)}
    per_colour: dict[str, list[tuple]] = {f"colour {c}": [] for c in in_play}
    for name, colour in occupied.items():
        i = index[name]
        per_colour[f"colour {colour}"].append((discs.ys[i], discs.xs[i]))
    return learn.learn_colours(lit, board_look, per_colour), in_play


def _read_back(calib: Calibration, geo: BackgammonGeometry | MaednGeometry, lit: np.ndarray,
               start: BackgammonBoard | MaednBoard, players: int,
               empty_warp: np.ndarray | None) -> None:
    """Read the calibration's own frames back: they must give the position and the empty
    board, else say which fields disagree."""
    seats = len(start.pieces) if isinstance(start, MaednBoard) else players
    reader = FrameReader(calib, players=seats, dice_reader=None)
    checks = [("the position", lit, start)]
    if empty_warp is not None:
        blank = (BackgammonBoard(points=(0,) * 24) if isinstance(geo, BackgammonGeometry)
                 else MaednBoard(pieces=tuple(() for _ in range(seats))))
        checks.append(("the empty board", empty_warp, blank))
    for what, warp, truth in checks:
        reading = reader.read_warp(warp)
        if reading.problem == "blocked":
            raise CalibrationError(f"{what}: {reading.why}", COVERED)
        if reading.evidence is None:
            raise CalibrationError(f"{what}: {reading.why}", POSITION_DIFFERS)
        want = expected_state(geo, truth)
        names = reading.evidence.names
        wrong = [n for n in names if want.get(n) != reading.contents.get(n)]  # absent: empty
        if wrong:
            raise CalibrationError(f"{what} does not read back as given: field(s) "
                                   f"{', '.join(wrong[:10])} read differently",
                                   POSITION_DIFFERS)
