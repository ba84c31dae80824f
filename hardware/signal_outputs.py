"""The referee's Signals as LED patterns, buzzer sounds and display text.

Patterns (docs/wiring.md): your turn = seat LED steady in the seat colour; roll again = slow
blink; illegal move or board to correct = fast red blink; winner = pulse. The buzzer gives a short
beep when a play is accepted and three long beeps for an illegal move. The display shows the
pages of everything one referee step said, in turn (`hardware.display_pager`); the status LED is
on while the table runs and blinks while a notice is among those pages (until the next step).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from controller.words import signals as s
from hardware import display_text
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink
from hardware.display_pager import PAGE_S, DisplayPager
from hardware.seat_colours import RGB, SeatColours

log = logging.getLogger(__name__)

OFF: RGB = (0.0, 0.0, 0.0)
RED: RGB = (1.0, 0.0, 0.0)
SLOW_BLINK_S = 0.5
FAST_BLINK_S = 0.1
PULSE_S = 1.0
ACCEPT_BEEP_S = 0.08
ILLEGAL_BEEP_S = (0.3, 0.15, 3)  # on, off, count
NOTICE_BLINK_S = 0.2


@dataclass(frozen=True, slots=True)
class Light:
    """What a lit seat LED shows: its pattern ("on", "slow", "fast", "pulse") and the
    colour by name, so that the terminal view can say it in words."""

    pattern: str
    colour: str


class SignalOutputs:
    """Applies Signals to the table's devices; each call returns at once (gpiozero threads)."""

    def __init__(
        self,
        devices: TableDevices,
        seats: SeatColours,
        display: DisplayLink | None = None,
        lang: str = "de",
        page_s: float = PAGE_S,
    ) -> None:
        self.devices = devices
        self.seats = seats
        self.lang = lang
        self.pager = DisplayPager(display, page_s) if display is not None else None
        self.lights: dict[int, Light] = {}  # what each lit seat LED shows
        devices.status_led.on()

    def apply_all(self, signals: Iterable[s.Signal]) -> None:
        """Show what one referee step said: LEDs and buzzer signal by signal (they are the
        quickest), then the display turns through the pages of all of them, so an illegal
        move's reason is not hidden at once by the "correct the board" that follows it."""
        signals = list(signals)
        if not signals:
            return
        for signal in signals:
            self._lights_and_sound(signal)
        if any(isinstance(signal, s.Notice) for signal in signals):
            self.devices.status_led.blink(on_time=NOTICE_BLINK_S, off_time=NOTICE_BLINK_S)
        else:
            self.devices.status_led.on()
        if self.pager is None:
            return
        pages = display_text.step_pages(signals, self.lang, self.seats)
        if pages:
            self.pager.show(pages)

    def apply(self, signal: s.Signal) -> None:
        """Show one Signal (see `apply_all`)."""
        self.apply_all([signal])

    def _lights_and_sound(self, signal: s.Signal) -> None:
        if isinstance(signal, s.Turn):
            if signal.expect == s.EXPECT_ROLL_AGAIN:
                self._only(signal.seat, "slow")
            elif signal.expect == s.EXPECT_CORRECT:
                self._only(signal.seat, "fast")
            else:
                self._only(signal.seat, "on")
        elif isinstance(signal, s.PlayAccepted):
            self.devices.buzzer.beep(on_time=ACCEPT_BEEP_S, off_time=ACCEPT_BEEP_S, n=1)
        elif isinstance(signal, s.Illegal):
            self._only(signal.seat, "fast")
            on, off, count = ILLEGAL_BEEP_S
            self.devices.buzzer.beep(on_time=on, off_time=off, n=count)
        elif isinstance(signal, s.BoardDiffers):
            self._only(signal.seat, "fast")
        elif isinstance(signal, s.Reroll | s.ThreeTries | s.ExtraRoll | s.BoardChoice):
            self._only(signal.seat, "slow")
        elif isinstance(signal, s.GameOver):
            self._only(signal.order[0] if signal.order else None, "pulse")

    def _only(self, seat: int | None, pattern: str) -> None:
        """Light `seat` with `pattern` and switch every other seat LED off."""
        self.lights = {}
        if seat is not None and 0 <= seat < len(self.devices.seat_leds):
            colour = "red" if pattern == "fast" else self.seats.lamp(seat)
            self.lights[seat] = Light(pattern, colour)
        for index, led in enumerate(self.devices.seat_leds):
            if index != seat:
                led.off()
                continue
            colour = self.seats.led(index)
            if pattern == "on":
                led.color = colour
            elif pattern == "slow":
                led.blink(on_time=SLOW_BLINK_S, off_time=SLOW_BLINK_S, on_color=colour)
            elif pattern == "fast":
                led.blink(on_time=FAST_BLINK_S, off_time=FAST_BLINK_S, on_color=RED)
            else:
                led.pulse(fade_in_time=PULSE_S, fade_out_time=PULSE_S, on_color=colour)
        if seat is not None and not 0 <= seat < len(self.devices.seat_leds):
            log.warning("signal for seat %d, table has %d seats", seat, len(self.devices.seat_leds))

    def close(self) -> None:
        """Everything dark and silent, pages no longer turned (the devices and the display
        link are closed by their owner)."""
        if self.pager is not None:
            self.pager.stop()
        self.lights = {}
        for led in self.devices.seat_leds:
            led.off()
        self.devices.buzzer.off()
        self.devices.status_led.off()
