"""Frame → Observation: warp the board once, compare it with the empty board, read the dice.

The frame is brought to the empty board's light, its pixels are labelled (empty board, shadow,
a learned piece colour, or nothing known: `vision.board_look`), and every field gets
log-probabilities of what it holds (`vision.board_evidence`). Something large that nothing
explains — a hand, an arm, a box — makes the frame *blocked*: no board rather than a wrong one.
A field read with less than `min_confidence` makes it *uncertain*; the Observation still
carries the evidence, so the referee can score the legal results of a turn against it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision import board_evidence as be
from vision.board_finder import check_image
from vision.board_look import (
    BACKGROUND,
    FIRST_PIECE,
    SHADOW,
    UNEXPLAINED,
    EmptyBoard,
    Light,
    PixelSet,
    classify_set,
    shade_map,
    visibility,
)
from vision.board_regions import (
    COARSE_MM,
    coarse_grid,
    field_discs,
    free_mask,
    lane_rows,
    piece_zones,
)
from vision.calibration import Calibration, die_size_px
from vision.frame_align import Aligner, realign
from vision.geometry import BackgammonGeometry, MaednGeometry
from vision.lane_rings import RingScores, ring_places, ring_scores
from vision.lens import WARP_PX_PER_MM, warp_board
from vision.observation import BLOCKED, IMPOSSIBLE, MOVED, UNCERTAIN, Observation
from vision.piece_edges import new_structure, structure

log = logging.getLogger(__name__)

DiceReaderFn = Callable[[np.ndarray], Sequence[object]]
#: The table camera sees dice 13–18 px wide. Scaling them up to the detector's usual 20 px
#: made the detector most of a frame's reading time; at 16 px, within the 14–29 px it was trained
#: on, 360 rendered frames (both boards, 30 camera mounts, every value) were read as well as at
#: 20 px, with no extra dice inside the dice regions, in about 0.7 of the time.
TABLE_DETECTOR_DIE_PX = 16.0
#: At the table a misread die accuses a player, a die left unread only asks for a re-roll, so
#: a face read with less than this probability is not guessed (the reader's default, 0.35, is
#: set for the scoring of the dice photos, where an unread die counts as wrong as a misread
#: one). Rendered dice at the table camera's scale (60 mounts × every value per board, seeds
#: 200-259, 1075 read): of the 6 misread, 4 fall below 0.6, of the 1069 read right 3; checked
#: on seeds 300-359: 4 of 6 and 5 of 1069.
TABLE_READ_THRESHOLD = 0.6
#: A 4 and a 6 are the faces blur confuses: at 13-15 px, blurred along the pip columns, a 4's
#: two columns smear into two bars, as a 6's do. Rendered dice at the table camera's scale
#: (4 × 60 mounts, every value; seeds 200-559, 4320 dice): at 0.6, 6 misread (5 of them 4s and
#: 6s) and 31 read right below it; asking 0.7 of a 4 or a 6, 2 misread and 56 below it. Chosen
#: on seeds 200-359 (3 misread → 1), checked on 400-559 (3 → 1, 17 → 32 below).
TABLE_VALUE_THRESHOLDS = {4: 0.7, 6: 0.7}
#: Unexplained pixels in one connected patch of more than this many mm² are a hand, an arm or
#: an object over the board (both dice with their shadows cover well under half of it).
COVERED_MM2 = 2000.0
#: Changed pixels where no piece can be (off the fields and points) in one patch of more than
#: this many mm² are a hand or an object, whatever colour it has (two dice lying side by side
#: with their shadows cover about 1200 on the coarse grid; a hand 5000 and more).
STRAY_MM2 = 2500.0
#: A new shadow larger than this (mm²) is an arm's or a person's: what lies in it is not read
#: (the pieces' own shadows are a few cm² each; the empty board's are no change at all).
SHADOW_MM2 = 6000.0


@dataclass(frozen=True)
class Warped:
    """A frame's board, top-down, its edges and its light against the empty board's."""

    image: np.ndarray
    edges: np.ndarray
    light: Light
    lost: bool = False  # the board moved further than a knock (`vision.frame_align`)


@dataclass(frozen=True)
class BoardReading:
    """One frame's board: the free reading (or why there is none), each field's confidence in
    it, and the evidence per field that boards are scored against."""

    board: BackgammonBoard | MaednBoard | None
    evidence: be.MaednEvidence | be.LaneEvidence | None
    problem: str  # "", BLOCKED, MOVED, UNCERTAIN or IMPOSSIBLE
    why: str  # in English, for people
    confidence: tuple[tuple[str, float], ...] = ()
    contents: dict[str, int] = field(default_factory=dict)  # each field's likeliest content


class FrameReader:
    """Reads frames from one calibrated camera; build once, call `read` per frame.

    `dice_reader` takes the frame and returns `vision.dice.DieReading`s; by default the dice
    reader of `vision.dice` is built for the die size this camera sees, limited to the board,
    and told the side faces flat dice show it (`Calibration.parallax`).
    `players` (Mensch) decides which colours belong to which seat (see docs/geometry.md).
    A field read less surely than `min_confidence` leaves the frame uncertain. With
    `all_checkers` so does a backgammon board short of fifteen checkers a colour (one frame
    read alone: the checker lies hidden under a stack or in a tray's pile, or in a hand); at
    the table the referee holds such a board against the turn's legal results and flags a
    missing checker (a hit checker not put on the bar) as an illegal play.
    """

    def __init__(self, calib: Calibration, players: int = 2,
                 dice_reader: DiceReaderFn | str | None = "default",
                 min_confidence: float = 0.9, all_checkers: bool = False) -> None:
        self.calib = calib
        self.players = players
        self.all_checkers = all_checkers
        self.board_geo = calib.geometry().board(calib.game)
        self.homography = calib.matrix
        self.min_confidence = min_confidence
        self.empty = EmptyBoard(calib.empty, calib.noise)
        self.pose = calib.pose()
        self.empty_structure = structure(calib.empty)
        self.aligner = Aligner(self.empty_structure, free_mask(self.board_geo, self.pose))
        geo = self.board_geo
        self.grid = coarse_grid(geo.width, geo.height)
        self.grid_pixels = PixelSet.of(self.empty, self.grid.ys, self.grid.xs)
        self.zones = piece_zones(geo, self.pose, self.grid)
        self.trays = piece_zones(geo, self.pose, self.grid, trays_only=True)
        if isinstance(geo, BackgammonGeometry):
            self.rows = lane_rows(geo, self.pose)
            self.lane_pixels = PixelSet.of(self.empty, self.rows.all_ys, self.rows.all_xs)
            self.rings = ring_places(geo, self.rows)
            self._rim_levels = calib.rim_levels or (calib.edge_levels, calib.edge_levels)
            across = self.rows.all_ys.shape[1]
            self._visible = None if len(calib.piece_colours) < 2 else tuple(
                visibility(self.lane_pixels, colour).reshape(-1, across).mean(axis=1)
                for colour in calib.piece_colours[:2])
            self.seat_colours: tuple[int, ...] = ()
        else:
            self.discs = field_discs(geo, self.pose)
            self.disc_pixels = PixelSet.of(self.empty, self.discs.ys, self.discs.xs)
            self.seat_colours = geo.seat_colours(players)
            missing = set(self.seat_colours) - set(calib.colours_in_play)
            if missing:
                raise ValueError(f"the calibration learned no piece colour {sorted(missing)}: "
                                 f"calibrate with {players} players' pieces in their houses")
        self.dice_reader = self._dice_reader(dice_reader)

    def _dice_reader(self, choice: DiceReaderFn | str | None) -> DiceReaderFn | None:
        if choice != "default":
            return choice  # type: ignore[return-value]
        from vision.dice import DiceModelError, DiceReader, DiceRegions

        geo = self.board_geo
        try:
            reader = DiceReader(die_size_px=die_size_px(self.calib.to_image, geo.width,
                                                        geo.height),
                                detector_die_px=TABLE_DETECTOR_DIE_PX,
                                read_threshold=TABLE_READ_THRESHOLD,
                                value_thresholds=TABLE_VALUE_THRESHOLDS,
                                parallax=self.calib.parallax())
        except DiceModelError as exc:
            log.warning("dice model unavailable (%s): dice are not read", exc)
            return None
        regions = DiceRegions(self._dice_mask())
        return lambda image: reader.read(image, regions)

    def _dice_mask(self) -> np.ndarray:
        """Where a die found is a die: on the board's playing surface, but not on a point,
        the bar, a tray or a Mensch field. Those places are explained by checkers and pieces
        (a tall stack of shingled white checkers looks like a die leaning on its edge)."""
        geo = self.board_geo
        w, h = self.calib.image_size
        mask = np.zeros((h, w), np.uint8)
        edge = np.linspace(0.0, 1.0, 20)

        def fill(points_mm: np.ndarray, value: int) -> None:
            corners = self.calib.to_image(points_mm)
            cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], value)

        def rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
            return np.concatenate([
                np.column_stack([x0 + edge * (x1 - x0), np.full(20, y0)]),
                np.column_stack([np.full(20, x1), y0 + edge * (y1 - y0)]),
                np.column_stack([x1 - edge * (x1 - x0), np.full(20, y1)]),
                np.column_stack([np.full(20, x0), y1 - edge * (y1 - y0)])])

        if isinstance(geo, BackgammonGeometry):
            fill(rect(*geo.inner_rect), 255)
            for lane in geo.lanes():
                half = lane.width / 2
                fill(np.array([lane.at(0, -half), lane.at(0, half),
                               lane.at(lane.stack_length, half),
                               lane.at(lane.stack_length, -half)]), 0)
        else:
            f = geo.frame
            fill(rect(f, f, geo.width - f, geo.height - f), 255)
            turn = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            ring = np.column_stack([np.cos(turn), np.sin(turn)]) * geo.piece_diameter / 2
            for _, centre, _ in geo.fields():
                fill(ring + np.array(centre), 0)
        return mask

    def warp(self, image: np.ndarray) -> Warped:
        """The frame's board, top-down, put back where the empty board lies (a knocked camera)
        and brought to the empty board's light; with its edges (`lane_rings.structure`)."""
        check_image(image)
        w, h = self.calib.image_size
        if image.shape[:2] != (h, w):
            raise ValueError(f"frame is {image.shape[1]}×{image.shape[0]}, the calibration "
                             f"was made for {w}×{h}")
        geo = self.board_geo
        raw = warp_board(image, self.homography, geo.width, geo.height, self.calib.lens)
        edges = structure(raw)
        moved, lost = self.aligner.measure(edges)
        if moved is not None:
            raw, edges = realign(raw, moved), realign(edges, moved)
        return Warped(raw, edges, self.empty.light(raw), lost)

    def read_board(self, image: np.ndarray) -> BoardReading:
        """The board in one frame (8-bit BGR of the calibrated size; else ValueError)."""
        warped = self.warp(image)
        if warped.lost:
            return BoardReading(None, None, MOVED, "the board is not where it was calibrated: "
                                "the camera or the board moved further than a knock")
        return self.read_warp(warped.image, warped.edges, warped.light)

    def read_warp(self, warp: np.ndarray, edges: np.ndarray | None = None,
                  light: Light | None = None) -> BoardReading:
        """The board in a warp (in the empty board's light unless `light` says how it differs;
        its edges computed if not given)."""
        colours = self.calib.piece_colours
        labels, _ = classify_set(warp, self.grid_pixels, colours, light=light)
        grid = labels.reshape(self.grid.shape)
        shade = shade_map(self.grid_pixels.values(warp, light), self.grid_pixels.ref, grid)
        # A tray's pile shows its checkers' sides, not the faces their colours were learned
        # from: unexplained there is no hand (a hand reaching in crosses the board as well).
        covered = _largest_patch((grid == UNEXPLAINED) & ~self.trays) * COARSE_MM ** 2
        changed = (grid != BACKGROUND) & (grid != SHADOW)
        stray = _largest_patch(changed & ~self.zones) * COARSE_MM ** 2
        if covered > COVERED_MM2 or stray > STRAY_MM2:
            return BoardReading(None, None, BLOCKED,
                                f"a hand or an object covers {max(covered, stray) / 100:.0f} cm² "
                                "of the board")
        shadow = _largest_patch(grid == SHADOW) * COARSE_MM ** 2
        if shadow > SHADOW_MM2:
            return BoardReading(None, None, BLOCKED,
                                f"a shadow of {shadow / 100:.0f} cm² lies across the board "
                                "(an arm, a person)")
        geo = self.board_geo
        evidence: be.MaednEvidence | be.LaneEvidence
        if isinstance(geo, BackgammonGeometry):
            evidence = self._lanes(warp, shade, structure(warp) if edges is None else edges,
                                   light)
            settled = be.conserve(evidence, geo)
            board: BackgammonBoard | MaednBoard | None = be.backgammon_board(settled, geo)
            conf, contents = settled.confidence(), settled.contents()
        else:
            evidence = self._fields(warp, shade, light,
                                    structure(warp) if edges is None else edges)
            per_field = evidence
            evidence = be.conserve_pawns(per_field)  # what the rules' scoring holds boards against
            board = be.maedn_board(evidence, self.seat_colours)
            conf, contents = evidence.confidence(), evidence.contents()
        if board is None:
            return BoardReading(None, evidence, IMPOSSIBLE,
                                "the pieces seen cannot stand like that (too many of a colour)",
                                conf, contents)
        unsure = [n for n, c in conf if c < self.min_confidence]
        if isinstance(board, MaednBoard) and isinstance(evidence, be.MaednEvidence):
            unsure += be.unseen_in_house(per_field, board, self.seat_colours)
        if unsure:
            return BoardReading(None, evidence, UNCERTAIN,
                                f"not sure enough of {', '.join(unsure[:6])}", conf, contents)
        if (self.all_checkers and isinstance(board, BackgammonBoard)
                and (missing := be.missing_checkers(board))):
            return BoardReading(None, evidence, UNCERTAIN, missing, conf, contents)
        return BoardReading(board, evidence, "", "", conf, contents)

    def _fields(self, warp: np.ndarray, shade: np.ndarray, light: Light | None,
                edges: np.ndarray) -> be.MaednEvidence:
        d = self.discs
        labels, _ = classify_set(warp, self.disc_pixels, self.calib.piece_colours,
                                 self._shade_at(shade, d.ys, d.xs), light, quiet_lookalikes=True)
        levels = self.calib.edge_levels
        p_edges = None if levels is None else levels.p_piece(self.field_edges(edges))
        return be.maedn_evidence(labels.reshape(d.ys.shape), d, self.calib.colours_in_play,
                                 self.board_geo, p_edges)  # type: ignore[arg-type]

    def field_edges(self, edges: np.ndarray) -> np.ndarray:
        """Per Mensch field, how many new edges its disc shows (a pawn's outline)."""
        new = new_structure(edges, self.empty_structure)
        return new[self.discs.ys, self.discs.xs].mean(axis=1)

    def _lanes(self, warp: np.ndarray, shade: np.ndarray, edges: np.ndarray,
               light: Light | None) -> be.LaneEvidence:
        r = self.rows
        labels, _ = classify_set(warp, self.lane_pixels, self.calib.piece_colours,
                                 self._shade_at(shade, r.all_ys, r.all_xs), light)
        centre = r.all_ys.shape[1] // 2
        value = warp[r.all_ys[:, centre], r.all_xs[:, centre]].astype(np.float32).sum(axis=1)
        rings = ring_scores(new_structure(edges, self.empty_structure), self.rings)
        return be.lane_evidence(labels.reshape(r.all_ys.shape), r.bounds, r, value,
                                FIRST_PIECE, FIRST_PIECE + 1, rings, self._rim_levels,
                                self._visible)

    def ring_scores(self, warp: np.ndarray) -> RingScores:
        """Per lane, how strongly a checker's rim shows at each mm (for calibration)."""
        return ring_scores(new_structure(structure(warp), self.empty_structure), self.rings)

    def _shade_at(self, shade: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """A frame's shade map (on the coarse grid) at warp pixels (ys, xs)."""
        h, w = self.grid.shape
        gy = np.clip((ys / (COARSE_MM * WARP_PX_PER_MM)).astype(np.intp), 0, h - 1)
        gx = np.clip((xs / (COARSE_MM * WARP_PX_PER_MM)).astype(np.intp), 0, w - 1)
        return shade[gy, gx].ravel()

    def read(self, image: np.ndarray) -> Observation:
        """Read one frame (8-bit BGR of the calibrated size); bad input raises ValueError."""
        reading = self.read_board(image)
        conf = reading.confidence
        lowest = min((c for _, c in conf), default=0.0)
        if reading.problem in (BLOCKED, MOVED):
            return Observation(None, (), True, 0.0, conf, reading.problem)
        dice = tuple(self.dice_reader(image)) if self.dice_reader is not None else ()
        return Observation(reading.board, dice, False, lowest, conf, reading.problem,
                           reading.evidence)


def _largest_patch(mask: np.ndarray) -> int:
    """Cells in the largest 8-connected patch of `mask` (after removing single cells)."""
    m = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if count > 1 else 0


def expected_state(geo: BackgammonGeometry | MaednGeometry,
                   board: BackgammonBoard | MaednBoard) -> dict[str, int]:
    """A board as field → content, the way the evidence names fields (for messages); an
    empty field is absent (a Mensch field's content 0 is a piece of colour 0)."""
    if isinstance(geo, BackgammonGeometry):
        return be.lane_counts(board)  # type: ignore[arg-type]
    return be.occupancy(geo, board)  # type: ignore[arg-type]
