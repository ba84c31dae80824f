"""Simulated evenings: whole games at the simulated table, judged by the real referee.

`run_game` is the table loop in miniature: events from a source go to the referee (and the
journal, when one is given), signals go back to the source and to any listener. It also plays
the electronic die: a `roll_electronic_die` signal is answered with an `ElectronicRoll` event
drawn from the game's random source (a table draws from `random.SystemRandom`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.referee import Referee
from controller.referee.turns import TableSettings
from controller.sim.table import EventSource, Habits, SimulatedTable, Tally
from controller.words.events import ElectronicRoll, Event
from controller.words.signals import GameOver, RollElectronicDie, Signal

log = logging.getLogger(__name__)

MAX_EVENTS = 50_000

Listener = Callable[[Event, list[Signal]], None]


class Judge(Protocol):
    def handle(self, event: Any) -> list[Signal]: ...


class SimulationStuck(RuntimeError):
    """The simulated table stopped producing events before the game ended."""


class EventLog(Protocol):
    def append(self, event: Any) -> int: ...


@dataclass
class GameReport:
    game: str
    variant: str
    seed: int
    events: int = 0
    result: GameOver | None = None
    tally: Tally = field(default_factory=Tally)


def run_game(
    source: EventSource,
    referee: Judge | None = None,
    listener: Listener | None = None,
    journal: EventLog | None = None,
    die: random.Random | None = None,
    max_events: int = MAX_EVENTS,
) -> int:
    """Drive `source` through `referee` until the source is finished; returns the event count."""
    judge = referee if referee is not None else Referee()
    electronic = die if die is not None else random.SystemRandom()
    pending = source.start()
    count = 0
    while pending:
        collected: list[Signal] = []
        for event in pending:
            queue = [event]
            while queue:
                current = queue.pop(0)
                if journal is not None:
                    journal.append(current)
                signals = judge.handle(current)
                count += 1
                if listener is not None:
                    listener(current, signals)
                collected += signals
                for signal in signals:
                    if isinstance(signal, RollElectronicDie):
                        queue.append(ElectronicRoll(electronic.randint(1, 6), t=current.t))
        if count > max_events:
            raise SimulationStuck(f"no end after {count} events")
        pending = source.react(collected)
    if not source.finished:
        raise SimulationStuck(f"the table stopped after {count} events without a game over")
    return count


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
            "rerolls": t.rerolls,
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
