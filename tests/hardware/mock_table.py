"""Table devices on gpiozero's MockFactory (real gpiozero, mock pins) for the hardware tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.devices import TableDevices
from hardware.pinmap import PinMap, load_pinmap


@contextlib.contextmanager
def mock_table(pinmap: PinMap | None = None) -> Iterator[tuple[TableDevices, MockFactory]]:
    """Devices from `pinmap` (default: the shipped map) on a fresh MockFactory with PWM pins."""
    factory = MockFactory(pin_class=MockPWMPin)
    devices = TableDevices(pinmap or load_pinmap(), pin_factory=factory)
    try:
        yield devices, factory
    finally:
        devices.close()
        factory.close()


def gpio(factory: MockFactory, name: str) -> MockPWMPin:
    """The mock pin behind a "GPIOn" name of the pin map."""
    return factory.pin(name)
