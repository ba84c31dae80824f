"""The own set: the frames of an evening where the reader was unsure or the players corrected
it, labelled with the position the referee accepted, so an owner can measure their own table.

`spieltisch record` keeps it in `FOLDER/own-set/` in the set-up form of `vision.board_eval`, so
`spieltisch vision eval FOLDER/own-set` calibrates each game again and reads its frames::

    labels.json          {"version": 1, "setups": [{"id": "game001", "split": "own",
                          "game": ..., "players": ..., "geometry": ..., "calibrate": {...},
                          "frames": [{"image": "game001/start.png", "kind": "start",
                                      "board": {...}}, ...]}]}
    game001/start.png    the game's calibration frame; empty.png when the table's calibration
                         learned the empty board from a frame; 000123.png, ... the kept frames
                         (numbered by the session's frame count)

How a frame earns its label: pieces only move under a hand, and while a hand is over the board
the reader gives no board (it says "blocked", or at its edge "uncertain"). So the board lies
still over a *still spell*: frames read as boards, and gaps without a board after which the
picture is the same as before it (`vision.change_gate`: nothing moved). A gap after which the
picture changed, or frames that stopped coming (the camera lost), end the spell. A still spell
is labelled when the referee's accepted position equals a board the reader reported in it for
exactly one position, that position is the last board read in the spell, and every other board
read in it the referee flagged (`Illegal`, `BoardDiffers`). Then every frame of the spell shows
that position, and these are kept:

- *unsure*: a gap without a hand in which the reader gave no board (`uncertain`, `impossible`)
  for `hold_s` or longer, one frame each (a hand passing the board's edge is shorter);
- *corrected*: a board the reader reported and the referee flagged while the board lay still
  (the reader changed its mind without anything being moved).

A spell that cannot be labelled so keeps nothing (pieces moved without the reader seeing a hand,
a flagged play the players then put right by hand, no agreement): a label is never a guess.
Frames are lossless PNGs, written before `labels.json`, which is replaced whole (atomically)
after each spell that kept frames: a crash loses at most the spell under way.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller import table_log
from controller.referee import Referee
from controller.table.game_vision import GameVision
from controller.words.boards import Board
from controller.words.events import BoardObserved, Event, NewGame
from controller.words.signals import BoardDiffers, Illegal, Signal
from vision.board_finder import board_corners
from vision.calibration import Calibration
from vision.change_gate import ChangeGate
from vision.lens import WARP_PX_PER_MM
from vision.observation import Observation

FORMAT_VERSION = 1
LABELS = "labels.json"
FOLDER = "own-set"  # inside a recording
SPLIT = "own"
HOLD_S = 1.0  # unsure this long is more than a hand passing the board's edge
MAX_UNSURE_PER_SPELL = 3  # a flickering evening must not fill the disk with one still board
FRAMES_STOPPED_S = 2.0  # no frame this long (the camera lost): anything may have moved


class OwnSetError(ValueError):
    """A folder that cannot take an own set; the message names the file."""


def accepted_position(referee: Referee) -> Board | None:
    """The position the referee holds as standing (None before a game, and after plays nobody
    saw until the camera shows the board again)."""
    game = referee.game
    if game is None or game.state.unseen:
        return None
    return game.board_of(game.state.pos)


def load_labels(folder: Path) -> dict[str, Any]:
    """The own set's labels in `folder` (a new, empty one when there is none yet)."""
    path = folder / LABELS
    if not path.exists():
        return {"version": FORMAT_VERSION, "setups": []}
    try:
        labels = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OwnSetError(f"{path}: cannot read labels: {exc}") from None
    if not isinstance(labels, dict) or not isinstance(labels.get("setups"), list):
        raise OwnSetError(f"{path}: no 'setups' list: not a folder of board frames")
    return labels


def board_json(board: Board) -> dict[str, Any]:
    """A board as the table log writes it (without the line's type and time)."""
    line = table_log.event_to_json(BoardObserved(board=board))
    return {k: v for k, v in line.items() if k not in ("type", "t")}


def empty_board_in_view(calib: Calibration, image: np.ndarray) -> np.ndarray:
    """The calibration's empty board (its top-down picture) drawn back into the camera's view
    over `image`, whose surroundings it keeps: the empty-board frame the table was calibrated
    with, as near as its calibration file can tell (the file keeps only the board)."""
    h, w = image.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    flat = calib.lens.undistort(np.column_stack([xs.ravel(), ys.ravel()]))
    mm = cv2.perspectiveTransform(flat.reshape(1, -1, 2), np.linalg.inv(calib.matrix))[0]
    maps = (mm * WARP_PX_PER_MM).astype(np.float32).reshape(h, w, 2)
    board = cv2.remap(calib.empty, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR)
    inside = cv2.remap(np.full(calib.empty.shape[:2], 255, np.uint8), maps[..., 0],
                       maps[..., 1], cv2.INTER_NEAREST, borderValue=0) > 0
    out = image.copy()
    out[inside] = board[inside]
    return out


