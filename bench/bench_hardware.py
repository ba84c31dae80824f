"""Hardware layer speed: wire bytes per screen update, host time per update, Signal-to-pin time.

Needs no hardware: the display board is `hardware.board_emulator` on a pseudo-terminal, the pins
are gpiozero's MockFactory. Prints Markdown tables (docs/hardware-benchmarks.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.timing import print_table, summary

UPDATES = 300
SIGNALS = 300


def _wire_bytes() -> None:
    from hardware import frame_codec as codec

    lines = ["Gelb ist dran", "Bitte würfeln", "Zug ungültig: 5, 11", "Größe 20° Ä Ö Ü ß"]
    ack = len(codec.encode(codec.Frame(0, codec.MessageType.ACK)))
    screen = len(codec.encode(codec.screen(0, lines)))
    rows = sum(len(codec.encode(codec.text_line(0, r, lines[r]))) for r in range(4))
    one_row = len(codec.encode(codec.text_line(0, 1, lines[1])))
    print_table(
        "Bytes on the wire per display update (frame + acknowledgement, goal ≤ 110)",
        ["update", "frames", "bytes to board", "bytes back", "total"],
        [
            ["full screen, one SCREEN frame (used)", 1, screen, ack, screen + ack],
            ["full screen as 4 TEXT_LINE frames", 4, rows, 4 * ack, rows + 4 * ack],
            ["one changed row, TEXT_LINE (used)", 1, one_row, ack, one_row + ack],
        ],
    )


def _link_round_trips() -> None:
    from hardware.display_link import DisplayLink

    with tempfile.TemporaryDirectory(prefix="bench-hw-") as folder:
        port, dump = Path(folder) / "board", Path(folder) / "board.json"
        process = subprocess.Popen(
            [sys.executable, "-m", "hardware.board_emulator", "--port", str(port),
             "--dump", str(dump)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while not port.exists():
                time.sleep(0.01)
            link = DisplayLink(str(port), heartbeat_interval=60.0)
            link.start()
            link.show_lines(["x"])
            link.wait_synced(5)
            calls, trips = [], []
            sent0, recv0 = link.stats.bytes_sent, link.stats.bytes_received
            for i in range(UPDATES):
                lines = [f"Update {i:5d}", f"Zeile {i % 7} äöü", f"Feld {i % 40}", f"{i:020d}"]
                t0 = time.perf_counter()
                link.show_lines(lines)
                t1 = time.perf_counter()
                link.wait_synced(5)
                t2 = time.perf_counter()
                calls.append((t1 - t0) * 1e3)
                trips.append((t2 - t0) * 1e3)
            moved = link.stats.bytes_sent - sent0 + link.stats.bytes_received - recv0
            per_update = moved / UPDATES
            retransmits = link.stats.retransmits
            link.close()
            shown = json.loads(dump.read_text(encoding="utf-8"))["lines"][0].rstrip()
        finally:
            process.terminate()
            process.wait(timeout=5)
    call_med, call_p99 = summary(calls)
    trip_med, trip_p99 = summary(trips)
    print_table(
        f"Host side, full-screen updates over a pseudo-terminal ({UPDATES} updates; board = "
        f"emulator process; last screen line 0 {shown!r})",
        ["measure", "median ms", "p99 ms"],
        [
            ["show_lines() call (the referee's cost; goal median ≤ 1 ms)", call_med, call_p99],
            ["call → frame written → board ACK received", trip_med, trip_p99],
        ],
    )
    print_table(
        "Measured on the pty",
        ["bytes per full-screen update (both directions)", "retransmits"],
        [[per_update, retransmits]],
    )


def _signal_to_pin() -> None:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from controller.words import signals as s
    from hardware.devices import TableDevices
    from hardware.pinmap import load_pinmap
    from hardware.seat_colours import SeatColours
    from hardware.signal_outputs import SignalOutputs

    pinmap = load_pinmap()
    factory = MockFactory(pin_class=MockPWMPin)
    rows = []
    with TableDevices(pinmap, pin_factory=factory) as devices:
        outputs = SignalOutputs(devices, SeatColours.for_game("maedn"))
        for label, make, pin_name in (
            ("Turn → seat LED steady (green pin)", lambda: s.Turn(1, s.EXPECT_ROLL),
             pinmap.seats[1].green),
            ("Illegal → fast red blink starts (red pin)",
             lambda: s.Illegal(2, "k", "x", "x"), pinmap.seats[2].red),
        ):
            pin = factory.pin(pin_name)
            samples = []
            for _ in range(SIGNALS):
                outputs.apply(s.Turn(0, s.EXPECT_ROLL))  # seat under test dark again
                time.sleep(0.001)
                pin.clear_states()  # the pin's clock starts now
                outputs.apply(make())
                while len(pin.states) < 2:
                    time.sleep(0)
                samples.append(pin.states[1].timestamp * 1e3)
            med, p99 = summary(samples)
            rows.append([label, med, p99])
        outputs.close()
    factory.close()
    print_table(
        f"Signal to LED pin change, gpiozero MockFactory ({SIGNALS} signals; goal median ≤ 1 ms)",
        ["signal", "median ms", "p99 ms"],
        rows,
    )


def main() -> None:
    _wire_bytes()
    _link_round_trips()
    _signal_to_pin()


if __name__ == "__main__":
    main()
