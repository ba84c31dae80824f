"""Camera frames with the table's time: the first stage of frame → Observation → Referee.

`CameraFrames` wraps `hardware.camera` and reports a lost camera instead of raising, so the
table keeps playing with buttons (`camera_lost.CameraLostMode`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Frame:
    """One camera frame and the table time it was taken at (seconds)."""

    t: float
    image: np.ndarray


class CameraFrames:
    """Frames from `hardware.camera` stamped with `clock`; `read()` returns None when lost.

    Opening is retried on every read after a loss, at most once a second, so a camera plugged
    back in is found again without a restart.
    """

    def __init__(self, opener: Callable[[], Any], clock: Callable[[], float]) -> None:
        self._opener = opener
        self._clock = clock
        self._camera: Any | None = None
        self._next_try = 0.0
        self.lost = False

    def read(self) -> Frame | None:
        if self._camera is None:
            now = self._clock()
            if now < self._next_try:
                return None
            self._next_try = now + 1.0
            try:
                self._camera = self._opener()
            except Exception as exc:  # any driver error means: no camera now
                self._mark_lost(f"cannot open the camera: {exc}")
                return None
        try:
            image = self._camera.read()
        except Exception as exc:  # a pulled USB cable surfaces as many exception types
            image = None
            log.debug("camera read failed: %s", exc)
        if image is None or getattr(image, "size", 0) == 0:
            self._mark_lost("the camera delivered no frame")
            self.close()
            return None
        if self.lost:
            log.warning("camera is back")
        self.lost = False
        return Frame(self._clock(), image)

    def _mark_lost(self, why: str) -> None:
        if not self.lost:
            log.warning("%s", why)
        self.lost = True

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.close()
            except Exception as exc:  # closing a vanished device may fail; nothing to save
                log.debug("closing the camera: %s", exc)
