"""The table program: camera frames and buttons in, the referee's signals out to the table.

    frames ─► vision (frame → Observation) ─► stabilizer ─► ObservationEvents ─┐
    buttons, sensors (gpiozero queue) ─► StuckInputFilter ──────────────────────┤
                                                                               ▼
                                  journal.append(event) ─► Referee.handle(event)
                                                                               │
             seat LEDs + buzzer · display board · terminal view · recorder ◄───┘

`TablePipeline` is the deterministic part (the same frames and events give the same signals:
`spieltisch replay` relies on it). `TableApp` adds the clock, the devices and the faults a table
survives: a camera unplugged (the players confirm dice with buttons), a display board unplugged
(its link resends the whole screen when it is back), a stuck sensor (reported once, then
ignored), and a power cut (the journal is replayed at the next start and the display says so).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
import queue
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from controller import config as table_config
from controller.frame_source import (
    CameraFrames,
    Frame,
    RenderAhead,
    SceneRenderer,
    SimulatedTable,
    electronic_die_game,
    measured_camera_heights,
)
from controller.words.buttons import Button
from controller.words.events import (
    BackgammonBoard,
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    ElectronicRoll,
    Event,
    MaednBoard,
    NewGame,
    PlayUnseen,
    ViewBlocked,
)
from controller.words.reasons import Reason, reason
from controller.words.signals import (
    EXPECT_CORRECT,
    BoardDiffers,
    GameOver,
    Illegal,
    Notice,
    Signal,
    Turn,
)

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

RESUMED = reason(
    "table.resumed",
    "Spiel nach Neustart fortgesetzt",
    "Game resumed after a restart",
)
CAMERA_LOST = reason(
    "table.camera_lost",
    "Kamera fehlt: Würfeln mit Taste, Steine werden nicht geprüft",
    "Camera lost: roll with the button, moves are not checked",
)
CAMERA_BACK = reason(
    "table.camera_back",
    "Kamera wieder da: das Brett wird wieder geprüft",
    "Camera is back: the board is checked again",
)
CONFIRM_DICE = reason(
    "table.confirm_dice",
    "Würfel bestätigen: Fertig drücken",
    "Confirm the dice: press done",
)
SENSOR_STUCK = reason(
    "table.sensor_stuck",
    "Sensor klemmt und wird ignoriert",
    "Sensor stuck, now ignored",
)
DISPLAY_LOST = reason(
    "table.display_lost",
    "Anzeige getrennt: LEDs zeigen weiter den Zug",
    "Display disconnected: the LEDs still show the turn",
)

SIGNAL_ORIGIN_REFEREE = "referee"
SIGNAL_ORIGIN_TABLE = "table"
SOURCE_JOURNAL = "journal"  # events (and their signals) replayed from the journal at start-up


def notice(why: Reason, detail: str = "") -> Notice:
    """A table Notice from a catalog reason (with an optional detail after a colon)."""
    suffix = f": {detail}" if detail else ""
    return Notice(key=why.key, text_de=why.de + suffix, text_en=why.en + suffix)


class Listener(Protocol):
    """Sees everything the pipeline sees, in order (the session recorder, the terminal view)."""

    def on_frame(self, t: float, image: np.ndarray) -> None: ...

    def on_event(self, event: Event, source: str) -> None: ...

    def on_signals(self, signals: list[Signal], origin: str) -> None: ...


class Vision(Protocol):
    """Frames to Observations for the game on the table (calibration, reader, stabilizer)."""

    def start_game(self, event: NewGame) -> None: ...

    def observe(self, image: np.ndarray, t: float) -> tuple[Any, Any | None]:
        """(this frame's Observation, the stable Observation or None)."""
        ...


class Referee(Protocol):
    def handle(self, event: Any) -> list[Signal]: ...


def _left_to_right(observation: Any) -> list[Any]:
    return sorted(getattr(observation, "dice", ()) or (), key=lambda d: tuple(d.box))


def dice_of(observation: Any) -> tuple[tuple[int, bool], ...]:
    """The dice of an Observation as (value, cocked) pairs from left to right (0 = unread)."""
    readings = _left_to_right(observation)
    return tuple((int(d.value or 0), bool(d.cocked or d.value is None)) for d in readings)


Place = tuple[float, float, float]  # a die's centre x, y and size in pixels


def places_of(observation: Any) -> tuple[Place, ...]:
    """Where the dice of an Observation lie, in the order of `dice_of`."""
    readings = _left_to_right(observation)
    return tuple(
        ((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2, max(d.box[2] - d.box[0], 1))
        for d in readings
    )


def any_die_stayed(now: Sequence[Place], before: Sequence[Place]) -> bool:
    """True when some die lies where a die lay before (within half a die): the same throw."""
    return any(
        math.dist(a[:2], b[:2]) < 0.5 * max(a[2], b[2]) for a in now for b in before
    )


@dataclass
class ObservationEvents:
    """Turns the stream of Observations into the few events the referee needs.

    The referee gets `ViewBlocked` once when a hand covers the board, `BoardObserved` when the
    stable board changed (and again after every block, so it knows the hand is gone), and
    `DiceObserved` when new dice come to rest. A die cannot change its face without moving:
    while any die lies where one lay before, it is the same throw (a reading that changes there
    is a misread, and two dice side by side may swap order); dice that all lie somewhere new, or
    any dice after the tray sensor felt a throw, are a new roll, even with the same values.
    """

    board: Any = None
    dice: tuple[tuple[int, bool], ...] = ()
    places: tuple[Place, ...] = ()
    blocked: bool = False
    physical_dice: bool = True  # False with the electronic die (`vegas`): nothing to read

    def update(self, observation: Any, stable: Any | None, t: float) -> list[Event]:
        out: list[Event] = []
        if getattr(observation, "blocked", False):
            if not self.blocked:
                self.blocked = True
                out.append(ViewBlocked(t=t))
            return out
        if stable is None or getattr(stable, "blocked", False):
            return out
        board = getattr(stable, "board", None)
        if board is not None and (board != self.board or self.blocked):
            self.board = board
            self.blocked = False
            out.append(BoardObserved(board=board, t=t))
        dice = dice_of(stable) if self.physical_dice else ()
        places = places_of(stable) if dice else ()
        if not dice:
            self.dice, self.places = (), ()
        elif not self.dice or not any_die_stayed(places, self.places):
            self.dice, self.places = dice, places
            out.append(
                DiceObserved(
                    values=tuple(v for v, _ in dice),
                    cocked=tuple(c for _, c in dice),
                    t=t,
                )
            )
        return out

    def forget_dice(self) -> None:
        """The tray sensor felt a throw: whatever comes to rest next is a new roll."""
        self.dice, self.places = (), ()


InputKey = tuple[str, str, int | None]
TRAY: InputKey = ("DieThrown", "", None)


def input_key(event: Event) -> InputKey:
    """Which physical input an event came from: its type, button name and seat."""
    return (type(event).__name__, getattr(event, "name", ""), getattr(event, "seat", None))


@dataclass
class StuckInputFilter:
    """Finds a stuck input, reports it once and ignores it after.

    Stuck is an input that fires impossibly often (a vibration sensor with a broken spring) or
    stays active far longer than any press or throw (a button shorted by a spilt drink).
    """

    limit_per_s: int = 10
    stuck_after_s: float = 10.0
    stuck: set[InputKey] = field(default_factory=set)
    _recent: dict[InputKey, list[float]] = field(default_factory=dict)
    _active_since: dict[InputKey, float] = field(default_factory=dict)

    def admit(self, event: Event) -> tuple[bool, Notice | None]:
        """(pass it on?, a Notice the first time the input is found stuck)."""
        if not isinstance(event, ButtonPressed | DieThrown):
            return True, None
        key = input_key(event)
        if key in self.stuck:
            return False, None
        times = [t for t in self._recent.get(key, []) if event.t - t < 1.0]
        times.append(event.t)
        self._recent[key] = times
        if len(times) > self.limit_per_s:
            log.warning("input %s fires %d times a second: stuck, ignored", key, len(times))
            return False, self._stuck(key)
        return True, None

    def watch(self, key: InputKey, active: bool, t: float) -> Notice | None:
        """Called with an input's level now and then: a Notice when it has been held too long."""
        if key in self.stuck or not active:
            self._active_since.pop(key, None)
            return None
        since = self._active_since.setdefault(key, t)
        if t - since < self.stuck_after_s:
            return None
        log.warning("input %s active for %.0f s: stuck, ignored", key, t - since)
        return self._stuck(key)

    def _stuck(self, key: InputKey) -> Notice:
        self.stuck.add(key)
        name = key[1] if key[1] else "dice tray"
        if key[2] is not None:
            name = f"{name} {key[2]}"
        return notice(SENSOR_STUCK, name)


class TablePipeline:
    """Frames and events to signals, deterministic: the same input gives the same signals."""

    def __init__(
        self,
        referee: Referee,
        vision: Vision | None = None,
        journal: Any | None = None,
        listeners: Sequence[Listener] = (),
        electronic_die: Callable[[], int] | None = None,
    ) -> None:
        self.referee = referee
        self.electronic_die = electronic_die
        self.vision = vision
        self.journal = journal
        self.listeners = list(listeners)
        self.observations = ObservationEvents()
        self.last_turn: Turn | None = None
        self.game_over = False
        self.frames = 0

    def feed_frame(self, t: float, image: np.ndarray) -> list[Signal]:
        """Read one camera frame; returns the signals the events it caused produced."""
        if self.vision is None:
            raise RuntimeError("this pipeline has no vision")
        self.frames += 1
        for listener in self.listeners:
            listener.on_frame(t, image)
        observation, stable = self.vision.observe(image, t)
        out: list[Signal] = []
        for event in self.observations.update(observation, stable, t):
            out += self.handle(event, "vision")
        return out

    def handle(self, event: Event, source: str = "input") -> list[Signal]:
        """Journal the event first (a power cut loses at most this one), then judge it."""
        if self.journal is not None:
            self.journal.append(event)
        if isinstance(event, DieThrown):
            self.observations.forget_dice()
        if isinstance(event, NewGame):
            self.start_game(event)
        for listener in self.listeners:
            listener.on_event(event, source)
        signals = list(self.referee.handle(event))
        self._note(signals)
        for listener in self.listeners:
            listener.on_signals(signals, SIGNAL_ORIGIN_REFEREE)
        if self.electronic_die is not None and any(
            s.type == "roll_electronic_die" for s in signals
        ):
            roll = ElectronicRoll(value=self.electronic_die(), t=getattr(event, "t", 0.0))
            signals += self.handle(roll, "table")
        return signals

    def start_game(self, event: NewGame) -> None:
        """A new game: vision looks at that game's board; nothing seen before counts."""
        self.game_over = False
        self.observations = ObservationEvents(physical_dice=not electronic_die_game(event))
        if self.vision is not None:
            self.vision.start_game(event)

    def announce(self, signals: list[Signal]) -> list[Signal]:
        """Signals of the table itself (camera lost, resumed): shown and recorded, not judged."""
        for listener in self.listeners:
            listener.on_signals(signals, SIGNAL_ORIGIN_TABLE)
        return signals

    def _note(self, signals: Iterable[Signal]) -> None:
        for signal in signals:
            if isinstance(signal, Turn):
                self.last_turn = signal
            elif isinstance(signal, GameOver):
                self.game_over = True

    def resume(self, events: Sequence[Event]) -> list[Signal] | None:
        """Replay an unfinished game's journaled events; None when there is nothing to resume.

        Returns what the table must show again: the rule broken if the players were correcting
        the board, the turn (for the seat LEDs), and the resumed notice (for the display).
        """
        if not events or not isinstance(events[0], NewGame):
            return None
        replayed: list[Signal] = []
        self.start_game(events[0])
        for event in events:
            if isinstance(event, DieThrown):
                self.observations.forget_dice()
            for listener in self.listeners:
                listener.on_event(event, SOURCE_JOURNAL)
            signals = list(self.referee.handle(event))
            self._note(signals)
            for listener in self.listeners:
                listener.on_signals(signals, SOURCE_JOURNAL)
            replayed += signals
        if self.game_over:
            return None
        out: list[Signal] = []
        if self.last_turn is not None and self.last_turn.expect == EXPECT_CORRECT:
            out += [s for s in replayed if isinstance(s, Illegal | BoardDiffers)][-1:]
        if self.last_turn is not None:
            out.append(self.last_turn)
        out.append(notice(RESUMED))  # last, so the display keeps saying it until play goes on
        log.info("resumed a game of %d journaled events", len(events))
        return self.announce(out)


class SignalSink(Protocol):
    """Something at the table that shows signals: seat LEDs and buzzer, display, terminal."""

    def show(self, signals: list[Signal]) -> None: ...

    def close(self) -> None: ...


@dataclass
class CameraLostMode:
    """Without a camera the dice come from the roll button and the players confirm them.

    The table draws the dice (a fair random source), shows them, and sends them to the referee
    when the seat on turn presses done. Moves cannot be seen: done after a move passes the turn
    unjudged (`PlayUnseen`); once the camera is back, the board it shows before the next roll
    becomes the position, and judging goes on from there.
    """

    dice_count: int
    rng: random.Random = field(default_factory=random.SystemRandom)
    proposed: tuple[int, ...] = ()

    def button(self, event: ButtonPressed, expect: str | None) -> tuple[list[Event], list[Signal]]:
        """(events for the referee, signals for the table) for one button press."""
        if event.name is Button.ROLL and expect in ("roll", "roll_again"):
            self.proposed = tuple(self.rng.randint(1, 6) for _ in range(self.dice_count))
            dice = " ".join(str(v) for v in self.proposed)
            return [], [notice(CONFIRM_DICE, dice)]
        if event.name is Button.DONE and self.proposed:
            dice, self.proposed = self.proposed, ()
            return [DiceObserved(values=dice, t=event.t)], []
        if event.name is Button.DONE and expect in ("move", "correct_board"):
            return [PlayUnseen(seat=event.seat, t=event.t)], []
        return [event], []


class TableApp:
    """Runs one table until stopped (real camera) or until the bots' games end (simulation)."""

    def __init__(
        self,
        config: table_config.Config,
        pipeline: TablePipeline,
        sinks: Sequence[SignalSink] = (),
        inputs: queue.Queue[Event] | None = None,
        camera: CameraFrames | None = None,
        simulation: SimulatedTable | None = None,
        journal: Any | None = None,
        clock: Callable[[], float] = time.time,
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
        self.clock = clock
        self.stuck = StuckInputFilter(config.pins.stuck_changes_per_s, config.pins.stuck_after_s)
        self.lost: CameraLostMode | None = None
        self.stop = threading.Event()
        self._failed_sinks: set[int] = set()
        self._vision_failed = False
        self.outputs: TableOutputs | None = None  # set by build_app, for tests and the view
        self.devices: Any = None
        self.display: Any = None

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

    def _run_simulation(self, sim: SimulatedTable) -> int:
        for item in sim.items():
            if self.stop.is_set():
                return 130
            signals = self._drain_inputs()
            if isinstance(item, Frame):
                signals += self.pipeline.feed_frame(item.t, item.image)
            else:
                signals += self.pipeline.handle(item, "input")
            self.show(signals)
            sim.on_signals(signals)
        stats = sim.stats
        log.info("simulation finished: %s", stats)
        return 0 if stats.lost == 0 else 1

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
            self.show(self.pipeline.handle(new_game, "table"))
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
                dice = 2 if game.game == "backgammon" else 1
                self.lost = CameraLostMode(dice_count=dice)
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

    def _watch_inputs(self, t: float) -> list[Signal]:
        devices = self.devices
        if devices is None:
            return []
        levels: list[tuple[InputKey, bool]] = [(TRAY, bool(devices.dice_tray.is_active))]
        levels += [(("ButtonPressed", n, None), b.is_pressed) for n, b in devices.buttons.items()]
        levels += [
            (("ButtonPressed", Button.DONE, seat), b.is_pressed)
            for seat, b in devices.done_buttons.items()
        ]
        found = [self.stuck.watch(key, active, t) for key, active in levels]
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
                    out += self.pipeline.handle(e, "input")
                continue
            out += self.pipeline.handle(event, "input")


def board_text(board: Any, colours: Sequence[str] = ()) -> list[str]:
    """The board as a few lines of text for the terminal view (what vision last read)."""
    if isinstance(board, BackgammonBoard):

        def cell(n: int) -> str:
            return f"{'W' if n > 0 else 'B'}{abs(n)}".rjust(3) if n else "  ."

        top = "".join(cell(board.points[i]) for i in range(12, 24))
        bottom = "".join(cell(board.points[i]) for i in range(11, -1, -1))
        return [
            " 13 14 15 16 17 18 19 20 21 22 23 24",
            top,
            bottom,
            " 12 11 10  9  8  7  6  5  4  3  2  1",
            f" bar W{board.bar_white} B{board.bar_black}   off W{board.off_white} "
            f"B{board.off_black}",
        ]
    if isinstance(board, MaednBoard):
        lines = []
        for seat, pieces in enumerate(board.pieces):
            name = colours[seat] if seat < len(colours) else f"seat {seat}"
            house = sum(1 for p in pieces if p < 0)
            track = [p for p in pieces if 0 <= p < 40]
            goal = [p - 39 for p in pieces if p >= 40]
            lines.append(f" {name:<7} house {house}  track {track}  goal {goal}")
        return lines
    return [" (no board read yet)"]


def signal_text(signal: Signal, language: str, seats: Any = None) -> str:
    """One line saying what a signal means: the display's words (`hardware.display_text`),
    whole, however many display pages they fill."""
    from hardware.display_text import message_for

    message = message_for(signal, language, seats)
    if message is None:
        fields = {k: v for k, v in signal.to_json().items() if k != "type"}
        return f"{signal.type} {fields}"
    return message.text()


class TerminalView:
    """The simulated table as a person watches it: board, seat LEDs, display lines, signals.

    On a terminal the screen is redrawn in place at most `fps` times a second; without one
    (a pipe, CI, systemd) every signal is printed on its own line instead.
    """

    def __init__(
        self,
        stream: Any,
        language: str = "de",
        seats: table_config.SeatsConfig | None = None,
        leds: Callable[[], Sequence[str]] | None = None,
        display: Callable[[], Sequence[str]] | None = None,
        live: bool | None = None,
        fps: float = 10.0,
        display_synced: Callable[[float], bool] | None = None,
    ) -> None:
        self.stream = stream
        self.display_synced = display_synced
        self.language = language
        self.seats = seats or table_config.SeatsConfig()
        self.colours: tuple[str, ...] = ()
        self.seat_names: Any = None
        self.leds = leds
        self.display = display
        self.live = stream.isatty() if live is None else live
        self.period = 1.0 / fps
        self.board: Any = None
        self.game = ""
        self.frames = 0
        self.recent: list[str] = []
        self._drawn = 0.0

    def on_frame(self, t: float, image: np.ndarray) -> None:
        self.frames += 1

    def on_event(self, event: Event, source: str) -> None:
        if isinstance(event, BoardObserved):
            self.board = event.board
        elif isinstance(event, NewGame):
            from hardware.seat_colours import SeatColours

            self.game = f"{event.game}/{event.variant}/{event.players}"
            self.board = None
            self.colours = self.seats.colours(event.game)
            self.seat_names = SeatColours.for_game(event.game, self.colours)
            if not self.live:
                self._print(f"== {self.game}")

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        if origin == SOURCE_JOURNAL:
            return  # the resumed game's past; the table shows where it stands
        for signal in signals:
            line = signal_text(signal, self.language, self.seat_names)
            self.recent = [*self.recent[-7:], line]
            if not self.live:
                self._print(f"[{origin}] {line}")

    def show(self, signals: list[Signal]) -> None:
        now = time.monotonic()
        if self.live and now - self._drawn >= self.period:
            self._drawn = now
            self.redraw()

    def redraw(self) -> None:
        lines = [f"Spieltisch  {self.game}  frame {self.frames}", ""]
        lines += board_text(self.board, self.colours)
        if self.leds is not None:
            lines += ["", "LEDs: " + "  ".join(self.leds())]
        if self.display is not None:
            lines += ["", "+" + "-" * 20 + "+"]
            lines += ["|" + row.ljust(20)[:20] + "|" for row in self.display()]
            lines += ["+" + "-" * 20 + "+"]
        lines += ["", *self.recent]
        self.stream.write("\x1b[H\x1b[J" + "\n".join(lines) + "\n")
        self.stream.flush()

    def _print(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live:
            if self.display_synced is not None:  # the last screen, not the one before it
                self.display_synced(2.0)
                time.sleep(0.05)
            self.redraw()


def add_play_arguments(parser: argparse.ArgumentParser, recording: bool = True) -> None:
    """The options of `spieltisch play`; `spieltisch record` takes them without --record."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help=f"configuration file (default: ${table_config.ENV_VAR}, else the simulated table)",
    )
    parser.add_argument("--game", choices=table_config.GAMES, help="play this game")
    parser.add_argument("--variant", help="rule variant of --game (a preset name)")
    parser.add_argument("--players", type=int, help="number of players of --game")
    parser.add_argument("--speed", type=float, help="simulation speed, 1 = real time, 0 = fastest")
    parser.add_argument("--seed", type=int, help="seed of the simulated players")
    parser.add_argument(
        "--illegal-rate", type=float, help="share of deliberately illegal plays of the bots"
    )
    parser.add_argument(
        "--colour",
        choices=("auto", "always", "never"),
        default="auto",
        help="redraw the table live in place (auto: only on a terminal)",
    )
    parser.add_argument("--lang", choices=table_config.LANGUAGES, help="language at the table")
    parser.add_argument("--data-dir", metavar="DIR", help="journal and calibration folder")
    if recording:
        parser.add_argument("--record", metavar="FOLDER", help="record the session into FOLDER")
        parser.add_argument(
            "--record-every", type=int, default=1, metavar="N", help="record every N-th frame"
        )


def config_from_args(args: argparse.Namespace) -> table_config.Config:
    """The configuration file with the command line's overrides applied (and checked)."""
    import dataclasses

    config = table_config.load(getattr(args, "config", None))
    game = config.game
    changed = {
        k: getattr(args, k)
        for k in ("game", "variant", "players")
        if getattr(args, k, None) is not None
    }
    if changed:
        name = changed.get("game", game.game)
        variant = changed.get("variant") or (
            game.variant if name == game.game else table_config.VARIANTS[name][0]
        )
        players = changed.get("players") or (
            game.players if name == game.game else table_config.PLAYERS[name][-1]
        )
        game = dataclasses.replace(game, game=name, variant=variant, players=players)
        sim = dataclasses.replace(
            config.simulation, games=(table_config.SimulatedGame(name, variant, players),)
        )
        config = dataclasses.replace(config, game=game, simulation=sim)
    sim_changes = {
        k: getattr(args, k)
        for k in ("speed", "seed", "illegal_rate")
        if getattr(args, k, None) is not None
    }
    if sim_changes:
        config = dataclasses.replace(
            config, simulation=dataclasses.replace(config.simulation, **sim_changes)
        )
    if getattr(args, "lang", None):
        config = dataclasses.replace(
            config, display=dataclasses.replace(config.display, language=args.lang)
        )
    if getattr(args, "data_dir", None):
        config = dataclasses.replace(config, data=table_config.DataConfig(args.data_dir))
    return table_config.validate(config)


class GameVision:
    """The vision pipeline for whichever game is on the table (one calibration per game).

    `calibration_for(event, first_image)` gives the game's calibration: on the table it loads
    the file `spieltisch calibrate` wrote; on the simulated table (and in a replay of it) it
    calibrates from the first frame of the game, which shows the starting position, exactly as a
    person calibrates a real table.
    """

    def __init__(
        self,
        settle_s: float,
        calibration_for: Callable[[NewGame, np.ndarray], Any],
        skip_still_frames: bool = True,
    ) -> None:
        from vision.change_gate import ChangeGate

        self.settle_s = settle_s
        self.calibration_for = calibration_for
        self.event: NewGame | None = None
        self.reader: Any = None
        self.stabilizer: Any = None
        self.gate = ChangeGate() if skip_still_frames else None
        self.last: Any = None  # the reading of the last frame read
        self.frames_read = 0
        self.frames_skipped = 0

    def start_game(self, event: NewGame) -> None:
        from vision.stabilizer import Stabilizer

        self.event = event
        self.reader = None
        self.last = None
        if self.gate is not None:
            self.gate.forget()
        self.stabilizer = Stabilizer(settle_s=self.settle_s)

    def observe(self, image: np.ndarray, t: float) -> tuple[Any, Any | None]:
        if self.event is None:
            raise RuntimeError("no game started: vision does not know which board to read")
        if self.reader is None:
            from vision.frame_reader import FrameReader

            calibration = self.calibration_for(self.event, image)
            self.reader = FrameReader(calibration, players=self.event.players)
        gate = self.gate
        if gate is not None and self.last is not None and gate.unchanged(image):
            self.frames_skipped += 1
            observation = self.last
        else:
            self.frames_read += 1
            observation = self.last = self.reader.read(image)
            if gate is not None:
                gate.read_done(image)
        return observation, self.stabilizer.feed(observation, t)


class FrameCalibration:
    """Calibrates from a frame of the starting position, as `spieltisch calibrate` does with a
    photo of it (the simulated table, its replays), told each game's camera height as its
    builder measured it (`frame_source.measured_camera_heights`; a game not named, as in
    recordings made before the heights were recorded: the 650 mm a builder who did not measure
    gets)."""

    def __init__(self, camera_heights_mm: dict[str, float] | None = None) -> None:
        self.camera_heights_mm = dict(camera_heights_mm or {})

    def __call__(self, event: NewGame, image: np.ndarray) -> Any:
        from vision.calibration import calibrate
        from vision.parallax import DEFAULT_CAMERA_HEIGHT_MM

        height = self.camera_heights_mm.get(event.game, DEFAULT_CAMERA_HEIGHT_MM)
        return calibrate(image, event.game, players=event.players, camera_height_mm=height)


def calibration_files(config: table_config.Config) -> Callable[[NewGame, np.ndarray], Any]:
    """The calibration `spieltisch calibrate` saved for each game (the real table)."""
    from vision.calibration import Calibration

    def load(event: NewGame, image: np.ndarray) -> Any:
        return Calibration.load(calibration_path(config, event.game))

    return load


def calibration_path(config: table_config.Config, game: str) -> Path:
    """Where the table looks for a game's calibration file."""
    if config.camera.calibration:
        return Path(config.camera.calibration).expanduser()
    return config.data.path() / f"calibration-{game}.json"


class TableOutputs:
    """Seat LEDs, buzzer, status LED and display board through `hardware.signal_outputs`.

    Listens for new games so that the seat colours follow the game on the table.
    """

    def __init__(self, config: table_config.Config, devices: Any, display: Any | None) -> None:
        self.config = config
        self.devices = devices
        self.display = display
        self.outputs = self._outputs(config.game.game)

    def _outputs(self, game: str) -> Any:
        from hardware.seat_colours import SeatColours
        from hardware.signal_outputs import SignalOutputs

        seats = SeatColours.for_game(game, self.config.seats.colours(game))
        return SignalOutputs(self.devices, seats, self.display, lang=self.config.language,
                             page_s=self.config.display.page_s)

    def on_frame(self, t: float, image: np.ndarray) -> None:
        return None

    def on_event(self, event: Event, source: str) -> None:
        if isinstance(event, NewGame):  # the seat colours change with the game
            self.outputs.close()
            self.outputs = self._outputs(event.game)

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        return None

    def show(self, signals: list[Signal]) -> None:
        self.outputs.apply_all(signals)

    def led_states(self) -> list[str]:
        """Each seat LED as the terminal shows it: seat number, colour value, lit or dark."""
        out = []
        for seat, led in enumerate(self.devices.seat_leds):
            r, g, b = (round(v, 1) for v in led.value)
            out.append(f"{seat}:{'on ' if led.is_lit else 'off'}({r:.1f},{g:.1f},{b:.1f})")
        return out

    def close(self) -> None:
        self.outputs.close()

    def __repr__(self) -> str:
        return "seat LEDs, buzzer and display"


class EmulatedDisplayBoard:
    """The display board's firmware logic on a pseudo-terminal (`hardware.board_emulator`).

    Runs as its own process, like the real board on its own microcontroller; `port` is the
    pseudo-terminal the link opens, `screen()` reads the emulated 20×4 screen back.
    """

    def __init__(self, folder: Path) -> None:
        import subprocess
        import sys

        self.port = folder / "board"
        self.dump = folder / "board.json"
        # The emulated board's own log goes to a file, out of the terminal view's way.
        self._log = (folder / "board.log").open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hardware.board_emulator",
                "--port",
                str(self.port),
                "--dump",
                str(self.dump),
            ],
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
        from hardware.board_emulator import read_dump

        state = read_dump(self.dump) or {}
        lines = state.get("lines") or ()
        return tuple(str(line) for line in lines)  # type: ignore[union-attr]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except Exception:  # it would not stop: make sure it does
                self.process.kill()
                self.process.wait()
        self._log.close()


def pin_factory(name: str) -> Any:
    """The gpiozero pin factory the configuration names (None = gpiozero's own choice)."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    return None


def build_app(
    config: table_config.Config,
    stack: contextlib.ExitStack,
    *,
    record: str | Path | None = None,
    record_every: int = 1,
    stream: Any = None,
    live: bool | None = None,
    factory: Any = None,
    camera: Callable[[], Any] | None = None,
) -> TableApp:
    """Make every part of the table the configuration names; `stack` closes them in order.

    `factory` replaces the configured gpiozero pin factory (tests pass their MockFactory),
    `camera` the function that opens the configured camera (tests open rendered frames).
    """
    from controller.journal import Journal
    from controller.referee import Referee
    from hardware.devices import TableDevices
    from hardware.display_link import DisplayLink
    from hardware.pinmap import load_pinmap

    referee = Referee()
    sim = config.simulation
    simulated_heights: dict[str, float] = {}
    if config.simulated:
        simulated_heights = measured_camera_heights(sim.seed, (sim.width, sim.height))
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="spieltisch-")))
        journal = stack.enter_context(Journal.open(folder))
    else:
        folder = config.data.path()
        journal = stack.enter_context(Journal.open(folder))
        if journal.damaged is not None:
            log.error("%s", journal.damaged)
    pins = factory if factory is not None else pin_factory(config.pins.factory)
    devices = stack.enter_context(TableDevices(load_pinmap(config.pins.map or None), pins))
    display = None
    screen: Callable[[], Sequence[str]] | None = None
    if config.display.port != "none":
        port = config.display.port
        if port == "simulated":
            board = EmulatedDisplayBoard(folder)
            stack.callback(board.close)
            port, screen = str(board.port), board.screen
        display = DisplayLink(port, baudrate=config.display.baudrate)
        display.start()
        stack.callback(display.close)
        screen = screen or display.screen
    outputs = TableOutputs(config, devices, display)
    listeners: list[Any] = [outputs]
    sinks: list[Any] = [outputs]
    if stream is not None:
        view = TerminalView(
            stream,
            config.language,
            seats=config.seats,
            leds=outputs.led_states,
            display=screen,
            live=live,
            display_synced=display.wait_synced if display is not None else None,
        )
        listeners.append(view)
        sinks.append(view)
    if record is not None:
        from controller.session_recorder import SessionRecorder

        meta = {"game": str(config.simulation.games[0]) if config.simulated else
                f"{config.game.game}/{config.game.variant}/{config.game.players}",
                "simulated": config.simulated, "settle_ms": config.camera.settle_ms,
                "skip_still_frames": config.camera.skip_still_frames,
                "config": config.source}
        if config.simulated:
            meta["camera_height_mm"] = simulated_heights
        recorder = stack.enter_context(SessionRecorder(record, record_every, meta))
        if not config.simulated:
            for game in table_config.GAMES:
                source_file = calibration_path(config, game)
                if source_file.exists():
                    shutil.copy(source_file, Path(record) / f"calibration-{game}.json")
        listeners.append(recorder)
    settle_s = config.camera.settle_ms / 1000.0
    calibration = (FrameCalibration(simulated_heights) if config.simulated
                   else calibration_files(config))
    vision = GameVision(settle_s, calibration, config.camera.skip_still_frames)
    die = random.Random(config.simulation.seed) if config.simulated else random.SystemRandom()
    pipeline = TablePipeline(
        referee,
        vision,
        journal,
        listeners,
        electronic_die=lambda: die.randint(1, 6),
    )
    inputs: queue.Queue[Event] = queue.Queue()
    if config.simulated:
        if (os.cpu_count() or 1) > 1:
            render: Any = RenderAhead(sim.width, sim.height, sim.seed)
            stack.callback(render.close)
        else:
            render = SceneRenderer(sim.width, sim.height, sim.seed)
        table = SimulatedTable(
            sim.games,
            render,
            fps=config.camera.fps,
            settle_s=settle_s,
            seed=sim.seed,
            illegal_rate=sim.illegal_rate,
            hand_rate=sim.hand_rate,
            cocked_rate=sim.cocked_rate,
            max_turns=sim.max_turns,
            speed=sim.speed,
        )
        app = TableApp(config, pipeline, sinks, inputs, simulation=table, journal=journal)
    else:
        from hardware.input_events import InputEvents

        buttons = InputEvents(devices, inputs, clock=time.time)
        stack.callback(buttons.close)
        frames = CameraFrames(camera or camera_opener(config))
        stack.callback(frames.close)
        app = TableApp(config, pipeline, sinks, inputs, camera=frames, journal=journal)
    app.outputs = outputs
    app.devices = devices
    app.display = display
    return app


def camera_opener(config: table_config.Config) -> Callable[[], Any]:
    """Opens the configured camera (`hardware.camera`); raises when none answers."""
    cam = config.camera

    def open_camera() -> Any:
        from hardware import camera

        return camera.open_camera(cam.source, device=cam.device, width=cam.width, height=cam.height)

    return open_camera


def run_play(args_or_config: argparse.Namespace | table_config.Config) -> int:
    """`spieltisch play`: run the table the configuration describes until it ends or is stopped.

    The simulated table (the default configuration) ends after its games with exit status 0,
    or 1 when a game got stuck; the real table runs until SIGTERM/SIGINT.
    """
    import signal as os_signal
    import sys

    args = args_or_config if isinstance(args_or_config, argparse.Namespace) else None
    try:
        config = config_from_args(args) if args is not None else args_or_config
    except table_config.ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    assert isinstance(config, table_config.Config)
    logging.basicConfig(
        level=logging.WARNING if config.simulated else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
    )
    record = getattr(args, "record", None)
    every = getattr(args, "record_every", 1) or 1
    with contextlib.ExitStack() as stack:
        live = {"always": True, "never": False}.get(getattr(args, "colour", "auto"))
        app = build_app(
            config, stack, record=record, record_every=every, stream=sys.stdout, live=live
        )
        previous = {
            sig: os_signal.signal(sig, lambda *_: app.stop.set())
            for sig in (os_signal.SIGTERM, os_signal.SIGINT)
        }
        try:
            status = app.run()
        finally:
            for sig, handler in previous.items():
                os_signal.signal(sig, handler)
        if app.simulation is not None:
            print(simulation_summary(app.simulation.stats))
    return status


def simulation_summary(stats: Any) -> str:
    """The end-of-run lines of the simulated table."""
    lines = [
        f"games {stats.games}: finished {stats.finished}, stuck {stats.lost}",
        f"plays accepted {stats.plays}, frames {stats.frames}, hands {stats.hands}, "
        f"cocked dice {stats.cocked}, rolls {stats.rolls} (read wrong {stats.dice_misread}; "
        f"asked again {stats.rerolls}, {stats.needless_rerolls} with no die cocked)",
        f"illegal plays injected {stats.illegal_injected}: flagged {stats.illegal_flagged}, "
        f"missed {stats.illegal_missed}; legal plays flagged {stats.legal_flagged}",
    ]
    lines += [f"stuck: {why}" for why in stats.lost_games]
    return "\n".join(lines)


def recorded_camera_heights(meta: dict[str, Any], source: Path) -> dict[str, float]:
    """The camera heights a simulated session was calibrated with (none in older recordings);
    `source` names the recording's session.json in the error."""
    from controller.session_recorder import RecordingError

    heights = meta.get("camera_height_mm", {})
    if not isinstance(heights, dict) or not all(
        isinstance(h, int | float) and not isinstance(h, bool) for h in heights.values()
    ):
        raise RecordingError(
            f"{source}: camera_height_mm must map each game to millimetres, got {heights!r}")
    return {str(game): float(h) for game, h in heights.items()}


def replay_pipeline(folder: str | Path) -> TablePipeline:
    """A pipeline like the recorded table's: same settle time and calibration, no devices."""
    from controller.referee import Referee
    from controller.session_recorder import read_meta

    meta = read_meta(folder)
    settle_s = float(meta.get("settle_ms", 300)) / 1000.0
    if meta.get("simulated", True):
        calibration: Callable[[NewGame, np.ndarray], Any] = FrameCalibration(
            recorded_camera_heights(meta, Path(folder) / "session.json"))
    else:
        from vision.calibration import Calibration

        def calibration(event: NewGame, image: np.ndarray) -> Any:
            return Calibration.load(Path(folder) / f"calibration-{event.game}.json")

    skip = bool(meta.get("skip_still_frames", True))
    return TablePipeline(Referee(), GameVision(settle_s, calibration, skip))
