"""Referee, journal and simulated-evening benchmarks (tables for docs/referee.md).

* per-event referee time over 100 simulated games of each game (target: median <= 0.2 ms,
  p99 <= 2 ms), also split by event type;
* journal append time in WAL mode with synchronous=NORMAL (the journal's default) and
  synchronous=FULL (its power-cut-proof option) (target: p99 <= 2 ms);
* simulated evenings: injected illegal plays flagged / missed, legal plays wrongly flagged.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.timing import print_table, summary
from controller import table_log
from controller.journal import Journal
from controller.referee import Referee
from controller.sim.evening import GAMES, play_game, run_evening
from controller.sim.table import Habits
from controller.words.events import Tick

GAMES_PER_KIND = 100
APPENDS = 2000


class TimedReferee:
    """The real referee, with the time of every `handle` call kept per event type."""

    def __init__(self) -> None:
        self.referee = Referee()
        self.samples: dict[str, list[float]] = defaultdict(list)

    def handle(self, event: Any) -> list[Any]:
        start = time.perf_counter()
        out = self.referee.handle(event)
        self.samples[table_log.event_to_json(event)["type"]].append(time.perf_counter() - start)
        return out


def _ms(seconds: float) -> float:
    return seconds * 1000.0


def referee_tables() -> None:
    rows = []
    by_type_rows = []
    for game, variant, players in (("backgammon", "standard", 2), ("maedn", "hofer", 4)):
        timed = TimedReferee()
        for seed in range(GAMES_PER_KIND):
            play_game(game, variant, seed, players, Habits(illegal_rate=0.1), referee=timed)
        every = [s for samples in timed.samples.values() for s in samples]
        median, p99 = summary(every)
        rows.append([f"{game} ({variant})", GAMES_PER_KIND, len(every), _ms(median), _ms(p99)])
        for kind, samples in sorted(timed.samples.items()):
            m, p = summary(samples)
            by_type_rows.append([game, kind, len(samples), _ms(m), _ms(p)])
    print_table(
        f"Referee time per event, {GAMES_PER_KIND} simulated games each (10% illegal plays)",
        ["game", "games", "events", "median ms", "p99 ms"],
        rows,
    )
    print_table(
        "Referee time per event type",
        ["game", "event", "events", "median ms", "p99 ms"],
        by_type_rows,
    )


def journal_table() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("normal", "full"):
            directory = Path(tmp) / sync
            with Journal.open(directory, sync=sync) as journal:
                samples = []
                for i in range(APPENDS):
                    event = Tick(t=float(i))
                    start = time.perf_counter()
                    journal.append(event)
                    samples.append(time.perf_counter() - start)
            median, p99 = summary(samples)
            rows.append([f"WAL, synchronous={sync.upper()}", APPENDS, _ms(median), _ms(p99)])
        rows.append(["(sqlite " + sqlite3.sqlite_version + ")", "", "", ""])
    print_table("Journal append (one committed transaction per event)",
                ["setting", "appends", "median ms", "p99 ms"], rows)


def evening_table() -> None:
    rows = []
    for game in ("backgammon", "maedn"):
        kinds = tuple(k for k in GAMES if k[0] == game)
        start = time.perf_counter()
        report = run_evening(GAMES_PER_KIND, seed=1000, illegal_rate=0.3, kinds=kinds).to_json()
        seconds = time.perf_counter() - start
        rows.append([
            game,
            report["games"],
            report["legal_plays"],
            report["injected"],
            report["flagged"],
            report["missed"],
            report["wrongly_flagged"],
            len(report["by_kind"]),
            seconds,
        ])
    print_table(
        f"Simulated evenings ({GAMES_PER_KIND} games per game, all variants, 30% illegal plays)",
        ["game", "games", "legal plays", "injected illegal", "flagged", "missed",
         "legal flagged", "kinds", "seconds"],
        rows,
    )


def main() -> None:
    referee_tables()
    journal_table()
    evening_table()


if __name__ == "__main__":
    main()
