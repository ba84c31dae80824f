"""The real table program with a rendered camera, for the fault tests.

The table loop of `controller.table` runs as on the Pi, with gpiozero's MockFactory pins,
the display firmware on a pseudo-terminal, and a camera that renders (with `vision.renderer`)
whatever scene the test writes into a JSON file. Run in its own process (the power-cut test
kills it) it takes button presses as lines in a commands file and prints every signal as a JSON
line:

    python -m tests.integration.table_harness --config FILE --scene FILE --commands FILE
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from controller import config as table_config
from controller import table_log
from controller.sim.camera import Scene, SceneRenderer
from controller.table.wiring import build_app
from controller.words.events import BoardObserved

SIZE = (960, 540)


class RenderedCamera:
    """A camera looking at the scene described in `path`: {"board": ..., "dice": [...],
    "hand": false, "unplugged": false}; the board in the table-log shape."""

    def __init__(self, path: Path, fps: float = 15.0, size: tuple[int, int] = SIZE) -> None:
        self.path = path
        self.period = 1.0 / fps
        self.render = SceneRenderer(*size, seed=5)
        self._cache: tuple[str, Any] | None = None

    def read(self) -> Any:
        time.sleep(self.period)
        text = self.path.read_text("utf-8")
        if self._cache is None or self._cache[0] != text:
            scene = json.loads(text)
            if scene.get("unplugged"):
                raise OSError("camera unplugged")
            board = table_log.event_from_json({"type": "board", **scene["board"]}).board
            image = self.render(Scene(board, tuple(scene.get("dice", ())),
                                      hand=bool(scene.get("hand"))))
            self._cache = (text, image)
        return self._cache[1]

    def close(self) -> None:
        return None


def write_scene(path: Path, board: Any, dice: tuple[int, ...] = (), hand: bool = False,
                unplugged: bool = False) -> None:
    """Atomically describe what the camera sees next."""
    line = table_log.event_to_json(BoardObserved(board))
    line.pop("type")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"board": line, "dice": list(dice), "hand": hand,
                               "unplugged": unplugged}), "utf-8")
    tmp.replace(path)


class Collector:
    """Keeps every event and signal of the table, in order (for tests in the same process)."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.signals: list[Any] = []
        self._cursor = 0

    def on_frame(self, t: float, image: Any) -> None:
        return None

    def on_event(self, event: Any, source: str) -> None:
        self.events.append(event)

    def on_signals(self, signals: list[Any], origin: str) -> None:
        self.signals += signals

    def wait_for(self, wanted: Any, timeout: float = 20.0) -> Any:
        """The next signal after the last one found for which `wanted(signal)` holds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for index in range(self._cursor, len(self.signals)):
                if wanted(self.signals[index]):
                    self._cursor = index + 1
                    return self.signals[index]
            time.sleep(0.05)
        raise AssertionError(
            f"no such signal in time; last seen: {self.signals[-5:]}, events {self.events[-5:]}"
        )


class SignalPrinter:
    """Prints every signal the table shows as one JSON line (for the test reading stdout)."""

    def on_frame(self, t: float, image: Any) -> None:
        return None

    def on_event(self, event: Any, source: str) -> None:
        return None

    def on_signals(self, signals: list[Any], origin: str) -> None:
        if origin == "journal":
            return  # the resumed game's past
        for signal in signals:
            print(json.dumps({"origin": origin, **signal.to_json()}), flush=True)


def press(app: Any, command: str) -> None:
    """Drive a mock pin as a finger would: "press roll", "press done 1", "hold undo"."""
    words = command.split()
    devices = app.devices
    if words[1] == "done":
        button = devices.done_buttons[int(words[2])]
    elif words[1] == "tray":
        button = devices.dice_tray
    else:
        button = devices.buttons[words[1]]
    pin = button.pin
    pin.drive_low()
    time.sleep(2.0 if words[0] == "hold" else 0.1)
    pin.drive_high()
    time.sleep(0.15)  # a finger is not faster: presses closer than the bounce time are one


def follow_commands(app: Any, path: Path) -> None:
    done = 0
    while not app.stop.is_set():
        lines = path.read_text("utf-8").splitlines() if path.exists() else []
        for command in lines[done:]:
            press(app, command)
        done = len(lines)
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--scene", type=Path, required=True)
    parser.add_argument("--commands", type=Path, required=True)
    args = parser.parse_args(argv)
    config = table_config.load(args.config)
    with contextlib.ExitStack() as stack:
        app = build_app(config, stack, camera=lambda: RenderedCamera(args.scene, config.camera.fps))
        app.pipeline.listeners.append(SignalPrinter())
        threading.Thread(target=follow_commands, args=(app, args.commands), daemon=True).start()
        return app.run()


if __name__ == "__main__":
    sys.exit(main())