@dataclass
class _Frame:
    image: np.ndarray = field(repr=False)
    number: int
    t: float


@dataclass
class _Read:
    """A board the reader reported (a stable reading) and what the referee made of it."""

    board: Board
    frame: _Frame
    agreed: bool = False  # the referee's position was this board
    flagged: bool = False  # the referee said it is not where it must be


@dataclass
class _Spell:
    """Frames over which the board lay still, and what was read and judged in them."""

    reads: list[_Read] = field(default_factory=list)
    unsure: list[tuple[_Frame, str]] = field(default_factory=list)  # and the reader's problem

    def label(self) -> Board | None:
        agreed = {r.board for r in self.reads if r.agreed}
        if len(agreed) != 1:
            return None
        (board,) = agreed
        if self.reads[-1].board != board:
            return None
        if any(r.board != board and not r.flagged for r in self.reads):
            return None
        return board


@dataclass
class _Gap:
    """Frames without a board reading since the last one: a hand, or the reader unsure."""

    since: float
    hand: bool = False  # a frame of it was blocked
    frame: _Frame | None = None  # the frame kept once unsure for `hold_s`
    problem: str = ""


@dataclass
class _Game:
    id: str
    event: NewGame
    calibration: Calibration | None = None
    start: _Read | None = None  # the game's first agreed board: its calibration frame
    entry: dict[str, Any] | None = None  # its set-up in labels.json, once it keeps a frame


