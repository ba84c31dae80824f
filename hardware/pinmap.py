"""The pin map: which GPIO every LED, button, sensor and the display UART use, and which
buttons are wired to the display board's own inputs instead.

Read from TOML with `tomllib` into frozen dataclasses; defaults ship as
`hardware/pinmap_default.toml` (documented in docs/wiring.md). Problems are found at start-up,
before any pin is touched: an unknown key, a name that is not a GPIO of the 40-pin header, a
pin used twice or a button wired twice raises `PinMapError` naming the key(s), the pin and the
file.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from controller.words.buttons import TABLE_BUTTONS, Button

MAX_SEATS = 4
BOARD_INPUTS = 4  # the display board's own inputs 0..3 (its GP16..GP19, docs/firmware.md)
DICE_TRAY = "dice_tray"  # the tray sensor's name among the display board's inputs
OPTIONAL_BUTTONS = (Button.DOUBLE, Button.TAKE, Button.DROP)
DEFAULT_NAME = "pinmap_default.toml"

# BCM GPIO number -> physical pin on the 40-pin header.
HEADER_PIN = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32,
    13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16,
    24: 18, 25: 22, 26: 37, 27: 13,
}
RESERVED = {0: "the HAT ID EEPROM (ID_SD)", 1: "the HAT ID EEPROM (ID_SC)"}
_PIN_NAME = re.compile(r"GPIO(\d{1,2})")


class PinMapError(ValueError):
    """The pin map cannot be used; the message names the file, the key and the pin."""


@dataclass(frozen=True, slots=True)
class SeatPins:
    red: str
    green: str
    blue: str
    done: str | None = None


@dataclass(frozen=True, slots=True)
class PinMap:
    seats: tuple[SeatPins, ...]
    status_led: str
    buzzer: str
    undo: str
    roll: str
    new_game: str
    dice_tray: str
    display_port: str
    display_tx: str
    display_rx: str
    common_anode: bool = False
    long_press_s: float = 1.5
    bounce_s: float = 0.05
    dice_quiet_s: float = 1.0
    double: str | None = None  # the doubling cube's buttons, when wired to a GPIO
    take: str | None = None
    drop: str | None = None
    board_inputs: tuple[tuple[str, int], ...] = ()  # (button or "dice_tray", board input)
    source: str = DEFAULT_NAME

    def button_pins(self) -> dict[Button, str]:
        """The table's shared buttons wired to a GPIO: name -> pin (per-seat done buttons are
        in `seats`)."""
        pins = {button: getattr(self, button.value) for button in TABLE_BUTTONS}
        return {button: pin for button, pin in pins.items() if pin is not None}

    def board_input_names(self) -> dict[int, str]:
        """The display board's inputs that are wired: input id -> button or "dice_tray"."""
        return {number: name for name, number in self.board_inputs}

    def assignments(self) -> list[tuple[str, str]]:
        """(key, pin) for every pin in use, in pin-map order (checks, self-test, wiring table)."""
        out: list[tuple[str, str]] = []
        for index, seat in enumerate(self.seats):
            for part in ("red", "green", "blue", "done"):
                pin = getattr(seat, part)
                if pin is not None:
                    out.append((f"seat[{index}].{part}", pin))
        return [
            *out,
            ("leds.status", self.status_led),
            ("buzzer.pin", self.buzzer),
            *((f"buttons.{name}", pin) for name, pin in self.button_pins().items()),
            ("dice_tray.pin", self.dice_tray),
            ("display.tx", self.display_tx),
            ("display.rx", self.display_rx),
        ]


def header_pin(name: str) -> int:
    """Physical header pin of a "GPIOn" name."""
    return HEADER_PIN[int(name[4:])]


_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "seat": {"red": str, "green": str, "blue": str, "done": str},
    "leds": {"common_anode": bool, "status": str},
    "buzzer": {"pin": str},
    "buttons": {
        **{button.value: str for button in TABLE_BUTTONS},
        "long_press_s": (int, float),
        "bounce_s": (int, float),
    },
    "dice_tray": {"pin": str, "quiet_s": (int, float)},
    "display": {"port": str, "tx": str, "rx": str},
    "board_inputs": {**{button.value: int for button in TABLE_BUTTONS}, DICE_TRAY: int},
}
_REQUIRED = {
    "seat": ("red", "green", "blue"),
    "leds": ("status",),
    "buzzer": ("pin",),
    "buttons": ("undo", "roll", "new_game"),
    "dice_tray": ("pin",),
    "display": ("port", "tx", "rx"),
    "board_inputs": (),
}


