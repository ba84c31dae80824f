"""Frame → Observation: warp the board once, sample every field, read the dice.

The frame reader trusts nothing it cannot explain: when the wooden frame around the board does
not look as it did during calibration (an arm crosses it, a shadow falls on it), or when pixels
on the fields fit no learned colour, the frame is *blocked* and no board is reported, so a hand
never turns into a wrong reading.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision import pieces
from vision.calibration import Calibration, check_image, die_size_px, warp_board
from vision.geometry import BackgammonGeometry, MaednGeometry
from vision.observation import BLOCKED, IMPOSSIBLE, UNCERTAIN, Observation

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
CHECKERS_PER_SIDE = 15
PIECES_PER_SEAT = 4


class FrameReader:
    """Reads frames from one calibrated camera; build once, call `read` per frame.

    `dice_reader` takes the frame and returns `vision.dice.DieReading`s; by default the dice
    reader of `vision.dice` is built for the die size this camera sees, limited to the board,
    and told the side faces flat dice show it (`Calibration.parallax`).
    `players` (Mensch) decides which colours belong to which seat (see docs/geometry.md).
    Limits are squared distances in units of a colour's learned spread.
    """

    def __init__(self, calib: Calibration, players: int = 2,
                 dice_reader: DiceReaderFn | str | None = "default",
                 min_confidence: float = 0.2, pixel_limit: float = 60.0,
                 field_limit: float = 60.0, border_limit: float = 0.2,
                 max_unexplained: float = 0.01) -> None:
        self.calib = calib
        geometry = calib.geometry()
        self.board_geo = geometry.board(calib.game)
        self.homography = calib.matrix
        self.min_confidence = min_confidence
        self.pixel_limit = pixel_limit
        self.field_limit = field_limit
        self.border_limit = border_limit
        self.max_unexplained = max_unexplained
        geo = self.board_geo
        self.border = pieces.border_samples(geo.width, geo.height, geo.frame)
        self.border_values = np.array(calib.border_values, np.float32)
        self.border_chroma = np.array(calib.border_chroma, np.float32)
        if isinstance(geo, BackgammonGeometry):
            self.lanes = pieces.lane_samples(geo)
            self.sample_mm = self.lanes.mm
            self.seat_colours: tuple[int, ...] = ()
        else:
            self.fields = pieces.field_samples(geo)
            self.sample_mm = self.fields.centres
            self.seat_colours = geo.seat_colours(players)
            missing = set(self.seat_colours) - set(calib.piece_colours)
            if missing:
                raise ValueError(f"the calibration learned no piece colour {sorted(missing)}: "
                                 f"calibrate with {players} players' pieces in their houses")
        self.dice_reader = self._dice_reader(dice_reader)

    def _dice_reader(self, choice: DiceReaderFn | str | None) -> DiceReaderFn | None:
        if choice != "default":
            return choice  # type: ignore[return-value]
        try:
            from vision.dice import DiceModelError, DiceReader, DiceRegions
        except ImportError:
            log.warning("vision.dice is not available: dice are not read")
            return None
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
        """Where a die found is a die: inside the board's wooden frame, but not on a point, the
        bar, a tray or a Mensch field. Those places are explained by checkers, pieces and the
        frame (a tall stack of shingled white checkers looks like a die leaning on its edge),
        and a real die lying on them leaves pixels no colour explains, so the frame is blocked
        before dice are read."""
        geo = self.board_geo
        w, h = self.calib.image_size
        mask = np.zeros((h, w), np.uint8)
        edge = np.linspace(0.0, 1.0, 20)

        def fill(points_mm: np.ndarray, value: int) -> None:
            corners = self.calib.to_image(points_mm)
            cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], value)

        x0, y0 = geo.frame, geo.frame
        x1 = geo.inner_rect[2] if isinstance(geo, BackgammonGeometry) else geo.width - geo.frame
        y1 = geo.height - geo.frame
        fill(np.concatenate([
            np.column_stack([x0 + edge * (x1 - x0), np.full(20, y0)]),
            np.column_stack([np.full(20, x1), y0 + edge * (y1 - y0)]),
            np.column_stack([x1 - edge * (x1 - x0), np.full(20, y1)]),
            np.column_stack([np.full(20, x0), y1 - edge * (y1 - y0)])]), 255)
        if isinstance(geo, BackgammonGeometry):
            for lane in geo.lanes():
                half = lane.width / 2
                fill(np.array([lane.at(0, -half), lane.at(0, half),
                               lane.at(lane.stack_length, half),
                               lane.at(lane.stack_length, -half)]), 0)
        else:
            turn = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            ring = np.column_stack([np.cos(turn), np.sin(turn)]) * geo.piece_diameter / 2
            for _, centre, _ in geo.fields():
                fill(ring + np.array(centre), 0)
        return mask

    def read(self, image: np.ndarray) -> Observation:
        """Read one frame (8-bit BGR of the calibrated size); bad input raises ValueError."""
        check_image(image)
        w, h = self.calib.image_size
        if image.shape[:2] != (h, w):
            raise ValueError(f"frame is {image.shape[1]}×{image.shape[0]}, the calibration "
                             f"was made for {w}×{h}")
        geo = self.board_geo
        warp = warp_board(image, self.homography, geo.width, geo.height, self.calib.lens)
        coeffs, border_ok = self._light(warp)
        if not border_ok:
            return Observation(None, (), True, 0.0, (), BLOCKED)
        gain = pieces.gain_at(coeffs, self.sample_mm)
        if isinstance(geo, BackgammonGeometry):
            board, conf, blocked = self._read_backgammon(warp, gain)
        else:
            board, conf, blocked = self._read_maedn(warp, gain, geo)
        if blocked:
            return Observation(None, (), True, 0.0, conf, BLOCKED)
        dice = tuple(self.dice_reader(image)) if self.dice_reader is not None else ()
        lowest = min((c for _, c in conf), default=0.0)
        if board is None:
            return Observation(None, dice, False, lowest, conf, IMPOSSIBLE)
        if lowest < self.min_confidence:
            return Observation(None, dice, False, lowest, conf, UNCERTAIN)
        return Observation(board, dice, False, lowest, conf)  # type: ignore[arg-type]

    def _light(self, warp: np.ndarray) -> tuple[np.ndarray, bool]:
        """Light gain over the board from the frame's border; False when something covers it."""
        feats = pieces.features(self.border.means(warp))
        chroma_shift = np.abs(feats[:, :3] - self.border_chroma).max()
        coeffs, misfit = pieces.fit_gain(self.border.centres, feats[:, 3] / self.border_values)
        ok = misfit <= self.border_limit and chroma_shift <= 0.05
        if not ok:
            log.debug("border disturbed: misfit %.3f, chroma shift %.3f", misfit, chroma_shift)
        return coeffs, ok

    def _read_backgammon(self, warp: np.ndarray, gain: np.ndarray
                         ) -> tuple[BackgammonBoard | None, tuple[tuple[str, float], ...], bool]:
        readings = pieces.read_lanes(self.lanes, warp, gain, self.calib.colours,
                                     self.pixel_limit, self.calib.rim_signs)
        conf = tuple((lane.name, r.confidence)
                     for lane, r in zip(self.lanes.lanes, readings, strict=True))
        unexplained = float(np.mean([r.unexplained for r in readings]))
        if unexplained > self.max_unexplained or max(r.unexplained for r in readings) > 0.05:
            log.debug("unexplained pixels: %.3f of all", unexplained)
            return None, conf, True
        signed = [r.count if r.colour == "white" else -r.count for r in readings[:24]]
        bar_w, bar_b, off_w, off_b = (r.count for r in readings[24:])
        wrong_side = [r for r in readings[24:] if r.count and
                      r.colour != ("white" if r in (readings[24], readings[26]) else "black")]
        white = sum(c for c in signed if c > 0) + bar_w + off_w
        black = -sum(c for c in signed if c < 0) + bar_b + off_b
        if wrong_side or white > CHECKERS_PER_SIDE or black > CHECKERS_PER_SIDE:
            return None, conf, False
        # Fewer than 15 is a real board: a hit checker put beside the table instead of on the
        # bar. The referee names it (pieces missing); refusing it would leave players waiting.
        return BackgammonBoard(tuple(signed), bar_w, bar_b, off_w, off_b), conf, False

    def _read_maedn(self, warp: np.ndarray, gain: np.ndarray, geo: MaednGeometry
                    ) -> tuple[MaednBoard | None, tuple[tuple[str, float], ...], bool]:
        readings = pieces.read_fields(self.fields, warp, gain, self.calib.colours,
                                      tuple(self.calib.piece_colours), self.field_limit)
        conf = tuple((r.name, r.confidence) for r in readings)
        if any(r.unexplained for r in readings):
            return None, conf, True
        seats: list[list[int]] = [[] for _ in self.seat_colours]
        for r in readings:
            if r.colour is None:
                continue
            if r.colour not in self.seat_colours:
                return None, conf, False
            seat = self.seat_colours.index(r.colour)
            position = _seat_position(r.name, r.colour)
            if position is None:
                return None, conf, False
            seats[seat].append(position)
        if any(len(s) > PIECES_PER_SEAT for s in seats):
            return None, conf, False
        return MaednBoard(tuple(tuple(sorted(s)) for s in seats)), conf, False


def _seat_position(field: str, colour: int) -> int | None:
    """A field name → the position of a `colour` piece there, None if it cannot stand there."""
    kind, rest = field[0], field[1:]
    if kind == "t":
        return (int(rest) - 10 * colour) % 40
    if int(rest[0]) != colour:
        return None
    return -1 if kind == "h" else 40 + int(rest[1])

