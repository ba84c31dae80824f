"""Faults a table survives: a power cut, a camera or display board unplugged, a stuck sensor.

Everything real but the world: the table program of `controller.table` with gpiozero's
MockFactory pins, the display firmware on a real pseudo-terminal, the SQLite journal, and a
camera that renders the scene the test lays out.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller import config as table_config
from controller import table_log
from controller.referee.backgammon import DOUBLE_BEFORE_ROLL
from controller.referee.turns import BOARD_TAKEN, NOTHING_TO_UNDO, PLAY_UNSEEN
from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.sim.camera import RenderAhead, Scene, SceneRenderer
from controller.table.notices import CAMERA_BACK, CAMERA_LOST, CONFIRM_DICE, RESUMED, SENSOR_STUCK
from controller.table.wiring import build_app
from controller.words.buttons import Button
from controller.words.events import ButtonPressed, DieThrown
from controller.words.signals import (
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_SETUP,
    BoardDiffers,
    DiceAccepted,
    Illegal,
    Notice,
    PlayAccepted,
    Turn,
)
from hardware.board_emulator import read_dump
from tests.integration.table_harness import Collector, RenderedCamera, press, write_scene

ROOT = Path(__file__).resolve().parents[2]
VEGAS = maedn.Options.preset("vegas")


def _config(tmp_path: Path, game: str = "maedn", variant: str = "vegas", players: int = 2,
            lost_after_s: float = 5.0, port: str = "simulated", page_s: float = 3.0) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        f'[game]\ngame = "{game}"\nvariant = "{variant}"\nplayers = {players}\n'
        f'[camera]\nsource = "opencv"\nfps = 10\nsettle_ms = 200\nlost_after_s = {lost_after_s}\n'
        f'[display]\nport = "{port}"\nlanguage = "de"\npage_s = {page_s}\n'
        f'[pins]\nfactory = "mock"\nstuck_after_s = 3.0\n'
        f'[data]\ndirectory = "{tmp_path / "data"}"\n',
        "utf-8",
    )
    return path


class Harness:
    """The table program in its own process group (so a power cut takes all of it)."""

    def __init__(self, tmp_path: Path, config: Path, scene: Path) -> None:
        self.commands = tmp_path / "commands.txt"
        self.commands.write_text("", "utf-8")
        self.signals: queue.Queue[dict[str, Any]] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.table_harness", "--config", str(config),
             "--scene", str(scene), "--commands", str(self.commands)],
            cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("{"):
                obj = json.loads(line)
                self.origin = obj.pop("origin")
                self.signals.put(obj)

    def press(self, command: str) -> None:
        with self.commands.open("a", encoding="utf-8") as handle:
            handle.write(command + "\n")

    def wait_for(self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 30.0,
                 seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                signal_ = self.signals.get(timeout=0.2)
            except queue.Empty:
                assert self.process.poll() is None, "the table program ended"
                continue
            if seen is not None:
                seen.append(signal_)
            if wanted(signal_):
                return signal_
        raise AssertionError("the table did not show the expected signal in time")

    def power_cut(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def _calibrate(tmp_path: Path, scene: Path, game: str, players: int,
               size: tuple[int, int] = (960, 540)) -> None:
    """What the owner does once: calibrate from a frame of the starting position."""
    from vision.calibrate import calibrate

    image = RenderedCamera(scene, size=size).read()
    shown = json.loads(scene.read_text("utf-8"))["board"]
    start = table_log.event_from_json({"type": "board", **shown}).board
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    calibrate(image, game, start=start, players=players).save(
        folder / f"calibration-{game}.json"
    )


def _turn(s: dict[str, Any]) -> bool:
    return s["type"] == "turn"


def _play_turns(
    table: Harness, scene: Path, board: Any, turns: int, turn: dict[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """Play vegas Mensch by the table's signals: roll with the button, move, press done."""
    turn = turn or table.wait_for(_turn)
    for _ in range(turns):
        seat = turn["seat"]
        if turn["expect"] in ("roll", "roll_again"):
            table.press("press roll")
            seen: list[dict[str, Any]] = []
            turn = table.wait_for(_turn, seen=seen)
            die = [s["values"][0] for s in seen if s["type"] == "dice_accepted"][-1]
        if turn["expect"] == "move":
            pos = maedn.Position.from_board(board, seat, VEGAS, players=2)
            board = pos.apply(pos.legal_plays(die)[0], die).to_board()
            write_scene(scene, board)
            time.sleep(0.8)  # the board settles under the camera
            table.press(f"press done {seat}")
            turn = table.wait_for(_turn)
    return board, turn


