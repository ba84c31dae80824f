"""Signals to LED and buzzer pins, checked on gpiozero's mock pins with their timing."""

from __future__ import annotations

import time

from controller.referee.turns import NOT_ALLOWED, UNDONE
from controller.table.notices import CAMERA_LOST
from controller.words import signals as s
from hardware.seat_colours import SeatColours
from hardware.signal_outputs import SignalOutputs
from tests.hardware.mock_table import gpio, mock_table

MAEDN = SeatColours.for_game("maedn")


def _rgb(factory, pinmap, seat: int) -> tuple[float, float, float]:
    pins = pinmap.seats[seat]
    return tuple(gpio(factory, p).state for p in (pins.red, pins.green, pins.blue))


def test_turn_lights_only_that_seat_steady_in_its_colour() -> None:
    with mock_table() as (devices, factory):
        outputs = SignalOutputs(devices, MAEDN)
        outputs.apply(s.Turn(seat=0, expect=s.EXPECT_ROLL))
        outputs.apply(s.Turn(seat=1, expect=s.EXPECT_MOVE))
        assert _rgb(factory, devices.pinmap, 1) == (0.0, 1.0, 0.0)  # green
        assert _rgb(factory, devices.pinmap, 0) == (0.0, 0.0, 0.0)
        assert gpio(factory, devices.pinmap.status_led).state == 1


def test_black_seat_lights_blue_and_backgammon_white_lights_all_three() -> None:
    with mock_table() as (devices, factory):
        SignalOutputs(devices, MAEDN).apply(s.Turn(seat=3, expect=s.EXPECT_ROLL))
        assert _rgb(factory, devices.pinmap, 3) == (0.0, 0.0, 1.0)
        SignalOutputs(devices, SeatColours.for_game("backgammon")).apply(s.Turn(0, s.EXPECT_ROLL))
        assert _rgb(factory, devices.pinmap, 0) == (1.0, 1.0, 1.0)


def test_illegal_move_fast_red_blink_and_three_long_beeps() -> None:
    with mock_table() as (devices, factory):
        outputs = SignalOutputs(devices, MAEDN)
        seat = devices.pinmap.seats[2]
        red, green = gpio(factory, seat.red), gpio(factory, seat.green)
        buzzer = gpio(factory, devices.pinmap.buzzer)
        for pin in (red, green, buzzer):
            pin.clear_states()
        outputs.apply(s.Illegal(2, NOT_ALLOWED))
        time.sleep(1.4)
        assert len(red.states) >= 6
        red.assert_states_and_times(
            [(0.0, 0.0), (0.0, 1.0), (0.1, 0.0), (0.1, 1.0), (0.1, 0.0), (0.1, 1.0)]
        )
        assert [st.state for st in green.states] == [0.0]
        buzzer.assert_states_and_times(
            [(0.0, 0), (0.0, 1), (0.3, 0), (0.15, 1), (0.3, 0), (0.15, 1), (0.3, 0)]
        )
        assert len(buzzer.states) == 7


def test_play_accepted_is_one_short_beep() -> None:
    with mock_table() as (devices, factory):
        buzzer = gpio(factory, devices.pinmap.buzzer)
        buzzer.clear_states()
        SignalOutputs(devices, MAEDN).apply(s.PlayAccepted(0, "13/7 8/7"))
        time.sleep(0.3)
        buzzer.assert_states_and_times([(0.0, 0), (0.0, 1), (0.08, 0)])
        assert len(buzzer.states) == 3


def test_roll_again_blinks_slowly_in_seat_colour() -> None:
    with mock_table() as (devices, factory):
        green = gpio(factory, devices.pinmap.seats[1].green)
        green.clear_states()
        SignalOutputs(devices, MAEDN).apply(s.ExtraRoll(seat=1))
        time.sleep(1.2)
        assert len(green.states) >= 4
        green.assert_states_and_times([(0.0, 0.0), (0.0, 1.0), (0.5, 0.0), (0.5, 1.0)])


def test_winner_pulses_through_intermediate_brightness() -> None:
    with mock_table() as (devices, factory):
        red = gpio(factory, devices.pinmap.seats[2].red)
        SignalOutputs(devices, MAEDN).apply(s.GameOver(order=(2, 0, 1, 3)))
        time.sleep(0.6)
        levels = {round(st.state, 2) for st in red.states}
        assert any(0.1 < level < 0.9 for level in levels)
        assert _rgb(factory, devices.pinmap, 0) == (0.0, 0.0, 0.0)


def test_notice_blinks_status_led_until_the_next_turn() -> None:
    with mock_table() as (devices, factory):
        status = gpio(factory, devices.pinmap.status_led)
        outputs = SignalOutputs(devices, MAEDN)
        status.clear_states()
        outputs.apply(s.Notice(CAMERA_LOST))
        time.sleep(0.5)
        assert len(status.states) >= 3  # (the check below compares only as many as there are)
        status.assert_states_and_times([(0.0, 1), (0.2, 0), (0.2, 1)])
        outputs.apply(s.Turn(0, s.EXPECT_ROLL))
        time.sleep(0.3)
        assert status.state == 1


def test_a_notice_before_the_turn_of_the_same_step_still_blinks() -> None:
    """"Last turn taken back", then "make your move": the display turns through both pages,
    and the status LED blinks while it does (the turn used to switch it steady at once)."""
    with mock_table() as (devices, factory):
        status = gpio(factory, devices.pinmap.status_led)
        outputs = SignalOutputs(devices, MAEDN)
        status.clear_states()
        outputs.apply_all([s.Notice(UNDONE),
                           s.Turn(0, s.EXPECT_MOVE)])
        time.sleep(0.5)
        assert len(status.states) >= 3  # (the check below compares only as many as there are)
        status.assert_states_and_times([(0.0, 1), (0.2, 0), (0.2, 1)])
        outputs.apply_all([s.DiceAccepted(1, (3,)), s.Turn(1, s.EXPECT_MOVE)])
        status.clear_states()
        time.sleep(0.5)
        assert status.state == 1 and len(status.states) == 1
