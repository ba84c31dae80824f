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

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from controller.events import (
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    ElectronicRoll,
    Event,
    NewGame,
    ViewBlocked,
)
from controller.rules.reasons import Reason, reason
from controller.signals import EXPECT_CORRECT, BoardDiffers, GameOver, Illegal, Notice, Signal, Turn

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


def notice(why: Reason, detail: str = "") -> Notice:
    """A table Notice from a catalog reason (with an optional detail after a colon)."""
    suffix = f": {detail}" if detail else ""
    return Notice(key=why.key, text_de=why.de + suffix, text_en=why.en + suffix)


class Listener(Protocol):
    """Sees everything the pipeline sees, in order (the session recorder, the terminal view)."""

    def on_frame(self, t: float, image: np.ndarray) -> None: ...

    def on_event(self, event: Event, source: str) -> None: ...

    def on_signals(self, signals: list[Signal], origin: str) -> None: ...


class Stabilizer(Protocol):
    def feed(self, observation: Any, t: float) -> Any | None: ...


class Referee(Protocol):
    def handle(self, event: Any) -> list[Signal]: ...


def dice_of(observation: Any) -> tuple[tuple[int, bool], ...]:
    """The dice of an Observation as (value, cocked) pairs from left to right (0 = unread)."""
    readings = sorted(getattr(observation, "dice", ()) or (), key=lambda d: tuple(d.box))
    return tuple((int(d.value or 0), bool(d.cocked or d.value is None)) for d in readings)


@dataclass
class ObservationEvents:
    """Turns the stream of Observations into the few events the referee needs.

    The referee gets `ViewBlocked` once when a hand covers the board, `BoardObserved` when the
    stable board changed (and again after every block, so it knows the hand is gone), and
    `DiceObserved` when new dice come to rest. Dice that stay on the board while a player moves
    are not sent again; dice that are picked up and thrown again are, even with the same values.
    """

    board: Any = None
    dice: tuple[tuple[int, bool], ...] = ()
    blocked: bool = False

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
        dice = dice_of(stable)
        if not dice:
            self.dice = ()
        elif dice != self.dice:
            self.dice = dice
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
        self.dice = ()


@dataclass
class StuckInputFilter:
    """Drops events from an input that fires impossibly often: reported once, ignored after.

    A vibration sensor with a broken spring or a button shorted by a spilt drink would otherwise
    flood the referee. An input is identified by its event type, name and seat.
    """

    limit_per_s: int = 20
    stuck: set[tuple[Any, ...]] = field(default_factory=set)
    _recent: dict[tuple[Any, ...], list[float]] = field(default_factory=dict)

    def admit(self, event: Event) -> tuple[bool, Notice | None]:
        """(pass it on?, a Notice the first time the input is found stuck)."""
        if not isinstance(event, ButtonPressed | DieThrown):
            return True, None
        key = (type(event).__name__, getattr(event, "name", ""), getattr(event, "seat", None))
        if key in self.stuck:
            return False, None
        times = [t for t in self._recent.get(key, []) if event.t - t < 1.0]
        times.append(event.t)
        self._recent[key] = times
        if len(times) > self.limit_per_s:
            self.stuck.add(key)
            name = key[1] or "dice tray"
            log.warning("input %s fires %d times a second: stuck, ignored", key, len(times))
            return False, notice(SENSOR_STUCK, name)
        return True, None


class TablePipeline:
    """Frames and events to signals, deterministic: the same input gives the same signals."""

    def __init__(
        self,
        referee: Referee,
        read_frame: Callable[[np.ndarray], Any] | None = None,
        stabilizer: Stabilizer | None = None,
        journal: Any | None = None,
        listeners: Sequence[Listener] = (),
        electronic_die: Callable[[], int] | None = None,
    ) -> None:
        self.referee = referee
        self.electronic_die = electronic_die
        self.read_frame = read_frame
        self.stabilizer = stabilizer
        self.journal = journal
        self.listeners = list(listeners)
        self.observations = ObservationEvents()
        self.last_turn: Turn | None = None
        self.game_over = False
        self.frames = 0

    def feed_frame(self, t: float, image: np.ndarray) -> list[Signal]:
        """Read one camera frame; returns the signals the events it caused produced."""
        if self.read_frame is None or self.stabilizer is None:
            raise RuntimeError("this pipeline has no vision (read_frame and stabilizer)")
        self.frames += 1
        for listener in self.listeners:
            listener.on_frame(t, image)
        observation = self.read_frame(image)
        stable = self.stabilizer.feed(observation, t)
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
            self.game_over = False
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

        Returns what the table must show again: the resumed notice, the turn, and the rule
        broken if the players were in the middle of correcting the board.
        """
        if not events or not isinstance(events[0], NewGame):
            return None
        replayed: list[Signal] = []
        for event in events:
            if isinstance(event, DieThrown):
                self.observations.forget_dice()
            signals = list(self.referee.handle(event))
            self._note(signals)
            replayed += signals
        if self.game_over:
            return None
        out: list[Signal] = [notice(RESUMED)]
        if self.last_turn is not None and self.last_turn.expect == EXPECT_CORRECT:
            out += [s for s in replayed if isinstance(s, Illegal | BoardDiffers)][-1:]
        if self.last_turn is not None:
            out.append(self.last_turn)
        log.info("resumed a game of %d journaled events", len(events))
        return self.announce(out)
