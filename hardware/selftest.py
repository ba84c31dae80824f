"""The table's self-test: every LED colour, the buzzer, the display, each button, the camera.

On a real table a person watches the LEDs and presses the buttons when asked; in the simulator
(mock pins, emulated display board) a helper thread presses them. Each check becomes a row of a
pass/fail table; nothing stops at the first failure.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.words.buttons import Button
from controller.words.catalogue import text
from controller.words.events import ButtonPressed, DieThrown, Event
from hardware.board_emulator import read_dump
from hardware.camera import CameraProbe, probe_camera
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink
from hardware.input_events import BoardInputs, InputEvents, input_name
from hardware.pinmap import DICE_TRAY, PinMap

log = logging.getLogger(__name__)

TEST_COLOURS = {"red": (1.0, 0.0, 0.0), "green": (0.0, 1.0, 0.0), "blue": (0.0, 0.0, 1.0)}
TEST_PATTERN = ("Selbsttest Self-test", "ÄÖÜ äöü ß 20° →←", "0123456789ABCDEFGHIJ", "█" * 20)


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    ok: bool
    detail: str


@dataclass
class SelftestReport:
    results: list[CheckResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.results.append(CheckResult(name, ok, detail))
        log.info("%s: %s (%s)", name, "ok" if ok else "FAILED", detail)

    def table(self) -> str:
        """Markdown pass/fail table."""
        rows = ["| check | result | detail |", "|---|---|---|"]
        rows += [f"| {r.name} | {'pass' if r.ok else 'FAIL'} | {r.detail} |" for r in self.results]
        return "\n".join(rows)


@dataclass(frozen=True, slots=True)
class Input:
    """One input the self-test asks for: its name, seat, and the Pi's pin behind it, or the
    display board's input it is wired to."""

    name: str
    seat: int | None
    pin: str | None = None
    board_input: int | None = None

    def label(self, lang: str) -> str:
        return input_name(self.name, self.seat, lang)

    @property
    def wire(self) -> str:
        """Where it is wired, for the report."""
        return self.pin if self.pin is not None else f"display board input {self.board_input}"


def inputs_of(pinmap: PinMap) -> list[Input]:
    """Every button and sensor of the pin map, in the order a person is asked for them."""
    out = [Input(name, None, pin) for name, pin in pinmap.button_pins().items()]
    out += [Input(Button.DONE, i, s.done) for i, s in enumerate(pinmap.seats)
            if s.done is not None]
    out.append(Input(DICE_TRAY, None, pinmap.dice_tray))
    return out + [Input(name, None, board_input=number)
                  for number, name in sorted(pinmap.board_input_names().items())]


Presser = Callable[[Input], None]
BoardPresser = Callable[[int, bool], None]


def mock_presser(factory: Any, board: BoardPresser | None = None) -> Presser:
    """A simulated person: presses and releases the asked input, on the mock pins or on the
    (emulated) display board's inputs through `board`."""

    def press(item: Input) -> None:
        def act() -> None:
            time.sleep(0.05)
            if item.pin is not None:
                pin = factory.pin(item.pin)
                pin.drive_low()
                time.sleep(0.06)
                pin.drive_high()
            elif board is not None and item.board_input is not None:
                board(item.board_input, True)
                time.sleep(0.06)
                board(item.board_input, False)

        threading.Thread(target=act, daemon=True).start()

    return press


def skipping(presser: Presser, labels: frozenset[str]) -> Presser:
    """The same person, who does not press the inputs named (in English) in `labels`."""

    def press(item: Input) -> None:
        if item.label("en") not in labels:
            presser(item)

    return press


def run_selftest(
    pinmap: PinMap,
    *,
    pin_factory: Any = None,
    display_port: str | None = None,
    camera: dict[str, Any] | None = None,
    presser: Presser | None = None,
    ask: Callable[[str], None] = lambda text: None,
    lang: str = "de",
    step_s: float = 0.4,
    button_timeout_s: float = 10.0,
    screen_reader: Callable[[], list[str] | None] | None = None,
    sync_timeout_s: float = 5.0,
) -> SelftestReport:
    """Run every check; `ask` shows a request to the person at the table."""
    report = SelftestReport()
    events: queue.Queue[Event] = queue.Queue()
    with TableDevices(pinmap, pin_factory=pin_factory) as devices:
        _check_leds(report, devices, pinmap, step_s)
        _check_buzzer(report, devices, pinmap, step_s)
        board = BoardInputs(events, pinmap.board_input_names(), long_press_s=pinmap.long_press_s,
                            quiet_s=pinmap.dice_quiet_s)
        link = DisplayLink(display_port, on_sensor=board) if display_port else None
        if link is not None:
            link.start()
        try:
            _check_display(report, link, screen_reader, sync_timeout_s)
            _check_inputs(report, devices, pinmap, link, presser, ask, lang, button_timeout_s,
                          events)
        finally:
            if link is not None:
                link.close()
    _check_camera(report, camera)
    return report