def test_power_cut_mid_game_resumes_and_the_display_says_so(tmp_path: Path) -> None:
    config = _config(tmp_path)
    scene = tmp_path / "scene.json"
    board = maedn.Position.initial(VEGAS, players=2).to_board()
    write_scene(scene, board)
    _calibrate(tmp_path, scene, "maedn", 2)
    table = Harness(tmp_path, config, scene)
    try:
        board, last_turn = _play_turns(table, scene, board, turns=6)
        table.power_cut()
        table = Harness(tmp_path, config, scene)
        seen: list[dict[str, Any]] = []
        table.wait_for(lambda s: s["type"] == "notice" and s["key"] == RESUMED.key, seen=seen)
        turns = [s for s in seen if s["type"] == "turn"]
        assert turns and turns[-1] == last_turn
        assert not [s for s in seen if s["type"] == "turn" and s != last_turn]
        dump = tmp_path / "data" / "board.json"
        deadline = time.monotonic() + 10
        screen = ""
        while time.monotonic() < deadline and "Neustart" not in screen:
            screen = " ".join((read_dump(dump) or {}).get("lines", []))
            time.sleep(0.1)
        assert "Neustart" in screen, screen
        _play_turns(table, scene, board, turns=2, turn=last_turn)  # and the game goes on
    finally:
        table.stop()


@contextlib.contextmanager
def _running_table(
    tmp_path: Path, config: Path, scene: Path, players: int, size: tuple[int, int] = (960, 540)
) -> Iterator[tuple[Any, Collector]]:
    """The table program in a thread of this process (tests reach its mock pins directly)."""
    loaded = table_config.load(config)
    _calibrate(tmp_path, scene, loaded.game.game, players, size)
    seen = Collector()
    ready: queue.Queue[Any] = queue.Queue()

    def run() -> None:  # the journal (SQLite) lives in the thread that uses it, as on the table
        try:
            with contextlib.ExitStack() as stack:
                app = build_app(
                    loaded, stack, camera=lambda: RenderedCamera(scene, loaded.camera.fps, size)
                )
                app.pipeline.listeners.append(seen)
                ready.put(app)
                app.run()
        except BaseException as exc:
            ready.put(exc)
            raise

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    app = ready.get(timeout=30)
    if isinstance(app, BaseException):
        raise app
    try:
        yield app, seen
    finally:
        app.stop.set()
        thread.join(timeout=20)


def _notice(key: str) -> Callable[[Any], bool]:
    return lambda s: isinstance(s, Notice) and s.key == key


def _screen(path: Path, words: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = " ".join((read_dump(path) or {}).get("lines", []))
        if words in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"the display never said {words!r}; it says {text!r}")


def test_camera_unplugged_play_goes_on_with_buttons_and_judging_resumes(tmp_path: Path) -> None:
    """Without the camera the players confirm table-drawn dice and pass the turn with done
    (moves unchecked); the board the camera shows when it is back becomes the position, and the
    next move is judged from it."""
    config = _config(tmp_path, "maedn", "schmidt", 2, lost_after_s=1.0)
    scene = tmp_path / "scene.json"
    options = maedn.Options.preset("schmidt")
    pos = maedn.Position.initial(options, players=2)
    write_scene(scene, pos.to_board())
    with _running_table(tmp_path, config, scene, 2) as (app, seen):
        seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
        write_scene(scene, pos.to_board(), unplugged=True)
        seen.wait_for(_notice(CAMERA_LOST.key))
        _screen(tmp_path / "data" / "board.json", "Kamera fehlt")
        seat = 0
        for _ in range(3):  # three turns nobody can see
            press(app, "press roll")
            confirm = seen.wait_for(_notice(CONFIRM_DICE.key))
            dice = tuple(int(v) for v in dict(confirm.reason.params)["dice"].split())
            press(app, f"press done {seat}")
            assert seen.wait_for(lambda s: isinstance(s, DiceAccepted)) == DiceAccepted(seat, dice)
            assert seen.wait_for(lambda s: isinstance(s, Turn)) == Turn(seat, EXPECT_MOVE)
            moves = pos.legal_plays(dice[0])
            after = pos.apply(moves[0] if moves else None, dice[0])
            press(app, f"press done {seat}")
            seen.wait_for(_notice(PLAY_UNSEEN.key))
            seat = seen.wait_for(lambda s: isinstance(s, Turn)).seat
            pos = dataclasses.replace(after, turn=seat, tries_used=0)
        assert not any(isinstance(s, PlayAccepted | Illegal) for s in seen.signals)
        # The camera is back: the board it shows is taken, and judging goes on from it.
        write_scene(scene, pos.to_board())
        seen.wait_for(_notice(CAMERA_BACK.key))
        seen.wait_for(_notice(BOARD_TAKEN.key))
        write_scene(scene, pos.to_board(), dice=(2,))
        accepted = seen.wait_for(lambda s: isinstance(s, DiceAccepted))
        assert accepted.seat == seat
        die = accepted.values[0]  # what the camera read is what the referee holds them to
        assert pos.legal_plays(die), f"no move with {die} on {pos}"
        moved = pos.apply(pos.legal_plays(die)[0], die)
        write_scene(scene, moved.to_board(), dice=(die,))
        time.sleep(0.6)  # the board holds for the settle time
        press(app, f"press done {seat}")
        played = seen.wait_for(lambda s: isinstance(s, PlayAccepted | Illegal))
        assert isinstance(played, PlayAccepted) and played.seat == seat
        nxt = seen.wait_for(lambda s: isinstance(s, Turn))
        assert nxt.seat == moved.turn
        assert app.devices.seat_leds[nxt.seat].is_lit


