"""Buttons and the dice-tray sensor become Events, debounced, on mock pins."""

from __future__ import annotations

import dataclasses
import queue
import time

from controller.words.events import ButtonPressed, DieThrown
from hardware.input_events import InputEvents
from hardware.pinmap import load_pinmap
from tests.hardware.mock_table import gpio, mock_table


class StepClock:
    """A clock the test moves by hand, so debounce windows do not depend on machine speed."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _drain(events: queue.Queue) -> list:
    out = []
    while True:
        try:
            out.append(events.get_nowait())
        except queue.Empty:
            return out


def test_bouncing_roll_button_gives_one_event_with_the_clock_time() -> None:
    clock = StepClock()
    with mock_table() as (devices, factory):
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events, clock)
        pin = gpio(factory, devices.pinmap.roll)
        for _ in range(3):  # contact bounce: 6 edges within 6 ms
            pin.drive_low()
            clock.now += 0.001
            pin.drive_high()
            clock.now += 0.001
        pin.drive_low()
        clock.now += 0.3
        pin.drive_high()
        clock.now += 0.5
        second_press = clock.now
        pin.drive_low()
        assert _drain(events) == [
            ButtonPressed("roll", None, False, 100.0),
            ButtonPressed("roll", None, False, second_press),
        ]


def test_done_buttons_carry_their_seat() -> None:
    with mock_table() as (devices, factory):
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events)
        gpio(factory, devices.pinmap.seats[2].done).drive_low()
        gpio(factory, devices.pinmap.new_game).drive_low()
        got = [(e.name, e.seat) for e in _drain(events)]
        assert got == [("done", 2), ("new_game", None)]


def test_undo_short_press_on_release_and_long_press_while_held() -> None:
    pinmap = dataclasses.replace(load_pinmap(), long_press_s=0.2)
    with mock_table(pinmap) as (devices, factory):
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events)
        undo = gpio(factory, pinmap.undo)
        undo.drive_low()
        time.sleep(0.05)
        undo.drive_high()
        assert [(e.name, e.long) for e in _drain(events)] == [("undo", False)]
        time.sleep(0.1)  # longer than the bounce window
        undo.drive_low()
        long_press = events.get(timeout=2)
        undo.drive_high()
        assert (long_press.name, long_press.long) == ("undo", True)
        assert _drain(events) == []  # no short press after a long one


def test_dice_tray_vibration_is_one_throw_until_quiet() -> None:
    clock = StepClock()
    with mock_table() as (devices, factory):
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events, clock)
        tray = gpio(factory, devices.pinmap.dice_tray)
        for _ in range(10):  # rattling for 0.9 s, triggers 0.1 s apart
            tray.drive_low()
            tray.drive_high()
            clock.now += 0.1
        clock.now += devices.pinmap.dice_quiet_s
        tray.drive_low()
        assert _drain(events) == [DieThrown(100.0), DieThrown(clock.now)]


def test_closed_input_events_stop_producing() -> None:
    with mock_table() as (devices, factory):
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events).close()
        gpio(factory, devices.pinmap.roll).drive_low()
        gpio(factory, devices.pinmap.dice_tray).drive_low()
        assert _drain(events) == []
