"""Pin map: shipped defaults, and errors that name the key, the pin and the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.pinmap import HEADER_PIN, PinMapError, load_pinmap

DEFAULT_TEXT = (Path(__file__).resolve().parents[2] / "hardware/pinmap_default.toml").read_text(
    encoding="utf-8"
)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pins.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_have_four_seats_and_no_pin_twice() -> None:
    pinmap = load_pinmap()
    assert len(pinmap.seats) == 4
    pins = [pin for _, pin in pinmap.assignments()]
    assert len(pins) == len(set(pins)) == 24
    assert (pinmap.display_tx, pinmap.display_rx) == ("GPIO14", "GPIO15")


def test_header_pin_numbers_agree_with_gpiozero_board_info() -> None:
    header = MockFactory().board_info.headers["J8"]
    for gpio, physical in HEADER_PIN.items():
        assert f"GPIO{gpio}" in header.pins[physical].names


def test_pin_used_twice_names_pin_header_pin_both_keys_and_file(tmp_path: Path) -> None:
    path = _write(tmp_path, DEFAULT_TEXT.replace('undo = "GPIO7"', 'undo = "GPIO17"'))
    with pytest.raises(PinMapError) as err:
        load_pinmap(path)
    message = str(err.value)
    for part in ("GPIO17", "header pin 11", "seat[0].red", "buttons.undo", str(path)):
        assert part in message


def test_unknown_key_is_an_error_naming_key_and_file(tmp_path: Path) -> None:
    path = _write(tmp_path, DEFAULT_TEXT.replace("[buzzer]\n", "[buzzer]\nvolume = 3\n"))
    with pytest.raises(PinMapError, match=r"pins\.toml: unknown key buzzer\.volume"):
        load_pinmap(path)


def test_unknown_table_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match=r"unknown table \[motor\]"):
        load_pinmap(_write(tmp_path, DEFAULT_TEXT + "\n[motor]\npin = 'GPIO2'\n"))


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [("GPIO30", "not a GPIO of the 40-pin header"), ("17", "not a GPIO"), ("GPIO0", "reserved")],
)
def test_bad_pin_names_the_key(tmp_path: Path, bad: str, fragment: str) -> None:
    path = _write(tmp_path, DEFAULT_TEXT.replace('status = "GPIO4"', f'status = "{bad}"'))
    with pytest.raises(PinMapError, match=rf"leds\.status = .*{fragment}"):
        load_pinmap(path)


def test_missing_required_key_and_wrong_type(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match=r"seat\[1\]\.blue is missing"):
        load_pinmap(_write(tmp_path, DEFAULT_TEXT.replace('blue = "GPIO13"\n', "")))
    with pytest.raises(PinMapError, match=r"common_anode = 'yes' has the wrong type"):
        text = DEFAULT_TEXT.replace("common_anode = false", 'common_anode = "yes"')
        load_pinmap(_write(tmp_path, text))


def test_missing_file_and_broken_toml_are_named(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match="cannot read"):
        load_pinmap(tmp_path / "nope.toml")
    with pytest.raises(PinMapError, match="not valid TOML"):
        load_pinmap(_write(tmp_path, "[seat\n"))


def test_two_seat_map_without_done_buttons_loads(tmp_path: Path) -> None:
    seats, rest = DEFAULT_TEXT.split("[leds]")
    preamble, first, second, *_ = seats.split("[[seat]]")
    text = preamble + "[[seat]]" + first + "[[seat]]" + second + "[leds]" + rest
    text = text.replace('done = "GPIO23"\n', "").replace('done = "GPIO24"\n', "")
    pinmap = load_pinmap(_write(tmp_path, text))
    assert len(pinmap.seats) == 2
    assert all(seat.done is None for seat in pinmap.seats)
