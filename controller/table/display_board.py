"""The display board's firmware logic on a pseudo-terminal (`hardware.board_emulator`), for
the simulated table: a process of its own, like the real board on its own microcontroller."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hardware.board_emulator import read_dump


class EmulatedDisplayBoard:
    """`port` is the pseudo-terminal the link opens, `screen()` reads the emulated 20×4 screen
    back; a line "ID 0|1" appended to `inputs` changes one of the board's own inputs, as a
    finger on a button wired to it does."""

    def __init__(self, folder: Path) -> None:
        self.port = folder / "board"
        self.dump = folder / "board.json"
        self.inputs = folder / "board-inputs"
        # The emulated board's own log goes to a file, out of the terminal view's way.
        self._log = (folder / "board.log").open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hardware.board_emulator", "--port", str(self.port),
             "--dump", str(self.dump), "--inputs", str(self.inputs)],
            stdin=subprocess.DEVNULL,
            stderr=self._log,
            # Its own session, as the real board is its own device: Ctrl-C in the table's
            # terminal stops the table, which then turns the board off (`close`).
            start_new_session=True,
        )
        deadline = time.monotonic() + 10.0
        while not self.port.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("the display board emulator did not start")
            time.sleep(0.02)

    def screen(self) -> tuple[str, ...]:
        state = read_dump(self.dump) or {}
        lines = state.get("lines") or ()
        return tuple(str(line) for line in lines)  # type: ignore[union-attr]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # it would not stop: make sure it does
                self.process.kill()
                self.process.wait()
        self._log.close()
