"""Start `python -m hardware.board_emulator` for a test and always stop it again."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class EmulatedBoard:
    process: subprocess.Popen[bytes]
    port: Path
    dump: Path

    def state(self) -> dict[str, object] | None:
        try:
            return json.loads(self.dump.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def wait_for(self, check: Callable[[dict[str, object]], bool], timeout: float) -> dict:
        """The first dumped state that passes `check`; AssertionError shows the last one."""
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            state = self.state()
            if state is not None and check(state):
                return state
            time.sleep(0.01)
        raise AssertionError(f"emulated board never reached the state; last: {state}")

    def pull_cable(self) -> None:
        os.kill(self.process.pid, signal.SIGUSR1)


@contextlib.contextmanager
def emulated_board(tmp_path: Path, unplug_seconds: float = 0.5) -> Iterator[EmulatedBoard]:
    port, dump = tmp_path / "board-port", tmp_path / "board.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "hardware.board_emulator", "--port", str(port), "--dump", str(dump),
         "--unplug-seconds", str(unplug_seconds)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        board = EmulatedBoard(process, port, dump)
        board.wait_for(lambda s: s["boots"] == 1, timeout=10)
        yield board
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def screen_is(lines: list[str]) -> Callable[[dict[str, object]], bool]:
    """A check that the emulated screen shows `lines` (padding ignored)."""
    wanted = [line.ljust(20) for line in lines] + [" " * 20] * (4 - len(lines))
    return lambda state: state["lines"] == wanted
