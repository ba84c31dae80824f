"""Score the board reader on a labelled folder, the way a table owner uses it.

A folder holds `labels.json` with set-ups (one camera, one board, one light) and their frames:
the empty board (when there is one), the position calibration is told (`start`, or any
position), and frames to read (`play` clear, `hand` with a hand or arm over the board). Each
set-up is calibrated as `spieltisch calibrate` does (with the empty board where there is one,
and with what its optional `calibrate` entry says the owner told it: `camera_height_mm`, the
measured lens height, and `corners_px`, corners given by hand), then every other frame is read
as `spieltisch vision board` does. The photoreal set (tests/data/photoreal) and the own set
`spieltisch record` keeps (`controller.table.own_set`) are both of this form.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision.board_errors import CalibrationError
from vision.board_finder import board_corners
from vision.calibrate import calibrate
from vision.frame_reader import FrameReader, expected_state
from vision.parallax import Parallax
from vision.print_match import AnyViewReader

Board = BackgammonBoard | MaednBoard
BoardParser = Callable[[dict[str, Any]], Board]


class BoardLabelError(ValueError):
    """The folder's labels cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class LabelledFrame:
    image: Path
    kind: str  # "empty", "start", "play" or "hand"
    board: Board | None


@dataclass(frozen=True)
class Setup:
    """One camera over one board: its frames and what calibration is told."""

    name: str
    split: str
    game: str
    players: int
    geometry: str | None
    frames: tuple[LabelledFrame, ...]
    corners_px: np.ndarray | None = None  # the board's true corners, where known
    camera_height_mm: float | None = None  # told to calibrate: the lens height measured
    given_corners_px: np.ndarray | None = None  # told to calibrate: corners given by hand

    def frame(self, kind: str) -> LabelledFrame | None:
        return next((f for f in self.frames if f.kind == kind), None)


def load_setups(folder: Path, parse_board: BoardParser, split: str | None = None,
                repository: Path | None = None) -> list[Setup]:
    """The set-ups of `folder/labels.json` (only `split`'s when given). Geometry paths are
    taken relative to the folder, else to `repository`."""
    path = folder / "labels.json"
    try:
        data = json.loads(path.read_text("utf-8"))
        entries = data["setups"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BoardLabelError(f"{path}: cannot read labels: {exc}") from exc
    except (KeyError, TypeError):
        raise BoardLabelError(f"{path}: no 'setups' list: not a folder of board frames") from None
    out = []
    for n, entry in enumerate(entries):
        try:
            if split is not None and entry["split"] != split:
                continue
            frames = tuple(
                LabelledFrame(folder / f["image"], str(f["kind"]),
                              None if f.get("board") is None else parse_board(f["board"]))
                for f in entry["frames"])
            geometry = entry.get("geometry")
            if geometry is not None and not (folder / geometry).is_file() and repository:
                geometry = str(repository / geometry)
            elif geometry is not None:
                geometry = str(folder / geometry)
            corners = entry.get("corners_px")
            told = entry.get("calibrate") or {}
            height, given = told.get("camera_height_mm"), told.get("corners_px")
            out.append(Setup(str(entry["id"]), str(entry.get("split", "")), str(entry["game"]),
                             int(entry.get("players", 2)), geometry, frames,
                             None if corners is None else np.array(corners, np.float64),
                             None if height is None else Parallax.check_height(float(height)),
                             None if given is None else np.array(given, np.float64).reshape(4, 2)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BoardLabelError(f"{path}: set-up {n}: {exc}") from exc
    return out


@dataclass
class BoardReport:
    """What a folder's boards came to."""

    setups: int = 0
    calibrated: int = 0
    refused: list[str] = field(default_factory=list)
    corner_errors: list[float] = field(default_factory=list)  # share of the board's diagonal
    clear: int = 0
    clear_right: int = 0
    clear_no_board: int = 0
    fields: int = 0
    fields_right: int = 0
    hands: int = 0
    hands_blocked: int = 0
    wrong: list[str] = field(default_factory=list)  # a board given that is not the truth
    ms: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        within = sum(e <= 0.01 for e in self.corner_errors)
        return {
            "setups": self.setups, "calibrated": self.calibrated, "refused": self.refused,
            "corners_within_1pct": within, "corners_measured": len(self.corner_errors),
            "clear_frames": self.clear, "clear_right": self.clear_right,
            "clear_no_board": self.clear_no_board,
            "board_accuracy": self.clear_right / self.clear if self.clear else 0.0,
            "fields": self.fields, "fields_right": self.fields_right,
            "field_accuracy": self.fields_right / self.fields if self.fields else 0.0,
            "hand_frames": self.hands, "hands_blocked": self.hands_blocked,
            "wrong_readings": self.wrong,
            "ms_median": statistics.median(self.ms) if self.ms else 0.0,
        }


def evaluate_boards(setups: list[Setup], report: BoardReport | None = None) -> BoardReport:
    """Calibrate each set-up and read its frames; count what came out right."""
    report = report or BoardReport()
    for setup in setups:
        report.setups += 1
        try:
            reader = _calibrated(setup, report)
        except CalibrationError as exc:
            report.refused.append(f"{setup.name}: {exc}")
            continue
        geo = reader.board_geo
        for frame in setup.frames:
            if frame.kind not in ("play", "hand") or frame.board is None:
                continue
            image = _read_image(frame.image)
            start = time.perf_counter()
            reading = reader.read_board(image)
            report.ms.append((time.perf_counter() - start) * 1000)
            if reading.board is not None and reading.board != frame.board:
                report.wrong.append(f"{frame.image.name}: {frame.kind} read as another board")
            if frame.kind == "hand":
                report.hands += 1
                report.hands_blocked += reading.board is None
                continue
            report.clear += 1
            report.clear_right += reading.board == frame.board
            report.clear_no_board += reading.board is None
            truth = expected_state(geo, frame.board)
            seen = (expected_state(geo, reading.board) if reading.board is not None
                    else reading.contents)
            names = reading.evidence.names if reading.evidence is not None else tuple(truth)
            report.fields += len(names)
            report.fields_right += sum(truth.get(n) == seen.get(n) for n in names)
    return report


def _calibrated(setup: Setup, report: BoardReport) -> AnyViewReader:
    told = setup.frame("start")
    if told is None or told.board is None:
        raise CalibrationError("no frame of a known position to calibrate on")
    empty = setup.frame("empty")
    image = _read_image(told.image)
    calib = calibrate(image, setup.game, start=told.board, geometry_file=setup.geometry,
                      players=setup.players, camera_height_mm=setup.camera_height_mm,
                      corners=setup.given_corners_px,
                      empty=_read_image(empty.image) if empty is not None else None)
    report.calibrated += 1
    if setup.corners_px is not None:
        geo = calib.geometry().board(setup.game)
        found = calib.to_image(board_corners(geo.width, geo.height))
        diagonal = float(np.linalg.norm(setup.corners_px[2] - setup.corners_px[0]))
        report.corner_errors.append(
            float(np.linalg.norm(found - setup.corners_px, axis=1).max()) / diagonal)
    seats = len(told.board.pieces) if isinstance(told.board, MaednBoard) else setup.players
    return AnyViewReader(FrameReader(calib, players=seats, dice_reader=None, all_checkers=True))


def _read_image(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
    if image is None:
        raise BoardLabelError(f"{path}: missing or not a readable image")
    return image
