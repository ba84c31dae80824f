"""The deterministic heart of the table program: frames and events in, signals out.

    frame ─► vision (GameVision) ─► Observation ─► ObservationEvents ─┐
                                         unsure ─► BoardScoring ──────┤
    buttons, sensors, display-board reports (events) ─────────────────┤
                                                                      ▼
                         journal.append(event) ─► Referee.handle(event) ─► signals ─► listeners

The same frames and events give the same signals: `spieltisch replay` relies on it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from controller.referee import rule_options
from controller.rules.games import Game, game_named
from controller.table.board_scoring import BoardScoring, TurnBoards
from controller.table.notices import BOARD_FOUND, BOARD_MOVED, RESUMED, notice
from controller.table.observation_events import ObservationEvents
from controller.words.events import BoardObserved, DieThrown, ElectronicRoll, Event, NewGame
from controller.words.signals import (
    EXPECT_CORRECT,
    BoardDiffers,
    GameOver,
    Illegal,
    RollElectronicDie,
    Signal,
    Turn,
)
from vision.observation import MOVED

log = logging.getLogger(__name__)

SIGNAL_ORIGIN_REFEREE = "referee"
SIGNAL_ORIGIN_TABLE = "table"
SOURCE_JOURNAL = "journal"  # events (and their signals) replayed from the journal at start-up


class Listener(Protocol):
    """Sees everything the pipeline sees, in order (the session recorder, the terminal view)."""

    def on_frame(self, t: float, image: np.ndarray) -> None: ...

    def on_event(self, event: Event, source: str) -> None: ...

    def on_signals(self, signals: list[Signal], origin: str) -> None: ...


class Vision(Protocol):
    """Frames to Observations for the game on the table (calibration, reader, stabilizer)."""

    settle_s: float  # how long a reading must hold before it counts

    def start_game(self, event: NewGame) -> None: ...

    def observe(self, image: np.ndarray, t: float) -> tuple[Any, Any | None]:
        """(this frame's Observation, the stable Observation or None)."""
        ...

    def accepted(self, image: np.ndarray, board: Any) -> bool:
        """`image` shows `board`, the position the referee holds (a labelled frame)."""
        ...

    def moved(self, image: np.ndarray, board: Any, t: float) -> bool | None:
        """The board is not where the calibration saw it in `image`; `board` is the position
        the referee holds (what the frame should show): find the board again. True when
        found, False when looked for in vain, None when not looked for this frame."""
        ...


class Judge(Protocol):
    def handle(self, event: Any) -> list[Signal]: ...


class EventLog(Protocol):
    def append(self, event: Any) -> int: ...


class TablePipeline:
    """Frames and events to signals, deterministic: the same input gives the same signals.

    `electronic_die` draws the electronic die's value when the referee asks for it (a fair
    source at the table, a seeded one in the simulator); the value is judged and journaled as
    an `ElectronicRoll`, so a replay rolls the same. A board read unsurely is held against the
    legal results of the open turn (`BoardScoring`) when the referee can name them.
    """

    def __init__(
        self,
        referee: Judge,
        vision: Vision | None = None,
        journal: EventLog | None = None,
        listeners: Sequence[Listener] = (),
        electronic_die: Callable[[], int] | None = None,
    ) -> None:
        self.referee = referee
        self.electronic_die = electronic_die
        self.vision = vision
        self.journal = journal
        self.listeners = list(listeners)
        self.observations = ObservationEvents()
        self.scoring = BoardScoring(vision.settle_s if vision is not None else 0.0)
        self.rules: Game | None = None  # the game on the table (dice per roll, ...)
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
        if getattr(observation, "problem", "") == MOVED and isinstance(self.referee, TurnBoards):
            found = self.vision.moved(image, self.referee.position_board(), t)
            if found is not None:
                out += self.announce([notice(BOARD_FOUND if found else BOARD_MOVED)])
        events = self.observations.update(observation, stable, t)
        for event in events + self._scored(observation, t):
            signals = self.handle(event, "vision")
            out += signals
            if isinstance(event, BoardObserved) and self._holds(event.board, signals):
                self.vision.accepted(image, event.board)
        return out

    def _holds(self, board: Any, signals: list[Signal]) -> bool:
        """The referee holds `board` as the position: the frame showing it is labelled."""
        return (isinstance(self.referee, TurnBoards) and board == self.referee.position_board()
                and not any(isinstance(s, Illegal | BoardDiffers) for s in signals))

    def _scored(self, observation: Any, t: float) -> list[Event]:
        """What the legal results of the open turn make of an unsure reading."""
        if not isinstance(self.referee, TurnBoards):
            return []
        found = self.scoring.update(observation, self.referee, t)
        for event in found:
            # the referee now holds this board (or a choice): the next sure reading is news
            self.observations.board = event.board if isinstance(event, BoardObserved) else None
        return found

    def handle(self, event: Event, source: str = "input") -> list[Signal]:
        """Journal the event first (a power cut loses at most this one), then judge it."""
        if self.journal is not None:
            self.journal.append(event)
        signals = self._judge(event, source, SIGNAL_ORIGIN_REFEREE)
        if self.electronic_die is not None and any(isinstance(s, RollElectronicDie)
                                                   for s in signals):
            roll = ElectronicRoll(value=self.electronic_die(), t=event.t)
            signals += self.handle(roll, SIGNAL_ORIGIN_TABLE)
        return signals

    def _judge(self, event: Event, source: str, origin: str) -> list[Signal]:
        if isinstance(event, DieThrown):
            self.observations.forget_dice()
        if isinstance(event, NewGame):
            self.start_game(event)
        for listener in self.listeners:
            listener.on_event(event, source)
        signals = list(self.referee.handle(event))
        self._note(signals)
        for listener in self.listeners:
            listener.on_signals(signals, origin)
        return signals

    def start_game(self, event: NewGame) -> None:
        """A new game: vision looks at that game's board; nothing seen before counts."""
        self.game_over = False
        try:
            self.rules = game_named(event.game)
            electronic = rule_options(event).electronic_die
        except ValueError:  # the referee names what is wrong with the event
            electronic = False
        self.observations = ObservationEvents(physical_dice=not electronic)
        self.scoring.forget()
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
        for event in events:
            replayed += self._judge(event, SOURCE_JOURNAL, SOURCE_JOURNAL)
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
