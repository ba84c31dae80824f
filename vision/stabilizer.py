"""The stabilizer: passes an Observation on only once the reading has held for a settle time.

A die still rolling, a checker still being set down or a hand passing over the board give
readings that change from frame to frame; the referee must see only what then stays. Time comes
in with each frame (`feed(observation, t)`), so the stabilizer needs no clock and replays exactly.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Hashable

from vision.observation import Observation

log = logging.getLogger(__name__)

DEFAULT_SETTLE_S = 0.3  # 9 frames at 30 frames per second


def reading_key(observation: Observation) -> Hashable:
    """What must stay the same: the board and each die's value and cocked flag (not boxes or
    confidences, which jitter from frame to frame)."""
    dice = tuple(sorted((d.value if d.value is not None else 0, bool(d.cocked))
                        for d in observation.dice))
    return (observation.board, dice)


class Stabilizer:
    """Emits an Observation after its reading held for `settle_s` seconds, once per reading.

    Never emits while the view is blocked or the board cannot be read. A reading that flickers
    away and back is not emitted twice; but after a blocked view or an unreadable spell the same
    reading is emitted again once it has settled, because the referee may have been told that
    the view was blocked in between. `blocked` tells whether the last frame was blocked.
    """

    def __init__(self, settle_s: float = DEFAULT_SETTLE_S) -> None:
        if not math.isfinite(settle_s) or settle_s < 0:
            raise ValueError(f"settle time must be a non-negative number of seconds, "
                             f"got {settle_s!r}")
        self.settle_s = settle_s
        self._key: Hashable | None = None
        self._since = 0.0
        self._emitted: Hashable | None = None
        self._last_t: float | None = None
        self.blocked = False

    def feed(self, observation: Observation, t: float) -> Observation | None:
        """Take one frame's observation at time `t` (seconds, never decreasing)."""
        if not math.isfinite(t):
            raise ValueError(f"time must be a finite number of seconds, got {t!r}")
        if self._last_t is not None and t < self._last_t:
            raise ValueError(f"time went backwards: {t} after {self._last_t}")
        self._last_t = t
        self.blocked = observation.blocked
        if observation.blocked or observation.board is None:
            self._key = self._emitted = None
            return None
        key = reading_key(observation)
        if key != self._key:
            self._key, self._since = key, t
        if key == self._emitted or t - self._since < self.settle_s:
            return None
        self._emitted = key
        log.debug("stable reading at t=%.3f (held since %.3f)", t, self._since)
        return observation
