"""Buttons and the dice-tray sensor become Events, debounced, on mock pins."""

from __future__ import annotations

import dataclasses
import queue
import time
from pathlib import Path

import pytest

from controller.referee import Referee
from controller.rules import backgammon as bg
from controller.words.buttons import TABLE_BUTTONS, Button
from controller.words.events import BoardObserved, ButtonPressed, DiceObserved, DieThrown, NewGame
from controller.words.signals import (
    EXPECT_ANSWER_DOUBLE,
    EXPECT_ROLL,
    CubeOffered,
    CubeTaken,
    GameOver,
    Turn,
)
from hardware.input_events import InputEvents
from hardware.pinmap import PinMap, PinMapError, load_pinmap
from tests.hardware.mock_table import gpio, mock_table

ROOT = Path(__file__).resolve().parents[2]


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
        done = gpio(factory, devices.pinmap.seats[2].done)
        done.drive_low()
        done.drive_high()  # done, like undo, tells a short press on release
        gpio(factory, devices.pinmap.new_game).drive_low()
        got = [(e.name, e.seat, e.long) for e in _drain(events)]
        assert got == [("done", 2, False), ("new_game", None, False)]


def test_done_held_is_a_long_press_of_that_seat() -> None:
    pinmap = dataclasses.replace(load_pinmap(), long_press_s=0.2)
    with mock_table(pinmap) as (devices, factory):
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events)
        done = gpio(factory, pinmap.seats[1].done)
        done.drive_low()
        held = events.get(timeout=2)
        done.drive_high()
        assert (held.name, held.seat, held.long) == ("done", 1, True)
        assert _drain(events) == []  # no short press after a long one


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


def _cube_pinmap(tmp_path: Path) -> PinMap:
    """A two-seat backgammon table with the cube's buttons on the GPIOs seats 3 and 4 free."""
    text = (ROOT / "hardware" / "pinmap_default.toml").read_text("utf-8")
    seats, rest = text.split("[leds]")
    preamble, first, second, *_ = seats.split("[[seat]]")
    rest = rest.split("[board_inputs]")[0].replace(
        'new_game = "GPIO9"', 'new_game = "GPIO9"\ndouble = "GPIO19"\ntake = "GPIO26"\n'
        'drop = "GPIO21"')
    path = tmp_path / "cube.toml"
    path.write_text(preamble + "[[seat]]" + first + "[[seat]]" + second + "[leds]" + rest)
    return load_pinmap(path)


def test_the_cube_buttons_on_mock_pins_work_the_doubling_cube(tmp_path: Path) -> None:
    """double, take and drop wired to GPIOs reach the referee, which works the cube with
    them (rule text 004): Black doubles before rolling, White takes, later White redoubles and
    Black drops."""
    referee = Referee()
    start = bg.Position.initial()
    after = start.apply(bg.Play.parse("8/5 6/5")).to_board()
    referee.handle(NewGame("backgammon", "standard", 2))
    referee.handle(DiceObserved((3, 1)))
    referee.handle(BoardObserved(after))
    assert Turn(1, EXPECT_ROLL) in referee.handle(ButtonPressed(Button.DONE, 0))
    with mock_table(_cube_pinmap(tmp_path)) as (devices, factory):
        assert set(devices.buttons) == {*TABLE_BUTTONS}
        events: queue.Queue = queue.Queue()
        InputEvents(devices, events)

        def press(button: Button) -> list:
            pin = gpio(factory, getattr(devices.pinmap, button.value))
            pin.drive_low()
            time.sleep(0.06)
            pin.drive_high()
            time.sleep(0.06)
            (event,) = _drain(events)
            assert event == ButtonPressed(button, None, False, event.t)
            return referee.handle(event)

        assert press(Button.DOUBLE) == [CubeOffered(1, 2), Turn(0, EXPECT_ANSWER_DOUBLE)]
        assert press(Button.TAKE) == [CubeTaken(0, 2), Turn(1, EXPECT_ROLL)]
        referee.handle(DiceObserved((6, 5)))
        black = bg.Position.from_board(after, 1).apply(bg.Play.parse("24/13")).to_board()
        referee.handle(BoardObserved(black))
        assert Turn(0, EXPECT_ROLL) in referee.handle(ButtonPressed(Button.DONE, 1))
        assert press(Button.DOUBLE) == [CubeOffered(0, 4), Turn(1, EXPECT_ANSWER_DOUBLE)]
        over = press(Button.DROP)
        assert over == [GameOver(order=(0, 1), result="drop", points=2, match_score=(2, 0))]


def test_a_button_wired_to_a_gpio_and_the_display_board_is_named(tmp_path: Path) -> None:
    text = (ROOT / "hardware" / "pinmap_default.toml").read_text("utf-8")
    path = tmp_path / "twice.toml"
    path.write_text(text.replace('new_game = "GPIO9"', 'new_game = "GPIO9"\ndouble = "GPIO2"'))
    with pytest.raises(PinMapError, match="double button is wired twice"):
        load_pinmap(path)
    path.write_text(text.replace("take = 1", "take = 0"))
    with pytest.raises(PinMapError, match="display board input 0 is used twice"):
        load_pinmap(path)
    path.write_text(text.replace("take = 1", "take = 7"))
    with pytest.raises(PinMapError, match="not an input of the display board"):
        load_pinmap(path)
