"""Record a table session to a folder, and read one back for `spieltisch replay`.

A recording is a folder::

    session.json     what was recorded: game, frame step, frame size, program version
    frames/          every n-th camera frame as a lossless PNG (000001.png, ...)
    log.jsonl        one JSON object per line, in the order things happened:
                     {"frame": "frames/000001.png", "t": 0.066}
                     {"event": {table-log event}, "source": "vision" | "input" | "table"
                                                          | "journal"}
                     {"signals": [signal, ...], "origin": "referee" | "table" | "journal"}

Events use the table-log shape (`controller.table_log`), signals `Signal.to_json()`. Frames are
stored losslessly so that a replay reads exactly the pixels the table read. A replay re-runs the
frames through vision and feeds the recorded input events again; the vision events are the ones
it regenerates, and the referee's signals are compared with the recorded ones. A session that
began by resuming a game starts with that game's journaled events (source and origin
"journal"): a replay feeds them to rebuild the game, without comparing their signals.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from controller import table_log
from controller.referee import Referee
from controller.table.game_vision import CalibrationFiles, FrameCalibration, GameVision
from controller.table.pipeline import TablePipeline
from controller.words.events import Event, NewGame
from controller.words.signals import Signal

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
META = "session.json"
LOG = "log.jsonl"
FRAMES = "frames"
SOURCES = ("vision", "input", "table", "journal")
ORIGINS = ("referee", "table", "journal")


class RecordingError(ValueError):
    """A recording folder that cannot be read; the message names the file and line."""


class SessionRecorder:
    """Writes a session while the table runs; a listener of the `TablePipeline`.

    `every_nth` keeps disk use down on a long evening (a 1280×720 PNG is about 1 MB): only every
    n-th frame is written, but every event and every signal is.
    """

    def __init__(
        self, folder: Path | str, every_nth: int = 1, meta: dict[str, Any] | None = None
    ) -> None:
        if every_nth < 1:
            raise ValueError(f"every_nth must be at least 1, not {every_nth}")
        self.folder = Path(folder)
        if (self.folder / LOG).exists():
            raise FileExistsError(f"{self.folder} already holds a recording; choose a new folder")
        (self.folder / FRAMES).mkdir(parents=True, exist_ok=True)
        self.every_nth = every_nth
        self.frames_seen = 0
        self.frames_written = 0
        self._game_started = False
        self._meta = {"format": FORMAT_VERSION, "every_nth": every_nth, **(meta or {})}
        self._write_meta()
        self._log = (self.folder / LOG).open("a", encoding="utf-8")

    def on_frame(self, t: float, image: np.ndarray) -> None:
        self.frames_seen += 1
        first_of_game, self._game_started = self._game_started, False
        if (self.frames_seen - 1) % self.every_nth and not first_of_game:
            return
        self.frames_written += 1
        name = f"{FRAMES}/{self.frames_written:06d}.png"
        if not cv2.imwrite(str(self.folder / name), image, [cv2.IMWRITE_PNG_COMPRESSION, 1]):
            raise OSError(f"cannot write frame {self.folder / name}")
        self._write({"frame": name, "t": t})

    def on_event(self, event: Event, source: str) -> None:
        if isinstance(event, NewGame):
            self._game_started = True  # a replay calibrates from the game's first frame
        self._write({"event": table_log.event_to_json(event), "source": source})

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        if signals:
            self._write({"signals": [s.to_json() for s in signals], "origin": origin})

    def _write(self, obj: dict[str, Any]) -> None:
        self._log.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._log.flush()

    def _write_meta(self) -> None:
        text = json.dumps(self._meta, indent=2, ensure_ascii=False) + "\n"
        (self.folder / META).write_text(text, "utf-8")

    def close(self) -> None:
        """Finish the log and note in `session.json` how many frames were seen and kept."""
        self._log.close()
        self._meta.update(frames_seen=self.frames_seen, frames_written=self.frames_written)
        self._write_meta()

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class RecordedFrame:
    t: float
    path: Path


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    event: Event
    source: str


@dataclass(frozen=True, slots=True)
class RecordedSignals:
    signals: tuple[dict[str, Any], ...]
    origin: str


RecordedItem = RecordedFrame | RecordedEvent | RecordedSignals


def read_meta(folder: Path | str) -> dict[str, Any]:
    """The `session.json` of a recording (RecordingError when it is missing or not JSON)."""
    path = Path(folder) / META
    try:
        meta = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except FileNotFoundError:
        raise RecordingError(f"{folder}: not a recording ({META} is missing)") from None
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{path}: not JSON: {exc.msg}") from None
    if not isinstance(meta, dict):
        raise RecordingError(f"{path}: must be a JSON object, not {type(meta).__name__}")
    if meta.get("format") != FORMAT_VERSION:
        raise RecordingError(f"{path}: unknown recording format {meta.get('format')!r}")
    return meta


def read_items(folder: Path | str) -> Iterator[RecordedItem]:
    """Everything recorded, in order; a damaged line raises RecordingError naming the line."""
    root = Path(folder)
    path = root / LOG
    try:
        handle = path.open(encoding="utf-8", errors="replace")  # bad bytes: a line not JSON
    except FileNotFoundError:
        raise RecordingError(f"{root}: not a recording ({LOG} is missing)") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield _item(root, line, f"{path}:{number}")


def _item(root: Path, line: str, where: str) -> RecordedItem:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordingError(f"{where}: not JSON: {exc.msg}") from None
    if not isinstance(obj, dict):
        raise RecordingError(f"{where}: a line must be a JSON object")
    if "frame" in obj:
        frame = root / str(obj["frame"])
        if not frame.is_file():
            raise RecordingError(f"{where}: frame file {frame} is missing")
        t = obj.get("t")
        if isinstance(t, bool) or not isinstance(t, int | float):
            raise RecordingError(f"{where}: frame time 't' must be a number, not {t!r}")
        return RecordedFrame(float(t), frame)
    if "event" in obj:
        if obj.get("source") not in SOURCES:
            raise RecordingError(f"{where}: event source must be one of {', '.join(SOURCES)}")
        try:
            event = table_log.event_from_json(obj["event"])
        except table_log.TableLogError as exc:
            raise RecordingError(f"{where}: {exc}") from None
        return RecordedEvent(event, obj["source"])
    if "signals" in obj:
        if obj.get("origin") not in ORIGINS or not isinstance(obj["signals"], list):
            raise RecordingError(f"{where}: signals need a list and an origin ({ORIGINS})")
        return RecordedSignals(tuple(obj["signals"]), obj["origin"])
    raise RecordingError(f"{where}: expected a 'frame', 'event' or 'signals' line")


@dataclass(frozen=True, slots=True)
class SignalDifference:
    """One place where the replay's signals differ from the recording's."""

    index: int  # position in the recorded sequence of referee signals
    recorded: dict[str, Any] | None
    replayed: dict[str, Any] | None

    def describe(self) -> str:
        if self.replayed is None:
            return f"#{self.index}: recorded {_short(self.recorded)}, missing in the replay"
        if self.recorded is None:
            return f"#{self.index}: replay adds {_short(self.replayed)}"
        return f"#{self.index}: recorded {_short(self.recorded)}, replay {_short(self.replayed)}"


def _short(obj: dict[str, Any] | None) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def compare_signals(
    recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]
) -> list[SignalDifference]:
    """Every signal that differs, aligned so that one extra signal is reported once."""
    left = [_short(s) for s in recorded]
    right = [_short(s) for s in replayed]
    out: list[SignalDifference] = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            continue
        for k in range(max(a1 - a0, b1 - b0)):
            rec = recorded[a0 + k] if a0 + k < a1 else None
            rep = replayed[b0 + k] if b0 + k < b1 else None
            out.append(SignalDifference(min(a0 + k, a1), rec, rep))
    return out


class Replayable(Protocol):
    """What a replay drives: the table's deterministic pipeline (`TablePipeline`)."""

    def feed_frame(self, t: float, image: np.ndarray) -> list[Signal]: ...

    def handle(self, event: Event, source: str = "input") -> list[Signal]: ...


