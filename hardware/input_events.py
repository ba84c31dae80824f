"""Buttons and the dice-tray sensor as referee Events on a queue.

gpiozero calls back from its own threads; these callbacks only debounce and put a
`ButtonPressed` or `DieThrown` (with the time from `clock`) on the queue, never more.
Debouncing is done here, on edge times, so it behaves the same with every pin factory.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from gpiozero import Button

from controller.words.buttons import Button as Name
from controller.words.catalogue import text
from controller.words.events import ButtonPressed, DieThrown, Event
from hardware.devices import TableDevices
from hardware.pinmap import DICE_TRAY

log = logging.getLogger(__name__)

Clock = Callable[[], float]


class _Edges:
    """Last accepted edge of one input: edges closer than `bounce_s` are contact bounce."""

    def __init__(self, bounce_s: float) -> None:
        self.bounce_s = bounce_s
        self.last_edge = -1e9
        self.pressed = False
        self.held = False

    def accept(self, t: float) -> bool:
        ok = t - self.last_edge >= self.bounce_s
        self.last_edge = t
        return ok


class InputEvents:
    """Wires every button and the dice tray of `devices` to `events` until `close`.

    Undo and the seats' done buttons know a long press (held `long_press_s`): they report a
    short press when released, a long one while held (a long done takes the play shown when
    the table offers a choice); the other buttons report at once when pressed.
    """

    def __init__(
        self,
        devices: TableDevices,
        events: queue.Queue[Event],
        clock: Clock = time.monotonic,
    ) -> None:
        self.devices = devices
        self.events = events
        self.clock = clock
        self._lock = threading.Lock()
        pinmap = devices.pinmap
        self._quiet_s = pinmap.dice_quiet_s
        self._last_shake = -1e9
        for name, button in devices.buttons.items():
            self._wire(button, name, None, pinmap.bounce_s, long_allowed=name is Name.UNDO)
        for seat, button in devices.done_buttons.items():
            self._wire(button, Name.DONE, seat, pinmap.bounce_s, long_allowed=True)
        devices.dice_tray.when_activated = self._shake

    def _wire(
        self, button: Button, name: Name, seat: int | None, bounce_s: float, long_allowed: bool
    ) -> None:
        edges = _Edges(bounce_s)

        def pressed() -> None:
            with self._lock:
                t = self.clock()
                edges.pressed = edges.accept(t)
                edges.held = False
                if edges.pressed and not long_allowed:
                    self.events.put(ButtonPressed(name, seat, False, t))

        def held() -> None:
            with self._lock:
                if edges.pressed and long_allowed:
                    edges.held = True
                    self.events.put(ButtonPressed(name, seat, True, self.clock()))

        def released() -> None:
            with self._lock:
                t = self.clock()
                edges.accept(t)
                if edges.pressed and long_allowed and not edges.held:
                    self.events.put(ButtonPressed(name, seat, False, t))
                edges.pressed = False

        button.when_pressed = pressed
        button.when_held = held
        button.when_released = released

    def _shake(self) -> None:
        with self._lock:
            t = self.clock()
            if t - self._last_shake >= self._quiet_s:
                self.events.put(DieThrown(t))
            self._last_shake = t

    def close(self) -> None:
        """Stop producing events (the devices stay open)."""
        for button in [*self.devices.buttons.values(), *self.devices.done_buttons.values()]:
            button.when_pressed = button.when_held = button.when_released = None
        self.devices.dice_tray.when_activated = None
        log.debug("input events stopped")


def input_name(name: str, seat: int | None, lang: str) -> str:
    """A button or sensor as the table names it in `lang` ("Fertig Platz 2", "dice tray")."""
    word = text(f"button.{name}", lang)
    return word if seat is None else text("button.of_seat", lang, button=word, seat=seat + 1)


class BoardInputs:
    """Inputs wired to the display board (debounced there) as Events: `DisplayLink.on_sensor`.

    `names` maps the board's input ids to button names, or "dice_tray" for the tray sensor
    (`PinMap.board_input_names`). Undo is long when released after `long_press_s`; the tray
    honours the same quiet time as the Pi's own sensor. Runs on the link's I/O thread, so it
    only puts Events on the queue.
    """

    def __init__(
        self,
        events: queue.Queue[Event],
        names: dict[int, str],
        clock: Clock = time.monotonic,
        long_press_s: float = 1.5,
        quiet_s: float = 1.0,
    ) -> None:
        self.events = events
        self.names = dict(names)
        self.clock = clock
        self.long_press_s = long_press_s
        self.quiet_s = quiet_s
        self._pressed_at: dict[int, float] = {}
        self._last_shake = -1e9

    def __call__(self, input_id: int, active: bool) -> None:
        name = self.names.get(input_id)
        if name is None:
            log.warning("board input %d is not mapped to a button", input_id)
            return
        t = self.clock()
        if name == DICE_TRAY:
            if active:
                if t - self._last_shake >= self.quiet_s:
                    self.events.put(DieThrown(t))
                self._last_shake = t
        elif name == Name.UNDO:
            if active:
                self._pressed_at[input_id] = t
            elif input_id in self._pressed_at:
                held = t - self._pressed_at.pop(input_id)
                self.events.put(ButtonPressed(name, None, held >= self.long_press_s, t))
        elif active:
            self.events.put(ButtonPressed(name, None, False, t))
