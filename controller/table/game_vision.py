"""Frame → Observation for whichever game is on the table: one calibration per game, the frame
reader, the still-frame gate and the stabilizer of `vision/`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from controller.config import Config
from controller.words.events import NewGame
from vision.calibrate import calibrate
from vision.calibration import Calibration
from vision.change_gate import ChangeGate
from vision.frame_reader import FrameReader
from vision.observation import Observation
from vision.parallax import DEFAULT_CAMERA_HEIGHT_MM
from vision.stabilizer import Stabilizer

CalibrationFor = Callable[[NewGame, np.ndarray], Any]


class GameVision:
    """The vision pipeline for whichever game is on the table (one calibration per game).

    `calibration_for(event, first_image)` gives the game's calibration: on the table it loads
    the file `spieltisch calibrate` wrote; on the simulated table (and in a replay of it) it
    calibrates from the first frame of the game, which shows the starting position, exactly as a
    person calibrates a real table.
    """

    def __init__(
        self, settle_s: float, calibration_for: CalibrationFor, skip_still_frames: bool = True
    ) -> None:
        self.settle_s = settle_s
        self.calibration_for = calibration_for
        self.event: NewGame | None = None
        self.reader: FrameReader | None = None
        self.stabilizer = Stabilizer(settle_s=settle_s)
        self.gate = ChangeGate() if skip_still_frames else None
        self.last: Observation | None = None  # the reading of the last frame read
        self.frames_read = 0
        self.frames_skipped = 0

    def start_game(self, event: NewGame) -> None:
        self.event = event
        self.reader = None
        self.last = None
        if self.gate is not None:
            self.gate.forget()
        self.stabilizer = Stabilizer(settle_s=self.settle_s)

    def observe(self, image: np.ndarray, t: float) -> tuple[Observation, Observation | None]:
        if self.event is None:
            raise RuntimeError("no game started: vision does not know which board to read")
        if self.reader is None:
            calibration = self.calibration_for(self.event, image)
            self.reader = FrameReader(calibration, players=self.event.players)
        gate = self.gate
        if gate is not None and self.last is not None and gate.unchanged(image):
            self.frames_skipped += 1
            observation = self.last
        else:
            self.frames_read += 1
            observation = self.last = self.reader.read(image)
            if gate is not None:
                gate.read_done(image)
        return observation, self.stabilizer.feed(observation, t)


class FrameCalibration:
    """Calibrates from a frame of the starting position, as `spieltisch calibrate` does with a
    photo of it (the simulated table, its replays), told each game's camera height as its
    builder measured it (`sim.camera.measured_camera_heights`; a game not named, as in
    recordings made before the heights were recorded: the 650 mm a builder who did not measure
    gets)."""

    def __init__(self, camera_heights_mm: Mapping[str, float] | None = None) -> None:
        self.camera_heights_mm = dict(camera_heights_mm or {})

    def __call__(self, event: NewGame, image: np.ndarray) -> Calibration:
        height = self.camera_heights_mm.get(event.game, DEFAULT_CAMERA_HEIGHT_MM)
        return calibrate(image, event.game, players=event.players, camera_height_mm=height)


class CalibrationFiles:
    """Loads each game's calibration from the file `path_for(game)` names: the one `spieltisch
    calibrate` saved (the real table), or the copy a recording keeps."""

    def __init__(self, path_for: Callable[[str], Path]) -> None:
        self.path_for = path_for

    def __call__(self, event: NewGame, image: np.ndarray) -> Calibration:
        return Calibration.load(self.path_for(event.game))


def calibration_path(config: Config, game: str) -> Path:
    """Where the table looks for a game's calibration file."""
    if config.camera.calibration:
        return Path(config.camera.calibration).expanduser()
    return config.data.path() / f"calibration-{game}.json"
