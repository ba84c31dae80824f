"""Debouncing of buttons and sensors from raw samples and a millisecond clock (no `machine`)."""

TICKS_PERIOD = 1 << 30  # time.ticks_ms() wraps here on the RP2040 port
_HALF = TICKS_PERIOD // 2


def ticks_diff(a, b):
    """a - b in milliseconds for clocks that wrap at TICKS_PERIOD (like time.ticks_diff)."""
    return ((a - b + _HALF) % TICKS_PERIOD) - _HALF


class Debouncer:
    """A raw input becomes a new stable state only after staying the same for `stable_ms`."""

    def __init__(self, stable_ms=20, state=0):
        self.stable_ms = stable_ms
        self.state = state
        self._candidate = state
        self._since = None

    def update(self, raw, now_ms):
        """The new stable state when it just changed, else None."""
        raw = 1 if raw else 0
        if raw != self._candidate or self._since is None:
            self._candidate = raw
            self._since = now_ms
        if self._candidate != self.state and ticks_diff(now_ms, self._since) >= self.stable_ms:
            self.state = self._candidate
            return self.state
        return None