@dataclass
class ReplayResult:
    """The recorded and the replayed referee signals, and where they differ."""

    frames: int
    events: int
    recorded: list[dict[str, Any]]
    replayed: list[dict[str, Any]]
    differences: list[SignalDifference]


def replay(folder: Path | str, pipeline: Replayable) -> ReplayResult:
    """Re-run a recording through `pipeline` and compare the referee's signals.

    Frames go through vision again (their vision events are regenerated, the recorded ones are
    only read); every other recorded event (buttons, sensors, new games, electronic rolls) is fed
    again at its place.
    """
    recorded: list[dict[str, Any]] = []
    replayed: list[dict[str, Any]] = []
    frames = events = 0
    for item in read_items(folder):
        if isinstance(item, RecordedSignals):
            if item.origin == "referee":
                recorded += item.signals
            continue
        if isinstance(item, RecordedFrame):
            image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
            if image is None:
                raise RecordingError(f"{item.path}: not a readable image")
            frames += 1
            signals = pipeline.feed_frame(item.t, image)
        elif item.source == "vision":
            continue
        else:
            events += 1
            signals = pipeline.handle(item.event, item.source)
            if item.source == "journal":
                continue
        replayed += [s.to_json() for s in signals]
    return ReplayResult(frames, events, recorded, replayed, compare_signals(recorded, replayed))


def recorded_camera_heights(meta: dict[str, Any], source: Path) -> dict[str, float]:
    """The camera heights a simulated session was calibrated with (none in older recordings);
    `source` names the recording's session.json in the error."""
    heights = meta.get("camera_height_mm", {})
    if not isinstance(heights, dict) or not all(
        isinstance(h, int | float) and not isinstance(h, bool) for h in heights.values()
    ):
        raise RecordingError(
            f"{source}: camera_height_mm must map each game to millimetres, got {heights!r}")
    return {str(game): float(h) for game, h in heights.items()}


def replay_pipeline(folder: str | Path) -> TablePipeline:
    """A pipeline like the recorded table's: same settle time and calibration, no devices."""
    meta = read_meta(folder)
    settle_s = float(meta.get("settle_ms", 300)) / 1000.0
    calibration: Any
    if meta.get("simulated", True):
        calibration = FrameCalibration(recorded_camera_heights(meta, Path(folder) / META))
    else:
        calibration = CalibrationFiles(lambda game: Path(folder) / f"calibration-{game}.json")
    skip = bool(meta.get("skip_still_frames", True))
    return TablePipeline(Referee(), GameVision(settle_s, calibration, skip))
