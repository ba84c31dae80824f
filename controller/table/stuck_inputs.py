"""Finds a button or sensor that is stuck, reports it once and ignores it after."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from controller.table.notices import SENSOR_STUCK, notice
from controller.words.events import ButtonPressed, DieThrown, Event
from controller.words.signals import Notice
from hardware.input_events import input_name
from hardware.pinmap import DICE_TRAY

log = logging.getLogger(__name__)

InputKey = tuple[str, str, int | None]  # event type, button name, seat
TRAY: InputKey = ("DieThrown", "", None)


def input_key(event: Event) -> InputKey:
    """Which physical input an event came from: its type, button name and seat."""
    return (type(event).__name__, getattr(event, "name", ""), getattr(event, "seat", None))


@dataclass(frozen=True, slots=True)
class InputName:
    """A button or sensor as the table names it, in whichever language it is said."""

    key: InputKey

    def text(self, lang: str) -> str:
        _, name, seat = self.key
        return input_name(name or DICE_TRAY, seat, lang)


@dataclass
class StuckInputFilter:
    """Finds a stuck input, reports it once and ignores it after.

    Stuck is an input that fires impossibly often (a vibration sensor with a broken spring) or
    stays active far longer than any press or throw (a button shorted by a spilt drink). Times
    are the table clock's (monotonic: a jump of the wall clock makes nothing look stuck).
    """

    limit_per_s: int = 10
    stuck_after_s: float = 10.0
    stuck: set[InputKey] = field(default_factory=set)
    _recent: dict[InputKey, list[float]] = field(default_factory=dict)
    _active_since: dict[InputKey, float] = field(default_factory=dict)

    def admit(self, event: Event) -> tuple[bool, Notice | None]:
        """(pass it on?, a Notice the first time the input is found stuck)."""
        if not isinstance(event, ButtonPressed | DieThrown):
            return True, None
        key = input_key(event)
        if key in self.stuck:
            return False, None
        times = [t for t in self._recent.get(key, []) if event.t - t < 1.0]
        times.append(event.t)
        self._recent[key] = times
        if len(times) > self.limit_per_s:
            log.warning("input %s fires %d times a second: stuck, ignored", key, len(times))
            return False, self._stuck(key)
        return True, None

    def watch(self, key: InputKey, active: bool, t: float) -> Notice | None:
        """Called with an input's level now and then: a Notice when it has been held too long."""
        if key in self.stuck or not active:
            self._active_since.pop(key, None)
            return None
        since = self._active_since.setdefault(key, t)
        if t - since < self.stuck_after_s:
            return None
        log.warning("input %s active for %.0f s: stuck, ignored", key, t - since)
        return self._stuck(key)

    def _stuck(self, key: InputKey) -> Notice:
        self.stuck.add(key)
        return notice(SENSOR_STUCK, input=InputName(key))
