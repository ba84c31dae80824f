"""Frame → Observation for whichever game is on the table: one calibration per game, the frame
reader, the still-frame gate and the stabilizer of `vision/`."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from controller.config import Config
from controller.words import BackgammonBoard, MaednBoard
from controller.words.events import NewGame
from vision.board_errors import CalibrationError
from vision.calibrate import calibrate, refresh, revisit
from vision.calibration import Calibration
from vision.change_gate import ChangeGate
from vision.frame_reader import FrameReader
from vision.observation import MOVED, Observation
from vision.parallax import DEFAULT_CAMERA_HEIGHT_MM
from vision.stabilizer import Stabilizer

CalibrationFor = Callable[[NewGame, np.ndarray], Any]
log = logging.getLogger(__name__)

#: The light of a frame that shows an accepted board may differ this much (log gain of a colour
#: channel at the board's centre, about 15 %) from the light the pieces were last learned in
#: before they are learned again from it.
LIGHT_DRIFT = 0.14
#: The board must be lost (the camera or the board moved further than a knock) this long
#: before the table looks for it again (a hand passing over the board is gone sooner); a search
#: that failed is tried again after `RETRY_S`.
LOST_FOR_S = 2.0
RETRY_S = 10.0


class GameVision:
    """The vision pipeline for whichever game is on the table (one calibration per game).

    `calibration_for(event, first_image)` gives the game's calibration: on the table it loads
    the file `spieltisch calibrate` wrote; on the simulated table (and in a replay of it) it
    calibrates from the first frame of the game, which shows the starting position, exactly as a
    person calibrates a real table.

    A frame showing a board the referee holds as the position (`accepted`) is a labelled frame:
    at a game's first such board (its start position, or the position a resumed game stands
    at), and later whenever the light has drifted since, the pieces are learned again from it
    (`vision.calibrate.refresh`); a frame that does not read back keeps the calibration as it
    was. `relearn=False` keeps the first calibration all game.

    A board lost for `LOST_FOR_S` (the camera was bumped or turned, the board pushed) is found
    again in a frame that should show the position the referee holds (`moved`,
    `vision.calibrate.revisit`): the empty board learned stays, the view is new. A frame that
    does not read back as that position (pieces moved meanwhile) keeps the table waiting, and
    the search is tried again every `RETRY_S`.
    """

    def __init__(
        self, settle_s: float, calibration_for: CalibrationFor, skip_still_frames: bool = True,
        relearn: bool = True,
    ) -> None:
        self.settle_s = settle_s
        self.relearn = relearn
        self.calibration_for = calibration_for
        self.event: NewGame | None = None
        self.reader: FrameReader | None = None
        self.stabilizer = Stabilizer(settle_s=settle_s)
        self.gate = ChangeGate() if skip_still_frames else None
        self.last: Observation | None = None  # the reading of the last frame read
        self.frames_read = 0
        self.frames_skipped = 0
        self.refreshed = 0  # calibrations relearned from accepted boards
        self._learned_gain: np.ndarray | None = None  # the light the pieces were learned in
        self.found_again = 0  # calibrations renewed after the board was lost
        self._lost_since: float | None = None
        self._searched_at = -math.inf

    def start_game(self, event: NewGame) -> None:
        self.event = event
        self.reader = None
        self.last = None
        self._learned_gain = None
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
        if observation.problem != MOVED:
            self._lost_since = None
        elif self._lost_since is None:
            self._lost_since = t
        return observation, self.stabilizer.feed(observation, t)

    def moved(self, image: np.ndarray, board: BackgammonBoard | MaednBoard, t: float
              ) -> bool | None:
        """The board has not been where it was calibrated since `observe` first said so; once
        that lasted `LOST_FOR_S`, find it again in `image`, which should show `board` (the
        position the referee holds). True when the calibration was renewed, False when the
        board was looked for in vain, None when it was not looked for now."""
        if self.reader is None or self.event is None or self._lost_since is None:
            return None
        if t - self._lost_since < LOST_FOR_S or t - self._searched_at < RETRY_S:
            return None
        self._searched_at = t
        try:
            calibration = revisit(self.reader.calib, image, board)
        except (CalibrationError, ValueError) as exc:
            log.warning("the board moved and was not found again: %s", exc)
            return False
        self._renew(calibration)
        self._lost_since = None
        self.found_again += 1
        log.info("the board moved: found again, pieces learned in the new view")
        return True

    def accepted(self, image: np.ndarray, board: BackgammonBoard | MaednBoard) -> bool:
        """`image` shows `board`, which the referee holds as the position: learn the pieces
        again from it at the game's first such board and when the light drifted since. True
        when the calibration was renewed."""
        if not self.relearn or self.reader is None or self.event is None:
            return False
        gain = self.reader.warp(image).light.coeffs[0]
        if self._learned_gain is not None and \
                float(np.abs(gain - self._learned_gain).max()) < LIGHT_DRIFT:
            return False
        self._learned_gain = gain  # a frame that does not read back is not tried again
        try:
            calibration = refresh(self.reader.calib, image, board)
        except (CalibrationError, ValueError) as exc:
            log.info("pieces not learned again from the accepted board: %s", exc)
            return False
        self._renew(calibration)
        self.refreshed += 1
        log.info("pieces learned again from an accepted board (a new game, or the light "
                 "changed)")
        return True

    def _renew(self, calibration: Calibration) -> None:
        assert self.reader is not None and self.event is not None
        self.reader = FrameReader(calibration, players=self.event.players,
                                  dice_reader=self.reader.dice_reader)
        if self.gate is not None:
            self.gate.forget()


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
