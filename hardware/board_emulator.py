"""A stand-in for the display board: the firmware's own logic behind a real pseudo-terminal.

    python -m hardware.board_emulator --port /tmp/board --dump /tmp/board.json [--inputs FILE]

It opens a pty pair, links `--port` to the pty's device (like `socat ... link=`), runs
`firmware.board_logic.Board` on what arrives and rewrites `--dump` (JSON: the four screen lines,
LEDs, die, beeps, counters) whenever something changes. SIGUSR1 pulls the cable: the pty is
closed, the link removed, and after `--unplug-seconds` a new pty appears with a freshly booted
board (it is powered by that cable). SIGTERM/SIGINT end it and remove the link. Lines appended
to `--inputs` ("2 1": input 2 active, "2 0": released) are the board's own buttons and sensor
changing, reported to the Pi as the firmware reports them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import queue
import select
import signal
import sys
import time
import tty
from pathlib import Path

from firmware.board_logic import Board

log = logging.getLogger(__name__)


def now_ms() -> int:
    """The board's millisecond clock (wraps like time.ticks_ms on the Pico)."""
    return int(time.monotonic() * 1000) & ((1 << 30) - 1)


class Emulator:
    """One emulated board on one pty; `run` until `stop` is set by a signal."""

    def __init__(
        self,
        port: Path,
        dump: Path | None,
        unplug_seconds: float,
        n_leds: int,
        inputs: Path | None = None,
    ) -> None:
        self.port = port
        self.dump = dump
        self.inputs_file = inputs
        self._inputs_read = 0
        self.unplug_seconds = unplug_seconds
        self.n_leds = n_leds
        self.stop = False
        self.unplug_requested = False
        self.boots = 0
        self.plugged_at = 0.0
        self.board = Board(n_leds=n_leds)
        self._master = -1
        self._slave = -1
        self._last_dump: dict[str, object] | None = None
        self._inputs: queue.Queue[tuple[int, bool]] = queue.Queue()

    def inject(self, input_id: int, active: bool) -> None:
        """A debounced change of a board input, as if a player pressed it (any thread)."""
        self._inputs.put((input_id, active))

    def plug(self) -> None:
        """A new pty and a freshly booted board, linked at `port`."""
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        tmp = self.port.with_name(self.port.name + ".tmp")
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(os.ttyname(self._slave))
        os.replace(tmp, self.port)
        self.board = Board(n_leds=self.n_leds)
        self.boots += 1
        self.plugged_at = time.monotonic()
        log.info("board plugged in at %s (boot %d)", self.port, self.boots)
        self.write_dump(force=True)

    def unplug(self) -> None:
        if self.port.is_symlink():
            self.port.unlink()
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1
        log.info("cable pulled at %s", self.port)

    def run(self) -> None:
        """Serve the pty until stopped, or until the process that started it is gone (a board
        emulator outliving a killed table program would hold its pty and files forever)."""
        parent = os.getppid()
        self.plug()
        try:
            while not self.stop and os.getppid() == parent:
                if self.unplug_requested:
                    self.unplug_requested = False
                    self.unplug()
                    time.sleep(self.unplug_seconds)
                    self.plug()
                self.step(0.01)
        finally:
            self.unplug()

    def step(self, timeout: float) -> None:
        """Wait up to `timeout` for bytes from the Pi, answer them, keep the dump current."""
        try:
            ready, _, _ = select.select([self._master], [], [], timeout)
        except InterruptedError:
            ready = []
        out = bytearray()
        if ready:
            try:
                data = os.read(self._master, 4096)
            except BlockingIOError:
                data = b""
            except OSError as exc:  # EIO: nobody has the other end open
                log.debug("pty read: %s", exc)
                time.sleep(timeout)
                data = b""
            out += self.board.feed(data, now_ms())
        self._read_inputs_file()
        while not self._inputs.empty():
            input_id, active = self._inputs.get_nowait()
            out += self.board.report_input(input_id, active, now_ms())
        out += self.board.tick(now_ms())
        if out:
            self._send(bytes(out))
        self.write_dump()

    def _read_inputs_file(self) -> None:
        """Inject the input changes appended to `--inputs` since the last look."""
        if self.inputs_file is None:
            return
        try:
            with self.inputs_file.open("rb") as file:
                file.seek(self._inputs_read)
                data = file.read()
        except FileNotFoundError:
            return
        complete = data[: data.rfind(b"\n") + 1]
        self._inputs_read += len(complete)
        for line in complete.decode("ascii", "replace").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and parts[1] in ("0", "1"):
                self.inject(int(parts[0]), parts[1] == "1")
            else:
                log.warning("input line %r is not \"ID 0|1\"", line)

    def _send(self, data: bytes) -> None:
        try:
            os.write(self._master, data)
        except OSError as exc:
            log.debug("pty write dropped (%s): the Pi resends what we do not acknowledge", exc)

    def state(self) -> dict[str, object]:
        board = self.board
        return {
            "lines": board.display.text_lines(),
            "leds": bytes(board.leds).hex(),
            "die": board.die,
            "beeps": list(board.beeps),
            "frames_ok": board.frames_ok,
            "frames_bad": board.frames_bad,
            "boots": self.boots,
            "plugged_at": self.plugged_at,
        }

    def write_dump(self, force: bool = False) -> None:
        """Rewrite the dump file atomically when the board's state changed."""
        if self.dump is None:
            return
        state = self.state()
        comparable = {k: v for k, v in state.items() if k != "frames_ok"}
        if not force and comparable == self._last_dump:
            return
        self._last_dump = comparable
        tmp = self.dump.with_name(self.dump.name + ".tmp")
        tmp.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.dump)


def read_dump(path: Path) -> dict[str, object] | None:
    """The emulator's last dump, or None if it has not written one yet."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=Path, required=True, help="symlink to create for the pty")
    parser.add_argument("--dump", type=Path, help="JSON file with the emulated screen and state")
    parser.add_argument("--unplug-seconds", type=float, default=0.5)
    parser.add_argument("--leds", type=int, default=64, help="length of the WS2812 strip")
    parser.add_argument("--inputs", type=Path, help="file of input changes (\"ID 0|1\" lines)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    emulator = Emulator(args.port, args.dump, args.unplug_seconds, args.leds, args.inputs)

    def request_stop(signum: int, frame: object) -> None:
        emulator.stop = True

    def request_unplug(signum: int, frame: object) -> None:
        emulator.unplug_requested = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGUSR1, request_unplug)
    emulator.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
