"""The table's clock: the time carried inside every event the table program makes.

Monotonic, so that the wall clock jumping (a Pi without a real-time clock sets it by NTP some
time after boot) neither fires a settle time nor makes an input look stuck; it goes on from
where the journal left off, so the times of a resumed game keep rising.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class TableClock:
    """Seconds since an arbitrary origin, never going backwards; `start` is the first reading."""

    def __init__(self, start: float = 0.0, monotonic: Callable[[], float] = time.monotonic):
        self._monotonic = monotonic
        self._origin = monotonic() - start

    def __call__(self) -> float:
        return self._monotonic() - self._origin
