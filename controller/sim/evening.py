"""Simulated evenings: whole games at the simulated table, judged by the real referee.

`run_game` is the table's pipeline without devices: the players' events go to the referee
(and the journal, when one is given) exactly as at the table, and the players see what it
says. It plays the electronic die from the game's random source (a table draws from
`random.SystemRandom`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from controller.referee import Referee, TableSettings
from controller.sim.session import MAX_EVENTS, SimulatedSession, SimulationStuck
from controller.sim.table import Habits, SimulatedTable, Tally
from controller.table.pipeline import EventLog, Judge, TablePipeline
from controller.words.events import Event
from controller.words.signals import GameOver, Signal

Listener = Callable[[Event, list[Signal]], None]


@dataclass
class GameReport:
    game: str
    variant: str
    seed: int
    events: int = 0
    result: GameOver | None = None
    tally: Tally = field(default_factory=Tally)


class _EachEvent:
    """A `Listener` callable as `listener(event, signals)` for every event judged."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.event: Event | None = None

    def on_frame(self, t: float, image: np.ndarray) -> None:
        return None

    def on_event(self, event: Event, source: str) -> None:
        self.event = event

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        assert self.event is not None
        self.listener(self.event, signals)


class _Counter:
    def __init__(self) -> None:
        self.events = 0

    def on_frame(self, t: float, image: np.ndarray) -> None:
        return None

    def on_event(self, event: Event, source: str) -> None:
        self.events += 1

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        return None


def run_game(
    source: SimulatedTable,
    referee: Judge | None = None,
    listener: Listener | None = None,
    journal: EventLog | None = None,
    die: random.Random | None = None,
    max_events: int = MAX_EVENTS,
) -> int:
    """Drive `source` through `referee` until the game ends; returns the events judged.
    SimulationStuck when the players can do nothing more before the game is over."""
    electronic = die if die is not None else random.SystemRandom()
    counter = _Counter()
    listeners: list[Any] = [counter] + ([_EachEvent(listener)] if listener else [])
    pipeline = TablePipeline(referee if referee is not None else Referee(), journal=journal,
                             listeners=listeners, electronic_die=lambda: electronic.randint(1, 6))
    session = SimulatedSession([source], patience=0, max_events=max_events)
    for event in session.items():
        session.on_signals(pipeline.handle(event))
    if not session.ok:
        raise SimulationStuck(f"{session.stats.lost_games[0]} ({counter.events} events)")
    return counter.events


def play_game(
    game: str,
    variant: str,
    seed: int,
    players: int = 4,
    habits: Habits | None = None,
    settings: TableSettings | None = None,
    referee: Judge | None = None,
    listener: Listener | None = None,
    journal: EventLog | None = None,
) -> GameReport:
    """One simulated game, deterministic for `seed` (the electronic die too)."""
    table = SimulatedTable(game, variant, players, seed, habits, settings)
    judge = referee if referee is not None else Referee(settings)
    events = run_game(table, judge, listener, journal, die=random.Random(seed ^ 0x5EED))
    return GameReport(game, variant, seed, events, table.result, table.tally)


@dataclass
class EveningReport:
    games: int = 0
    events: int = 0
    tally: Tally = field(default_factory=Tally)

    def to_json(self) -> dict[str, Any]:
        t = self.tally
        return {
            "games": self.games,
            "events": self.events,
            "legal_plays": t.legal_plays,
            "injected": sum(t.injected.values()),
            "flagged": sum(t.flagged.values()),
            "missed": sum(t.missed.values()),
            "wrongly_flagged": t.wrongly_flagged,
            "stray_dice": t.stray_dice,
            "stray_dice_accepted": t.stray_dice_accepted,
            "rerolls": t.cocked,
            "undos": t.undos,
            "doubles": t.doubles,
            "by_kind": {
                kind: {
                    "injected": t.injected[kind],
                    "flagged": t.flagged[kind],
                    "missed": t.missed[kind],
                }
                for kind in sorted(t.injected)
            },
        }


GAMES: tuple[tuple[str, str, int], ...] = (
    ("backgammon", "standard", 2),
    ("backgammon", "hofer", 2),
    ("maedn", "hofer", 4),
    ("maedn", "vegas", 4),
    ("maedn", "schmidt", 3),
    ("maedn", "openspiel", 2),
)


def run_evening(
    games: int,
    seed: int,
    illegal_rate: float = 0.3,
    kinds: tuple[tuple[str, str, int], ...] = GAMES,
    settings: TableSettings | None = None,
) -> EveningReport:
    """`games` games cycling through `kinds`, with illegal plays injected at `illegal_rate`."""
    report = EveningReport()
    habits = Habits(illegal_rate=illegal_rate)
    for i in range(games):
        game, variant, players = kinds[i % len(kinds)]
        one = play_game(game, variant, seed + i, players, habits, settings)
        report.games += 1
        report.events += one.events
        report.tally.add(one.tally)
    return report
