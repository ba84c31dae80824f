"""Skip reading frames in which nothing moved.

Most of an evening the board lies still between moves, yet the camera delivers 15–30 frames a
second. Reading a frame (fields, checker stacks, dice) costs tens of milliseconds on a Pi;
comparing a small thumbnail with the one of the last frame that was read costs well under one.
A die cannot change its value, nor a checker its point, without something moving through the
picture, so a frame whose thumbnail matches the last read one gets that frame's reading again.
The comparison is always against the last frame actually read, never the previous frame, so a
slow drift (the light of a setting sun) adds up until it forces a new reading.
"""

from __future__ import annotations

import cv2
import numpy as np

THUMB_SCALE = 4  # thumbnail pixels are 4×4 camera pixels: sensor noise averages out
PIXEL_STEP = 12  # a thumbnail pixel differs when a channel moved by more than this (0..255)
MAX_CHANGED = 2  # this many differing thumbnail pixels are still noise (a die covers ~25)


def thumbnail(image: np.ndarray) -> np.ndarray:
    """The frame shrunk by THUMB_SCALE with area averaging, as int16 for differences."""
    h, w = image.shape[:2]
    size = (max(1, w // THUMB_SCALE), max(1, h // THUMB_SCALE))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.int16)


class ChangeGate:
    """Says whether a frame must be read or the last reading still holds."""

    def __init__(self, pixel_step: int = PIXEL_STEP, max_changed: int = MAX_CHANGED) -> None:
        self.pixel_step = pixel_step
        self.max_changed = max_changed
        self._last: np.ndarray | None = None

    def unchanged(self, image: np.ndarray) -> bool:
        """True when `image` matches the last frame passed to `read_done` closely enough."""
        if self._last is None:
            return False
        thumb = thumbnail(image)
        if thumb.shape != self._last.shape:
            return False
        moved = np.abs(thumb - self._last)
        if moved.ndim == 3:
            moved = moved.max(axis=2)
        return int(np.count_nonzero(moved > self.pixel_step)) <= self.max_changed

    def read_done(self, image: np.ndarray) -> None:
        """`image` was read: later frames are compared with it."""
        self._last = thumbnail(image)

    def forget(self) -> None:
        """The next frame is read whatever it shows (a new game, a new calibration)."""
        self._last = None
