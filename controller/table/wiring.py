"""Every part of the table the configuration names, made in one place and closed in one place.

The real table: gpiozero devices from the pin map, the display board on its serial port (its
own buttons and tray sensor report through it), the camera, the journal in the data folder.
The simulated table: the same devices on mock pins, the display firmware on a pseudo-terminal,
and the simulated players in the camera's place, filmed by the renderer or (without vision)
handing their boards to the referee directly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import queue
import random
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller import config as table_config
from controller.journal import Journal
from controller.referee import Referee
from controller.sim.camera import RenderAhead, SceneRenderer, measured_camera_heights
from controller.sim.session import SimulatedSession
from controller.sim.table import Habits, SimulatedTable
from controller.table.app import SignalSink, TableApp
from controller.table.camera_frames import CameraFrames
from controller.table.clock import TableClock
from controller.table.display_board import EmulatedDisplayBoard
from controller.table.game_vision import (
    CalibrationFiles,
    FrameCalibration,
    GameVision,
    calibration_path,
)
from controller.table.outputs import TableOutputs
from controller.table.own_set import FOLDER as OWN_SET_FOLDER
from controller.table.own_set import OwnSet, accepted_position
from controller.table.pipeline import Listener, TablePipeline, Vision
from controller.table.session_recorder import SessionRecorder
from controller.table.terminal_view import TerminalView
from controller.words.events import Event
from hardware import camera as cameras
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink
from hardware.input_events import BoardInputs, InputEvents
from hardware.pinmap import PinMap, load_pinmap

log = logging.getLogger(__name__)


def pin_factory(name: str) -> Any:
    """The gpiozero pin factory the configuration names (None = gpiozero's own choice)."""
    if name == "mock":
        return MockFactory(pin_class=MockPWMPin)
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory  # optional: lgpio exists on the Pi only

        return LGPIOFactory()
    return None


def camera_opener(config: table_config.Config) -> Callable[[], Any]:
    """Opens the configured camera (`hardware.camera`); raises when none answers."""
    cam = config.camera

    def open_camera() -> Any:
        return cameras.open_camera(cam.source, device=cam.device, width=cam.width,
                                   height=cam.height)

    return open_camera


def simulated_session(
    config: table_config.Config, stack: contextlib.ExitStack, filmed: bool
) -> SimulatedSession:
    """The configured games of the simulated players; `filmed`: as rendered camera frames."""
    sim = config.simulation
    habits = Habits(illegal_rate=sim.illegal_rate, hand_rate=sim.hand_rate,
                    cocked_rate=sim.cocked_rate, dim_rate=sim.dim_rate, purposeful=True)
    if filmed:  # dice read through a hand are a misreading the renderer cannot draw
        habits = dataclasses.replace(habits, stray_dice_rate=0.0)
    tables = (SimulatedTable(g.game, g.variant, g.players, sim.seed + i, habits)
              for i, g in enumerate(sim.games))
    render: Any = None
    if filmed and (os.cpu_count() or 1) > 1:
        render = RenderAhead(sim.width, sim.height, sim.seed)
        stack.callback(render.close)
    elif filmed:
        render = SceneRenderer(sim.width, sim.height, sim.seed)
    return SimulatedSession(tables, render, fps=config.camera.fps,
                            settle_s=config.camera.settle_ms / 1000.0,
                            max_turns=sim.max_turns, speed=sim.speed)


def _display(
    config: table_config.Config, stack: contextlib.ExitStack, folder: Path, pinmap: PinMap,
    inputs: queue.Queue[Event], clock: Callable[[], float],
) -> DisplayLink | None:
    """The display board's link; the board's own buttons and tray sensor report into
    `inputs`, like the Pi's."""
    if config.display.port == "none":
        return None
    port = config.display.port
    if port == "simulated":
        board = EmulatedDisplayBoard(folder)
        stack.callback(board.close)
        port = str(board.port)
    reports = BoardInputs(inputs, pinmap.board_input_names(), clock=clock,
                          long_press_s=pinmap.long_press_s, quiet_s=pinmap.dice_quiet_s)
    display = DisplayLink(port, baudrate=config.display.baudrate, on_sensor=reports)
    display.start()
    stack.callback(display.close)
    return display


def _recorder(
    config: table_config.Config, stack: contextlib.ExitStack, folder: str | Path, every: int,
    heights: dict[str, float],
) -> SessionRecorder:
    meta: dict[str, Any] = {
        "game": str(config.simulation.games[0]) if config.simulated else
        f"{config.game.game}/{config.game.variant}/{config.game.players}",
        "simulated": config.simulated, "settle_ms": config.camera.settle_ms,
        "skip_still_frames": config.camera.skip_still_frames, "config": config.source}
    if config.simulated:
        meta["camera_height_mm"] = heights
    recorder = stack.enter_context(SessionRecorder(folder, every, meta))
    if not config.simulated:
        for game in table_config.GAMES:
            source_file = calibration_path(config, game)
            if source_file.exists():
                shutil.copy(source_file, Path(folder) / f"calibration-{game}.json")
    return recorder


def build_app(
    config: table_config.Config,
    stack: contextlib.ExitStack,
    *,
    record: str | Path | None = None,
    record_every: int = 1,
    own_set: str | Path | None = None,
    stream: TextIO | None = None,
    live: bool | None = None,
    factory: Any = None,
    camera: Callable[[], Any] | None = None,
    without_vision: bool = False,
) -> TableApp:
    """Make every part of the table the configuration names; `stack` closes them in order.

    A recording (`record`) with vision keeps the own set (`controller.table.own_set`) in
    `own_set`, by default in the recording's `own-set` folder.
    `factory` replaces the configured gpiozero pin factory (tests pass their MockFactory),
    `camera` the function that opens the configured camera (tests open rendered frames);
    `without_vision` (simulated table only) hands the players' boards to the referee directly.
    PinMapError names a pin map that cannot be used, before any pin is touched.
    """
    pinmap = load_pinmap(config.pins.map or None)
    sim = config.simulation
    heights: dict[str, float] = {}
    if config.simulated:
        heights = measured_camera_heights(sim.seed, (sim.width, sim.height))
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="spieltisch-")))
    else:
        folder = config.data.path()
    journal = stack.enter_context(Journal.open(folder))
    if journal.damaged is not None:
        log.error("%s", journal.damaged)
    clock = TableClock(start=journal.last_time())
    pins = factory if factory is not None else pin_factory(config.pins.factory)
    devices = stack.enter_context(TableDevices(pinmap, pins))
    inputs: queue.Queue[Event] = queue.Queue()
    display = _display(config, stack, folder, pinmap, inputs, clock)
    outputs = TableOutputs(config, devices, display)
    listeners: list[Listener] = [outputs]
    sinks: list[SignalSink] = [outputs]
    if stream is not None:
        screen: Callable[[], Sequence[str]] | None = display.screen if display else None
        view = TerminalView(stream, config.language, config.seats.colours,
                            lights=outputs.lights, screen=screen, live=live)
        listeners.append(view)
        sinks.append(view)
    if record is not None:
        listeners.append(_recorder(config, stack, record, record_every, heights))
    vision: Vision | None = None
    if not (config.simulated and without_vision):
        calibration: Any = (FrameCalibration(heights) if config.simulated else
                            CalibrationFiles(lambda game: calibration_path(config, game)))
        vision = GameVision(config.camera.settle_ms / 1000.0, calibration,
                            config.camera.skip_still_frames)
    referee = Referee()
    if record is not None and isinstance(vision, GameVision):
        kept = OwnSet(own_set or Path(record) / OWN_SET_FOLDER,
                      lambda: accepted_position(referee))
        stack.callback(kept.close)
        listeners.append(kept)
        vision = kept.watch(vision)
    die = random.Random(sim.seed) if config.simulated else random.SystemRandom()
    pipeline = TablePipeline(referee, vision, journal, listeners,
                             electronic_die=lambda: die.randint(1, 6))
    if config.simulated:
        session = simulated_session(config, stack, filmed=vision is not None)
        return TableApp(config, pipeline, sinks, inputs, simulation=session, journal=journal,
                        devices=devices, display=display, clock=clock)
    buttons = InputEvents(devices, inputs, clock=clock)
    stack.callback(buttons.close)
    frames = CameraFrames(camera or camera_opener(config), clock)
    stack.callback(frames.close)
    return TableApp(config, pipeline, sinks, inputs, camera=frames, journal=journal,
                    devices=devices, display=display, clock=clock)