def load_pinmap(path: str | Path | None = None) -> PinMap:
    """The pin map in `path`, or the shipped defaults when `path` is None or empty."""
    if not path:
        text = resources.files("hardware").joinpath(DEFAULT_NAME).read_text(encoding="utf-8")
        return parse_pinmap(text, DEFAULT_NAME)
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise PinMapError(f"{file}: cannot read the pin map: {exc.strerror}") from exc
    # bytes that are not UTF-8 cannot be TOML either: parsing them names the place
    return parse_pinmap(raw.decode("utf-8", errors="replace"), str(file))


def parse_pinmap(text: str, source: str) -> PinMap:
    """Parse and check a pin map; `source` names the file in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{source}: not valid TOML: {exc}") from exc
    for key in data:
        if key not in _SCHEMA:
            raise PinMapError(f"{source}: unknown table [{key}] (known: {', '.join(_SCHEMA)})")
    seats_raw = data.get("seat", [])
    if not isinstance(seats_raw, list) or not 1 <= len(seats_raw) <= MAX_SEATS:
        raise PinMapError(f"{source}: [[seat]] must appear 1 to {MAX_SEATS} times")
    seats = []
    for index, raw in enumerate(seats_raw):
        values = _table(raw, "seat", f"seat[{index}]", source)
        seats.append(SeatPins(values["red"], values["green"], values["blue"], values.get("done")))
    leds = _table(data.get("leds", {}), "leds", "leds", source)
    buzzer = _table(data.get("buzzer", {}), "buzzer", "buzzer", source)
    buttons = _table(data.get("buttons", {}), "buttons", "buttons", source)
    tray = _table(data.get("dice_tray", {}), "dice_tray", "dice_tray", source)
    display = _table(data.get("display", {}), "display", "display", source)
    board = _table(data.get("board_inputs", {}), "board_inputs", "board_inputs", source)
    pinmap = PinMap(
        seats=tuple(seats),
        status_led=leds["status"],
        buzzer=buzzer["pin"],
        undo=buttons["undo"],
        roll=buttons["roll"],
        new_game=buttons["new_game"],
        dice_tray=tray["pin"],
        display_port=display["port"],
        display_tx=display["tx"],
        display_rx=display["rx"],
        common_anode=leds.get("common_anode", False),
        long_press_s=float(buttons.get("long_press_s", 1.5)),
        bounce_s=float(buttons.get("bounce_s", 0.05)),
        dice_quiet_s=float(tray.get("quiet_s", 1.0)),
        **{button.value: buttons.get(button.value) for button in OPTIONAL_BUTTONS},
        board_inputs=tuple(board.items()),
        source=source,
    )
    _check_pins(pinmap, source)
    _check_board_inputs(pinmap, source)
    return pinmap


def _table(raw: Any, kind: str, where: str, source: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise PinMapError(f"{source}: {where} must be a table")
    schema = _SCHEMA[kind]
    for key, value in raw.items():
        if key not in schema:
            raise PinMapError(f"{source}: unknown key {where}.{key} (known: {', '.join(schema)})")
        expected = schema[key]
        if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
            raise PinMapError(f"{source}: {where}.{key} = {value!r} has the wrong type")
    for key in _REQUIRED[kind]:
        if key not in raw:
            raise PinMapError(f"{source}: {where}.{key} is missing")
    return raw


def _check_board_inputs(pinmap: PinMap, source: str) -> None:
    seen: dict[int, str] = {}
    on_gpio = set(pinmap.button_pins())
    for name, number in pinmap.board_inputs:
        if not 0 <= number < BOARD_INPUTS:
            raise PinMapError(f"{source}: board_inputs.{name} = {number} is not an input of the "
                              f"display board (0..{BOARD_INPUTS - 1})")
        if number in seen:
            raise PinMapError(f"{source}: display board input {number} is used twice: "
                              f"board_inputs.{seen[number]} and board_inputs.{name}")
        if name in on_gpio:
            raise PinMapError(f"{source}: the {name} button is wired twice: buttons.{name} and "
                              f"board_inputs.{name}")
        seen[number] = name


def _check_pins(pinmap: PinMap, source: str) -> None:
    seen: dict[str, str] = {}
    for key, pin in pinmap.assignments():
        match = _PIN_NAME.fullmatch(pin)
        if match is None or int(match.group(1)) not in HEADER_PIN:
            raise PinMapError(
                f"{source}: {key} = {pin!r} is not a GPIO of the 40-pin header (GPIO2..GPIO27)"
            )
        number = int(match.group(1))
        if number in RESERVED:
            raise PinMapError(f"{source}: {key} = {pin} is reserved for {RESERVED[number]}")
        if pin in seen:
            raise PinMapError(
                f"{source}: {pin} (header pin {HEADER_PIN[number]}) is used twice: "
                f"{seen[pin]} and {key}"
            )
        seen[pin] = key
