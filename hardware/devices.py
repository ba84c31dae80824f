"""All gpiozero devices of the table, made from the pin map in one place and closed in one place.

The pin factory is gpiozero's own choice (lgpio on the Pi, `GPIOZERO_PIN_FACTORY=mock`
elsewhere) unless a factory is passed in, as tests and the simulator do with `MockFactory`.
"""

from __future__ import annotations

import logging
from typing import Any

from gpiozero import LED, RGBLED, Button, Buzzer, Device, DigitalInputDevice

from controller.words.buttons import Button as Name
from hardware.pinmap import PinMap

log = logging.getLogger(__name__)


class TableDevices:
    """Seat RGB LEDs, status LED, buzzer, buttons and the dice-tray sensor."""

    def __init__(self, pinmap: PinMap, pin_factory: Any = None) -> None:
        self.pinmap = pinmap
        self._all: list[Device] = []
        try:
            anode = pinmap.common_anode
            self.seat_leds: list[RGBLED] = [
                self._add(
                    RGBLED(s.red, s.green, s.blue, active_high=not anode, pin_factory=pin_factory)
                )
                for s in pinmap.seats
            ]
            self.status_led: LED = self._add(LED(pinmap.status_led, pin_factory=pin_factory))
            self.buzzer: Buzzer = self._add(Buzzer(pinmap.buzzer, pin_factory=pin_factory))
            hold = pinmap.long_press_s
            self.buttons: dict[Name, Button] = {
                name: self._add(Button(pin, hold_time=hold, pin_factory=pin_factory))
                for name, pin in pinmap.button_pins().items()
            }
            self.done_buttons: dict[int, Button] = {
                seat: self._add(Button(s.done, hold_time=hold, pin_factory=pin_factory))
                for seat, s in enumerate(pinmap.seats)
                if s.done is not None
            }
            self.dice_tray: DigitalInputDevice = self._add(
                DigitalInputDevice(pinmap.dice_tray, pull_up=True, pin_factory=pin_factory)
            )
        except Exception:
            self.close()
            raise
        log.info("table devices ready (%d seats) from %s", len(self.seat_leds), pinmap.source)

    def _add(self, device: Any) -> Any:
        self._all.append(device)
        return device

    def close(self) -> None:
        """Switch everything off and release the pins (safe to call twice)."""
        for device in reversed(self._all):
            device.close()
        self._all.clear()

    def __enter__(self) -> TableDevices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