def test_the_display_turns_between_what_is_wrong_and_what_to_do(tmp_path: Path) -> None:
    """A board set up wrong: the table says which fields differ AND to set up, one after the
    other on the display (the second used to hide the first at once); set right, the display
    stays on "please roll"."""
    config = _config(tmp_path, "maedn", "schmidt", 2, page_s=0.5)
    scene = tmp_path / "scene.json"
    start = maedn.Position.initial(maedn.Options.preset("schmidt"), players=2).to_board()
    write_scene(scene, start)
    dump = tmp_path / "data" / "board.json"
    with _running_table(tmp_path, config, scene, 2) as (_app, seen):
        seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
        wrong = dataclasses.replace(start, pieces=(start.pieces[0], (-1, -1, 5, 0)))
        write_scene(scene, wrong)
        differs = seen.wait_for(lambda s: isinstance(s, BoardDiffers))
        assert seen.wait_for(lambda s: isinstance(s, Turn)) == Turn(0, EXPECT_SETUP)
        for words in ("stimmt nicht", "aufstellen", "stimmt nicht", "aufstellen"):
            shown = _screen(dump, words)
        assert "stimmt nicht" not in shown
        assert all(field in _screen(dump, "Felder") for field in differs.fields)
        write_scene(scene, start)
        seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
        _screen(dump, "Bitte würfeln")
        time.sleep(1.5)  # three pages' time
        assert "Bitte würfeln" in _screen(dump, "Bitte würfeln", timeout=0.1)


