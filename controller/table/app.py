"""The table program's main loop: the clock, the devices and the faults a table survives.

`TablePipeline` is the deterministic part; `TableApp` feeds it from the camera and the input
queue (buttons and sensors on the Pi's pins and on the display board), shows what comes out,
and keeps playing through a camera unplugged (the players confirm dice with buttons), a
display board unplugged (its link resends the whole screen when it is back), a stuck sensor
(reported once, then ignored) and a power cut (the journal is replayed at the next start and
the display says so). On the simulated table the players' games take the camera's place.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

from controller.config import Config
from controller.journal import Journal
from controller.referee import Referee
from controller.table.camera_frames import CameraFrames, Frame
from controller.table.camera_lost import CameraLostMode
from controller.table.clock import TableClock
from controller.table.notices import CAMERA_BACK, CAMERA_LOST, match_notices, notice
from controller.table.pipeline import TablePipeline
from controller.table.stuck_inputs import TRAY, InputKey, StuckInputFilter
from controller.words.buttons import Button
from controller.words.events import ButtonPressed, Event, NewGame
from controller.words.signals import Signal
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink

log = logging.getLogger(__name__)


class SignalSink(Protocol):
    """Something at the table that shows signals: seat LEDs and buzzer, display, terminal."""

    def show(self, signals: list[Signal]) -> None: ...

    def close(self) -> None: ...


class Simulation(Protocol):
    """The simulated players in the camera's place (`controller.sim.session`)."""

    def items(self) -> Iterator[Frame | Event]: ...

    def on_signals(self, signals: list[Signal]) -> None: ...

    @property
    def ok(self) -> bool: ...

    def summary(self) -> str: ...