class OwnSet:
    """Keeps the own set in `folder` (appending to one already there): a `TablePipeline`
    listener that also sees every frame's reading through `watch(vision)`. `position` gives
    the referee's accepted position (`accepted_position`)."""

    def __init__(self, folder: Path | str, position: Callable[[], Board | None],
                 hold_s: float = HOLD_S) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.labels = load_labels(self.folder)
        self.position = position
        self.hold_s = hold_s
        self.kept = 0
        self._game: _Game | None = None
        self._spell = _Spell()
        self._gap: _Gap | None = None
        self._frame: _Frame | None = None  # the frame being read (not copied until kept)
        self._last_read: np.ndarray | None = None  # the last frame read as a board
        self._still = ChangeGate()  # holds that frame's picture while a gap lasts

    def watch(self, vision: GameVision) -> ReadingTap:
        """`vision` for the pipeline, telling this own set each frame's reading."""
        return ReadingTap(vision, self)

    # ---- what the table sees -------------------------------------------------------------

    def on_frame(self, t: float, image: np.ndarray) -> None:
        last = self._frame
        if last is not None and t - last.t > FRAMES_STOPPED_S:
            self._end_spell()
            self._gap = self._last_read = None
        self._frame = _Frame(image, last.number + 1 if last is not None else 1, t)

    def on_reading(self, observation: Observation, calibration: Calibration | None) -> None:
        """The reading of the frame just given to `on_frame`, by `calibration`."""
        frame = self._frame
        if frame is None:
            return
        if self._game is not None and self._game.calibration is None:
            self._game.calibration = calibration
        if observation.board is None:
            if self._gap is None:
                self._gap = _Gap(frame.t)
                if self._last_read is not None:
                    self._still.read_done(self._last_read)
            gap = self._gap
            gap.hand |= observation.blocked
            if gap.frame is None and frame.t - gap.since >= self.hold_s:
                gap.frame, gap.problem = _copy(frame), observation.problem
            return
        gap, self._gap = self._gap, None
        if gap is not None:
            if self._last_read is None or not self._still.unchanged(frame.image):
                self._end_spell()  # something moved under the gap: another still spell
            elif (gap.frame is not None and not gap.hand
                  and len(self._spell.unsure) < MAX_UNSURE_PER_SPELL):
                self._spell.unsure.append((gap.frame, gap.problem))
        self._last_read = frame.image

    def on_event(self, event: Event, source: str) -> None:
        if isinstance(event, NewGame):
            self._end_spell()
            self._gap = self._last_read = None
            self._game = _Game(self._next_id(), event)
        elif isinstance(event, BoardObserved) and source == "vision" and self._frame is not None:
            self._spell.reads.append(_Read(event.board, _copy(self._frame)))

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        """After each event the referee judged: did it flag the last board read, does its
        position agree with it?"""
        if origin != "referee" or not self._spell.reads:
            return
        last = self._spell.reads[-1]
        last.flagged |= any(isinstance(s, Illegal | BoardDiffers) for s in signals)
        last.agreed |= last.board == self.position()

    def close(self) -> None:
        """The session ends: label the spell under way."""
        self._end_spell()

    # ---- keeping frames ------------------------------------------------------------------

    def _end_spell(self) -> None:
        spell, self._spell = self._spell, _Spell()
        game = self._game
        board = spell.label()
        if game is None or board is None:
            return
        if game.start is None:
            game.start = next(r for r in spell.reads if r.board == board)
        kept: list[tuple[_Frame, str, Any]] = [(f, "unsure", problem) for f, problem in
                                                spell.unsure]
        misread: set[Board] = set()
        for read in spell.reads:
            if read.board != board and read.board not in misread:
                misread.add(read.board)
                kept.append((read.frame, "corrected", board_json(read.board)))
        if kept:
            self._keep(game, board, kept)

    def _keep(self, game: _Game, board: Board, kept: list[tuple[_Frame, str, Any]]) -> None:
        if game.entry is None:
            game.entry = self._setup(game)
            self.labels["setups"].append(game.entry)
        for frame, why, read in sorted(kept, key=lambda k: k[0].number):
            name = f"{game.id}/{frame.number:06d}.png"
            self._write_png(name, frame.image)
            game.entry["frames"].append({"image": name, "kind": "play",
                                         "board": board_json(board), "why": why, "read": read,
                                         "t": round(frame.t, 3)})
            self.kept += 1
        self._write_labels()

    def _setup(self, game: _Game) -> dict[str, Any]:
        """The set-up of a game: how to calibrate it as the table was calibrated."""
        assert game.start is not None
        calib, event = game.calibration, game.event
        frames: list[dict[str, Any]] = []
        told: dict[str, Any] = {}
        geometry = None
        if calib is not None:
            if calib.empty_source == "frame":
                self._write_png(f"{game.id}/empty.png",
                                empty_board_in_view(calib, game.start.frame.image))
                frames.append({"image": f"{game.id}/empty.png", "kind": "empty", "board": None})
            if calib.height_measured:
                told["camera_height_mm"] = calib.camera_height_mm
            if calib.method == "corners":
                geo = calib.geometry().board(calib.game)
                told["corners_px"] = calib.to_image(board_corners(geo.width, geo.height)
                                                    ).round(2).tolist()
            if calib.geometry_file:
                geometry = str(Path(calib.geometry_file).resolve())
        self._write_png(f"{game.id}/start.png", game.start.frame.image)
        frames.append({"image": f"{game.id}/start.png", "kind": "start",
                       "board": board_json(game.start.board), "t": round(game.start.frame.t, 3)})
        return {"id": game.id, "split": SPLIT, "game": event.game, "variant": event.variant,
                "players": event.players, "geometry": geometry, "calibrate": told,
                "frames": frames}

    def _next_id(self) -> str:
        taken = {str(s.get("id")) for s in self.labels["setups"] if isinstance(s, dict)}
        n = len(taken) + 1
        while f"game{n:03d}" in taken or (self.folder / f"game{n:03d}").exists():
            n += 1
        return f"game{n:03d}"

    def _write_png(self, name: str, image: np.ndarray) -> None:
        path = self.folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(path), image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
            raise OSError(f"cannot write frame {path}")

    def _write_labels(self) -> None:
        path = self.folder / LABELS
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            json.dump(self.labels, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)


class ReadingTap:
    """The table's vision as the pipeline uses it, handing each frame's reading to the own set
    too (the pipeline's listeners see frames and events, not the readings in between)."""

    def __init__(self, vision: GameVision, own_set: OwnSet) -> None:
        self.vision = vision
        self.own_set = own_set
        self.settle_s = vision.settle_s

    def start_game(self, event: NewGame) -> None:
        self.vision.start_game(event)

    def observe(self, image: np.ndarray, t: float) -> tuple[Observation, Observation | None]:
        observation, stable = self.vision.observe(image, t)
        reader = self.vision.reader
        self.own_set.on_reading(observation, reader.calib if reader is not None else None)
        return observation, stable

    def accepted(self, image: np.ndarray, board: Board) -> bool:
        """Passed on: the table's vision may learn the pieces again (`GameVision.accepted`)."""
        return self.vision.accepted(image, board)

    def moved(self, image: np.ndarray, board: Board, t: float) -> bool | None:
        """Passed on: the table's vision finds the board again (`GameVision.moved`)."""
        return self.vision.moved(image, board, t)


def _copy(frame: _Frame) -> _Frame:
    return _Frame(frame.image.copy(), frame.number, frame.t)