def test_display_unplugged_leds_carry_on_and_the_screen_comes_back(tmp_path: Path) -> None:
    board_port, dump = tmp_path / "board", tmp_path / "board.json"
    emulator = subprocess.Popen(
        [sys.executable, "-m", "hardware.board_emulator", "--port", str(board_port),
         "--dump", str(dump), "--unplug-seconds", "3"],
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 10
        while not board_port.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        config = _config(tmp_path, port=str(board_port))
        scene = tmp_path / "scene.json"
        write_scene(scene, maedn.Position.initial(VEGAS, players=2).to_board())
        with _running_table(tmp_path, config, scene, 2) as (app, seen):
            seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
            _screen(dump, "ist dran")
            emulator.send_signal(signal.SIGUSR1)  # the cable is pulled
            time.sleep(0.5)
            press(app, "press roll")
            seen.wait_for(lambda s: isinstance(s, DiceAccepted))
            turn = seen.wait_for(lambda s: isinstance(s, Turn))
            assert not app.display.connected
            assert app.devices.seat_leds[turn.seat].is_lit
            assert not app.devices.seat_leds[1 - turn.seat].is_lit
            # Plugged in again, the board gets the whole current screen.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                state = read_dump(dump) or {}
                shown = tuple(line.rstrip() for line in state.get("lines", ()))
                wanted = tuple(line.rstrip() for line in app.display.screen())
                if state.get("boots") == 2 and shown == wanted:
                    break
                time.sleep(0.1)
            assert state.get("boots") == 2
            assert shown == wanted
            assert any(line.strip() for line in state["lines"])
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def test_stuck_dice_tray_sensor_is_reported_once_and_ignored(tmp_path: Path) -> None:
    config = _config(tmp_path)
    scene = tmp_path / "scene.json"
    write_scene(scene, maedn.Position.initial(VEGAS, players=2).to_board())
    with _running_table(tmp_path, config, scene, 2) as (app, seen):
        seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
        press(app, "press tray")
        time.sleep(0.3)
        assert sum(isinstance(e, DieThrown) for e in seen.events) == 1
        time.sleep(1.0)  # past the tray's quiet time
        pin = app.devices.dice_tray.pin
        pin.drive_low()  # and it stays active
        stuck = seen.wait_for(_notice(SENSOR_STUCK.key), timeout=10)
        _screen(tmp_path / "data" / "board.json", "klemmt")
        pin.drive_high()
        time.sleep(1.5)
        press(app, "press tray")
        time.sleep(0.3)
        assert sum(isinstance(e, DieThrown) for e in seen.events) == 2  # the one before it stuck
        assert [s for s in seen.signals if isinstance(s, Notice) and s.key == stuck.key] == [stuck]


def test_a_killed_render_worker_costs_the_simulated_table_no_frame(caplog) -> None:
    """The simulated table draws frames ahead in worker processes; one killed (out of memory,
    a stray signal) must not end the evening: the same frame is drawn in the table's process."""
    from vision.calibration import STANDARD_BACKGAMMON

    ahead = RenderAhead(320, 180, seed=3)
    try:
        first = Scene(STANDARD_BACKGAMMON, dice=(3, 5))
        assert ahead(first).shape == (180, 320, 3)  # the workers are running
        for pid in [p.pid for p in ahead._pool._processes.values()]:  # its worker processes
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        second = Scene(STANDARD_BACKGAMMON, dice=(6, 1), throw=1)
        with caplog.at_level("WARNING"):
            frame = ahead(second)
        assert (frame == SceneRenderer(320, 180, seed=3)(second)).all()
        assert "render worker lost" in caplog.text
        ahead.prefetch([Scene(STANDARD_BACKGAMMON, dice=(2, 2), throw=2)])  # no pool: no-op
    finally:
        ahead.close()


def test_the_display_boards_own_buttons_reach_the_referee(tmp_path: Path) -> None:
    """The cube's buttons are wired to the display board (the shipped pin map): a press there
    goes through the firmware's logic, the serial link and the table's event queue to the
    referee, like a press on the Pi's own pins."""
    config = _config(tmp_path, "backgammon", "standard", 2)
    scene = tmp_path / "scene.json"
    write_scene(scene, bg.Position.initial().to_board())
    inputs = tmp_path / "data" / "board-inputs"  # the emulated board's own buttons
    with _running_table(tmp_path, config, scene, 2) as (_app, seen):
        seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
        with inputs.open("a", encoding="utf-8") as board:
            board.write("0 1\n0 0\n")  # input 0 = double, pressed and let go
        refused = seen.wait_for(_notice(DOUBLE_BEFORE_ROLL.key))
        assert ButtonPressed(Button.DOUBLE, None, False, seen.events[-1].t) in seen.events
        _screen(tmp_path / "data" / "board.json", "Verdoppeln nur")
        assert refused.reason.en == "Double only before your own roll"


def test_a_wall_clock_jump_of_hours_mid_turn_fires_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pi without a real-time clock sets it by NTP some time after boot: the wall clock jumps
    by hours while a button is held. Neither the stuck-input watch nor the times in the events
    (which the settle time is measured by) notice; the game goes on."""
    config = _config(tmp_path)  # stuck after 3 s, camera lost after 5 s
    scene = tmp_path / "scene.json"
    write_scene(scene, maedn.Position.initial(VEGAS, players=2).to_board())
    wall, jump = time.time, [0.0]
    monkeypatch.setattr(time, "time", lambda: wall() + jump[0])  # before the table is built
    with _running_table(tmp_path, config, scene, 2) as (app, seen):
        seen.wait_for(lambda s: s == Turn(0, EXPECT_ROLL))
        before = seen.events[-1].t
        pin = app.devices.buttons[Button.UNDO].pin
        pin.drive_low()  # held for two seconds, across the jump
        time.sleep(1.0)
        jump[0] = 5 * 3600.0
        time.sleep(1.0)
        pin.drive_high()
        seen.wait_for(_notice(NOTHING_TO_UNDO.key))
        press(app, "press roll")
        seen.wait_for(lambda s: isinstance(s, DiceAccepted))
        assert not [s for s in seen.signals if isinstance(s, Notice)
                    and s.key in (SENSOR_STUCK.key, CAMERA_LOST.key)]
        assert all(before <= e.t < before + 60 for e in seen.events[-3:])
