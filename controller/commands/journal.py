"""`spieltisch journal`: look into the table's journal and export its games.

    spieltisch journal --show                  games in the journal and where each stands
    spieltisch journal --export-log FILE       every event as a table log (JSON lines)
    spieltisch journal --export-mat FILE       backgammon games for GNU Backgammon (.mat)
    spieltisch journal --export-json FILE      Mensch games with every roll and move (JSON)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller import config as table_config
from controller import game_export, table_log
from controller.journal import Journal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("journal", help="show or export the games in the journal")
    parser.add_argument(
        "--data-dir", help="data directory holding journal.sqlite (default: from the config)"
    )
    parser.add_argument("--config", help="configuration file (default: $SPIELTISCH_CONFIG)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--show", action="store_true", help="list the games and their state")
    what.add_argument("--export-log", metavar="FILE", help="write the events as a table log")
    what.add_argument("--export-mat", metavar="FILE", help="write backgammon games as .mat")
    what.add_argument("--export-json", metavar="FILE", help="write Mensch games as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.data_dir:
        directory = Path(args.data_dir)
    else:
        try:
            directory = table_config.load(args.config).data.path()
        except table_config.ConfigError as exc:
            print(exc, file=sys.stderr)
            return 2
    if not (directory / "journal.sqlite").exists():
        print(f"no journal in {directory}", file=sys.stderr)
        return 2
    with Journal.open(directory) as journal:
        if journal.damaged is not None:
            print(journal.damaged, file=sys.stderr)
            return 1
        events = list(journal.events())
    if args.export_log:
        text = "".join(table_log.dumps(e) + "\n" for e in events)
        return _write(Path(args.export_log), text, f"{len(events)} events")
    records = game_export.records_from_events(events)
    if args.show:
        for number, record in enumerate(records, start=1):
            state = "over" if record.over else "unfinished"
            order = f", order {list(record.over.order)}" if record.over else ""
            print(
                f"game {number}: {record.game} ({record.variant}), {record.players} players, "
                f"{len(record.turns)} rolls, {state}{order}"
            )
        print(f"{len(events)} events in {directory}")
        return 0
    try:
        if args.export_mat:
            return _write(Path(args.export_mat), game_export.to_mat(records), "backgammon games")
        mensch = [game_export.to_maedn_json(r) for r in records if r.game == "maedn"]
        if not mensch:
            raise game_export.ExportError("no Mensch game to export")
        text = json.dumps({"games": mensch}, ensure_ascii=False, indent=1) + "\n"
        return _write(Path(args.export_json), text, f"{len(mensch)} Mensch games")
    except game_export.ExportError as exc:
        print(f"cannot export: {exc}", file=sys.stderr)
        return 1


def _write(path: Path, text: str, what: str) -> int:
    if path.exists():
        print(f"{path} exists; not overwritten (choose another name)", file=sys.stderr)
        return 2
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"cannot write {path}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {what} to {path}")
    return 0