class TableApp:
    """Runs one table until stopped (real camera) or until the simulated games end.

    Exactly one of `camera` and `simulation` feeds it. `devices` (watched for stuck inputs)
    and `display` are the table's hardware; `clock` stamps every event the table makes
    (monotonic, see `clock.TableClock`).
    """

    def __init__(
        self,
        config: Config,
        pipeline: TablePipeline,
        sinks: Sequence[SignalSink] = (),
        inputs: queue.Queue[Event] | None = None,
        camera: CameraFrames | None = None,
        simulation: Simulation | None = None,
        journal: Journal | None = None,
        devices: TableDevices | None = None,
        display: DisplayLink | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if (camera is None) == (simulation is None):
            raise ValueError("a table needs exactly one of camera and simulation")
        self.config = config
        self.pipeline = pipeline
        self.sinks = list(sinks)
        self.inputs: queue.Queue[Event] = inputs if inputs is not None else queue.Queue()
        self.camera = camera
        self.simulation = simulation
        self.journal = journal
        self.devices = devices
        self.display = display
        self.clock = clock if clock is not None else TableClock()
        self.stuck = StuckInputFilter(config.pins.stuck_changes_per_s, config.pins.stuck_after_s)
        self.lost: CameraLostMode | None = None
        self.stop = threading.Event()
        self._failed_sinks: set[int] = set()
        self._vision_failed = False

    def show(self, signals: list[Signal]) -> None:
        """Hand signals to every sink; a sink that fails (unplugged) never stops the table."""
        if not signals:
            return
        for sink in self.sinks:
            try:
                sink.show(signals)
                self._failed_sinks.discard(id(sink))
            except Exception as exc:  # a device error must not end the game
                if id(sink) not in self._failed_sinks:
                    log.error("%s failed, the table goes on without it: %s", sink, exc)
                self._failed_sinks.add(id(sink))

    def run(self) -> int:
        """The main loop; returns the exit status for the command line."""
        try:
            if self.simulation is not None:
                return self._run_simulation(self.simulation)
            return self._run_table()
        finally:
            for sink in self.sinks:
                try:
                    sink.close()
                except Exception as exc:  # closing a vanished device: nothing left to do
                    log.debug("closing %s: %s", sink, exc)

    def handle(self, event: Event, source: str = "input") -> list[Signal]:
        """Judge one event; when it started a game of a match, the table adds the score."""
        signals = self.pipeline.handle(event, source)
        started = isinstance(event, NewGame) or (
            isinstance(event, ButtonPressed) and event.name is Button.NEW_GAME)
        if started and isinstance(self.pipeline.referee, Referee):
            signals += self.pipeline.announce(match_notices(self.pipeline.referee.match))
        return signals

    def _run_simulation(self, sim: Simulation) -> int:
        for item in sim.items():
            if self.stop.is_set():
                return 130
            signals = self._drain_inputs()
            if isinstance(item, Frame):
                signals += self.pipeline.feed_frame(item.t, item.image)
            else:
                signals += self.handle(item)
            self.show(signals)
            sim.on_signals(signals)
        return 0 if sim.ok else 1

    def _run_table(self) -> int:
        assert self.camera is not None
        game = self.config.game
        events = self.journal.current_game() if self.journal is not None else []
        resumed = self.pipeline.resume(events)
        if resumed is not None:
            self.show(resumed)
        else:
            new_game = NewGame(
                game=game.game,
                variant=game.variant,
                players=game.players,
                match_length=game.match_length,
                t=self.clock(),
            )
            self.show(self.handle(new_game, "table"))
        last_frame = self.clock()
        period = 1.0 / self.config.camera.fps
        while not self.stop.is_set():
            frame = self.camera.read()
            now = self.clock()
            self.show(self._watch_inputs(now))
            self.show(self._drain_inputs())
            if frame is not None and self._read(frame):
                last_frame = now
                continue
            if self.lost is None and now - last_frame >= self.config.camera.lost_after_s:
                rules = self.pipeline.rules
                self.lost = CameraLostMode(dice_count=rules.dice if rules else 1)
                self.show(self.pipeline.announce([notice(CAMERA_LOST)]))
            self.stop.wait(period)
        return 0

    def _read(self, frame: Frame) -> bool:
        """Run a frame through vision; False when vision cannot read it (no calibration yet, a
        broken calibration file): the table then goes on as without a camera."""
        try:
            signals = self.pipeline.feed_frame(frame.t, frame.image)
        except Exception as exc:  # vision failing must not end the game: buttons take over
            if not self._vision_failed:
                log.error("vision cannot read the camera's frames: %s", exc)
            self._vision_failed = True
            return False
        if self._vision_failed:
            log.warning("vision reads frames again")
        self._vision_failed = False
        self.show(self._camera_back())
        self.show(signals)
        return True

    def _camera_back(self) -> list[Signal]:
        if self.lost is None:
            return []
        self.lost = None
        self.pipeline.observations.board = None  # the next stable board is news to the referee
        return self.pipeline.announce([notice(CAMERA_BACK)])

    def _levels(self) -> Iterable[tuple[InputKey, bool]]:
        devices = self.devices
        if devices is None:
            return
        yield TRAY, bool(devices.dice_tray.is_active)
        for name, button in devices.buttons.items():
            yield ("ButtonPressed", name, None), button.is_pressed
        for seat, button in devices.done_buttons.items():
            yield ("ButtonPressed", Button.DONE, seat), button.is_pressed

    def _watch_inputs(self, t: float) -> list[Signal]:
        found = [self.stuck.watch(key, active, t) for key, active in self._levels()]
        return self.pipeline.announce([n for n in found if n is not None])

    def _drain_inputs(self) -> list[Signal]:
        out: list[Signal] = []
        while True:
            try:
                event = self.inputs.get_nowait()
            except queue.Empty:
                return out
            admitted, stuck = self.stuck.admit(event)
            if stuck is not None:
                out += self.pipeline.announce([stuck])
            if not admitted:
                continue
            if self.lost is not None and isinstance(event, ButtonPressed):
                expect = self.pipeline.last_turn.expect if self.pipeline.last_turn else None
                events, signals = self.lost.button(event, expect)
                out += self.pipeline.announce(signals)
                for e in events:
                    out += self.handle(e)
                continue
            out += self.handle(event)