def _check_leds(
    report: SelftestReport, devices: TableDevices, pinmap: PinMap, step_s: float
) -> None:
    for seat, led in enumerate(devices.seat_leds):
        wrong = []
        for name, colour in TEST_COLOURS.items():
            led.color = colour
            time.sleep(step_s)
            got = tuple(round(v, 2) for v in led.value)  # read back from the pins
            if got != colour:
                wrong.append(f"{name} read back {got}")
        led.off()
        detail = "red, green, blue lit" if not wrong else "; ".join(wrong)
        report.add(f"seat {seat + 1} LED", not wrong, detail)
    devices.status_led.blink(on_time=step_s / 2, off_time=step_s / 2, n=2, background=False)
    devices.status_led.on()
    report.add("status LED", devices.status_led.is_lit, f"{pinmap.status_led} blinked, now on")


def _check_buzzer(
    report: SelftestReport, devices: TableDevices, pinmap: PinMap, step_s: float
) -> None:
    pin = devices.buzzer.pin
    seen = []
    devices.buzzer.on()
    seen.append(pin.state)
    time.sleep(min(step_s, 0.2))
    devices.buzzer.off()
    seen.append(pin.state)
    ok = [bool(s) for s in seen] == [True, False]
    report.add("buzzer", ok, f"{pinmap.buzzer} beeped" if ok else f"pin read back {seen}")


def _check_display(
    report: SelftestReport,
    link: DisplayLink | None,
    screen_reader: Callable[[], list[str] | None] | None,
    sync_timeout_s: float,
) -> None:
    if link is None:
        report.add("display", False, "no display port configured")
        return
    link.show_lines(TEST_PATTERN)
    link.show_die(6)
    link.set_leds(0, [(255, 0, 0), (0, 255, 0), (0, 0, 255)])
    link.beep(2000, 100)
    if not link.wait_synced(sync_timeout_s):
        report.add(
            "display", False, f"board on {link.port} did not answer within {sync_timeout_s:g} s"
        )
        return
    detail = f"test pattern acknowledged by firmware {link.board_version} on {link.port}"
    if screen_reader is not None:
        screen = screen_reader()
        # The A00 ROM has no capital umlauts; the board shows them as ä ö ü.
        folded = str.maketrans("ÄÖÜ", "äöü")
        wanted = [line.translate(folded) for line in TEST_PATTERN]
        shown = [line.rstrip() for line in (screen or [])]
        if shown != wanted:
            report.add("display", False, f"screen shows {shown}")
            return
        detail += ", screen read back"
    report.add("display", True, detail)
    link.clear_leds()
    link.show_die(0)


def _check_inputs(
    report: SelftestReport,
    devices: TableDevices,
    pinmap: PinMap,
    link: DisplayLink | None,
    presser: Presser | None,
    ask: Callable[[str], None],
    lang: str,
    timeout_s: float,
    events: queue.Queue[Event],
) -> None:
    inputs = InputEvents(devices, events)
    try:
        for item in inputs_of(pinmap):
            prompt = _prompt(item, lang)
            ask(prompt)
            if link is not None:
                link.show_lines(["Selbsttest", *_wrap20(prompt)])
            if presser is not None:
                presser(item)
            got = _wait_for(events, item, timeout_s)
            name = f"input {item.label('en')}"
            if got:
                report.add(name, True, f"{item.wire} pressed")
            else:
                report.add(name, False, f"no press on {item.wire} within {timeout_s:g} s")
            time.sleep(max(pinmap.bounce_s, 0.1))
    finally:
        inputs.close()


def _prompt(item: Input, lang: str) -> str:
    if item.name == DICE_TRAY:
        return text("selftest.shake", lang)
    return text("selftest.press", lang, button=item.label(lang))


def _wrap20(text: str) -> list[str]:
    return textwrap.wrap(text, 20)[:3]


def _wait_for(events: queue.Queue[Event], item: Input, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            return False
        if item.name == DICE_TRAY and isinstance(event, DieThrown):
            return True
        if isinstance(event, ButtonPressed) and (event.name, event.seat) == (item.name, item.seat):
            return True
    return False


def _check_camera(report: SelftestReport, camera: dict[str, Any] | None) -> None:
    if camera is None:
        report.add("camera", False, "no camera source configured")
        return
    probe: CameraProbe = probe_camera(**camera)
    report.add("camera", probe.ok, probe.detail)


def on_raspberry_pi() -> bool:
    """True on a Raspberry Pi (its device tree names the model)."""
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False


@contextlib.contextmanager
def simulated_table() -> Iterator[dict[str, Any]]:
    """Mock pins, an emulated display board and a test image as camera, cleaned up after."""
    factory = MockFactory(pin_class=MockPWMPin)
    with tempfile.TemporaryDirectory(prefix="spieltisch-selftest-") as folder:
        port, dump = Path(folder) / "board", Path(folder) / "board.json"
        inputs = Path(folder) / "board-inputs"
        image = Path(folder) / "camera.png"
        cv2.imwrite(str(image), np.full((480, 640, 3), 128, np.uint8))
        process = subprocess.Popen(
            [sys.executable, "-m", "hardware.board_emulator", "--port", str(port),
             "--dump", str(dump), "--inputs", str(inputs)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while not port.exists() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)

            def screen() -> list[str] | None:
                state = read_dump(dump)
                return None if state is None else list(state["lines"])

            def board(input_id: int, active: bool) -> None:
                with inputs.open("a", encoding="utf-8") as file:
                    file.write(f"{input_id} {int(active)}\n")

            yield {
                "pin_factory": factory,
                "display_port": str(port),
                "camera": {"source": "files", "path": image},
                "presser": mock_presser(factory, board),
                "screen_reader": screen,
            }
        finally:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            factory.close()
