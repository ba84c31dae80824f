"""Journal: every event, appended to SQLite before the referee sees it.

The game state is the replay of the journal (ARCHITECTURE.md). Each append is one committed
transaction in WAL mode. Durability is a choice (`Journal.open(..., sync=...)`):

* ``"normal"`` (default, ``synchronous=NORMAL``): a killed or crashed process loses at most the
  event being written; a power cut keeps the file consistent but may lose the events since the
  last WAL checkpoint. Append p99 well under 2 ms (docs/referee.md).
* ``"full"`` (``synchronous=FULL``): every append is on disk before it returns, so a power cut
  also loses at most the event being written; each append waits for an fsync (p99 several ms
  here, more on an SD card).

A journal that SQLite cannot read, or whose rows do not parse, is moved aside (renamed with a
``.damaged-N`` suffix) and a fresh one is started; the caller gets the path to tell the user.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from controller import table_log
from controller.table_log import TableLogError
from controller.words.events import Event

log = logging.getLogger(__name__)

FILENAME = "journal.sqlite"
SYNC_MODES = {"normal": "NORMAL", "full": "FULL"}
SCHEMA_VERSION = 1
_SIDE_FILES = ("-wal", "-shm")


class JournalDamaged(RuntimeError):
    """The journal cannot be read; it has been moved to `moved_to`."""

    def __init__(self, path: Path, moved_to: Path, why: str) -> None:
        super().__init__(f"journal {path} is damaged ({why}); moved aside to {moved_to}")
        self.path = path
        self.moved_to = moved_to
        self.why = why


class Journal:
    """Append-only event store in `data_dir`; open with `Journal.open`, close with `close()`."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self.damaged: JournalDamaged | None = None

    @classmethod
    def open(cls, data_dir: Path | str, sync: str = "normal") -> Journal:
        """Open (or create) the journal; a damaged one is moved aside, see `Journal.damaged`."""
        if sync not in SYNC_MODES:
            raise ValueError(f"unknown journal sync {sync!r}; known: {', '.join(SYNC_MODES)}")
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / FILENAME
        damaged = None
        try:
            db = _connect(path, SYNC_MODES[sync])
            _check(db)
        except (sqlite3.DatabaseError, TableLogError) as exc:
            if "db" in locals():
                db.close()
            damaged = _move_aside(path, str(exc))
            log.error("%s", damaged)
            db = _connect(path, SYNC_MODES[sync])
        journal = cls(path, db)
        journal.damaged = damaged
        return journal

    def append(self, event: Event) -> int:
        """Store one event durably; returns its sequence number (1, 2, ...)."""
        obj = table_log.event_to_json(event)
        cursor = self._db.execute(
            "INSERT INTO events (type, line) VALUES (?, ?)", (obj["type"], table_log.dumps(event))
        )
        return int(cursor.lastrowid or 0)

    def events(self, since: int = 0) -> Iterator[Event]:
        """Every stored event after sequence number `since`, oldest first."""
        rows = self._db.execute("SELECT line FROM events WHERE seq > ? ORDER BY seq", (since,))
        for (line,) in rows:
            yield table_log.parse_line(line)

    @property
    def synchronous(self) -> str:
        """SQLite's synchronous setting in force ("NORMAL" or "FULL")."""
        level = int(self._db.execute("PRAGMA synchronous").fetchone()[0])
        return {1: "NORMAL", 2: "FULL"}.get(level, str(level))

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0])

    def last_time(self) -> float:
        """The time (`t`) of the last event stored, 0.0 in an empty journal: where the table's
        clock goes on from after a restart."""
        row = self._db.execute("SELECT line FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        return table_log.parse_line(row[0]).t if row else 0.0

    def current_game(self) -> list[Event]:
        """The events from the last `new_game` on: replaying them restores the table."""
        row = self._db.execute("SELECT MAX(seq) FROM events WHERE type = 'new_game'").fetchone()
        start = (row[0] or 1) - 1
        return list(self.events(since=start))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _connect(path: Path, synchronous: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)  # autocommit: one append, one transaction
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute(
        "CREATE TABLE IF NOT EXISTS events"
        " (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, line TEXT NOT NULL)"
    )
    db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
    )
    return db


def _check(db: sqlite3.Connection) -> None:
    """Raise when SQLite finds damage, the schema is foreign, or a row is not an event."""
    result = db.execute("PRAGMA quick_check").fetchone()[0]
    if result != "ok":
        raise sqlite3.DatabaseError(f"integrity check: {result}")
    schema = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if schema is None or schema[0] != str(SCHEMA_VERSION):
        raise sqlite3.DatabaseError(f"unknown schema version {schema!r}")
    for seq, line in db.execute("SELECT seq, line FROM events ORDER BY seq"):
        try:
            table_log.parse_line(line)
        except TableLogError as exc:
            raise TableLogError(f"event {seq}: {exc}") from None


def _move_aside(path: Path, why: str) -> JournalDamaged:
    n = 1
    while path.with_name(f"{path.name}.damaged-{n}").exists():
        n += 1
    target = path.with_name(f"{path.name}.damaged-{n}")
    path.rename(target)
    for suffix in _SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    return JournalDamaged(path, target, why)
