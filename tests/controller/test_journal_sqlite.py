"""The journal: real SQLite files, a real writer process killed with SIGKILL."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller import table_log
from controller.journal import FILENAME, Journal
from controller.referee import Referee
from controller.sim.evening import play_game
from controller.sim.table import Habits
from controller.words.events import ButtonPressed, DiceObserved, NewGame, Tick

ROOT = Path(__file__).resolve().parents[2]

# The child resumes from the journal (checking it is a prefix of the script), then appends the
# rest of the script while the referee judges each event, printing each sequence number once
# the append returned (= is durable).
CHILD = """
import sys
from controller.journal import Journal
from controller.referee import Referee
from controller import table_log
script, data = sys.argv[1], sys.argv[2]
lines = open(script, encoding="utf-8").read().splitlines()
journal = Journal.open(data)
done = [table_log.dumps(e) for e in journal.events()]
if done != lines[: len(done)]:
    sys.exit(3)
referee = Referee()
referee.replay(table_log.parse_line(x) for x in done)
print("resumed", len(done), flush=True)
for line in lines[len(done):]:
    event = table_log.parse_line(line)
    seq = journal.append(event)
    referee.handle(event)
    print(seq, flush=True)
print("finished", flush=True)
"""


def test_append_and_read_back_in_order(tmp_path: Path) -> None:
    events = [
        NewGame("backgammon", "standard"),
        DiceObserved((3, 1), t=1.5),
        ButtonPressed("done", seat=0, t=2.0),
        NewGame("maedn", "vegas", players=4, t=3.0),
        Tick(t=4.0),
    ]
    with Journal.open(tmp_path) as journal:
        seqs = [journal.append(e) for e in events]
        assert seqs == [1, 2, 3, 4, 5]
    with Journal.open(tmp_path) as journal:
        assert list(journal.events()) == events
        assert journal.current_game() == events[3:]
        assert journal.damaged is None


def test_journal_is_in_wal_mode(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        journal.append(Tick())
    db = sqlite3.connect(tmp_path / FILENAME)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


@pytest.mark.parametrize(("sync", "level"), [("normal", "NORMAL"), ("full", "FULL")])
def test_durability_setting_is_applied(tmp_path: Path, sync: str, level: str) -> None:
    with Journal.open(tmp_path, sync=sync) as journal:
        assert journal.synchronous == level


def test_unknown_durability_setting_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fast"):
        Journal.open(tmp_path, sync="fast")


def test_garbage_file_is_moved_aside_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / FILENAME
    garbage = b"this is not an SQLite database" * 100
    path.write_bytes(garbage)
    journal = Journal.open(tmp_path)
    assert journal.damaged is not None
    assert journal.damaged.moved_to == tmp_path / f"{FILENAME}.damaged-1"
    assert str(path) in str(journal.damaged) and "moved aside" in str(journal.damaged)
    assert journal.damaged.moved_to.read_bytes() == garbage
    assert journal.count() == 0
    journal.close()
    path.write_bytes(garbage[:500])
    second = Journal.open(tmp_path)
    assert second.damaged is not None
    assert second.damaged.moved_to.name == f"{FILENAME}.damaged-2"
    assert (tmp_path / f"{FILENAME}.damaged-1").read_bytes() == garbage
    second.close()


def test_row_that_is_not_an_event_moves_journal_aside(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        journal.append(NewGame("backgammon"))
    db = sqlite3.connect(tmp_path / FILENAME)
    db.execute("INSERT INTO events (type, line) VALUES ('dice', '{\"type\": \"dice\"}')")
    db.commit()
    db.close()
    journal = Journal.open(tmp_path)
    assert journal.damaged is not None and "event 2" in journal.damaged.why
    assert journal.count() == 0
    kept = sqlite3.connect(journal.damaged.moved_to)
    assert kept.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2
    kept.close()
    journal.close()


def _script(tmp_path: Path) -> list[str]:
    events: list = []
    habits = Habits(illegal_rate=0.2)
    for seed in range(3):  # several games in one journal, as on a long evening
        play_game("maedn", "hofer", seed, 4, habits, listener=lambda e, s: events.append(e))
    lines = [table_log.dumps(e) for e in events]
    (tmp_path / "script.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def _start_child(tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path / "script.jsonl"), str(tmp_path / "data")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_at_most_the_event_being_written(tmp_path: Path) -> None:
    lines = _script(tmp_path)
    rng = random.Random(20261130)
    kills = straight_at = 0
    straight = Referee()  # the uninterrupted game, advanced alongside the journal
    while kills < 50:
        child = _start_child(tmp_path)
        assert child.stdout is not None
        first = child.stdout.readline()
        assert first.startswith("resumed"), first
        resumed_at = int(first.split()[1])
        if resumed_at == len(lines):
            pytest.fail("the script ended before 50 kills; make it longer")
        begun = child.stdout.readline().strip()
        assert begun.isdigit()  # the writing has begun
        time.sleep(rng.uniform(0.0, 0.005))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        out = child.stdout.read()  # includes what readline() already buffered
        child.stdout.close()
        kills += 1
        acked_lines = [x for x in out.split("\n")[:-1] if x.isdigit()]  # complete lines only
        acked = int(acked_lines[-1]) if acked_lines else int(begun)
        with Journal.open(tmp_path / "data") as journal:
            assert journal.damaged is None
            stored = [table_log.dumps(e) for e in journal.events()]
        assert acked <= len(stored) <= acked + 1
        assert stored == lines[: len(stored)]
        straight.replay(table_log.parse_line(x) for x in lines[straight_at : len(stored)])
        straight_at = len(stored)
        if kills % 10 == 0:  # a full replay each time would make the test quadratic
            resumed = Referee()
            resumed.replay(table_log.parse_line(x) for x in stored)
            assert resumed.game is not None and straight.game is not None
            assert resumed.game.state == straight.game.state
    child = _start_child(tmp_path)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0 and out.rstrip().endswith("finished")
    with Journal.open(tmp_path / "data") as journal:
        stored = [table_log.dumps(e) for e in journal.events()]
    assert stored == lines
    resumed_signals = Referee().replay(table_log.parse_line(x) for x in stored)
    straight_signals = Referee().replay(table_log.parse_line(x) for x in lines)
    assert resumed_signals == straight_signals
