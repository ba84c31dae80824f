"""`spieltisch referee --log FILE [--json]`: replay a table log through the referee.

With `--json` it prints exactly one JSON line per non-blank input line: ``{"signals": [...]}``,
or ``{"error": "..."}`` for a line that is unreadable or cannot apply (replay goes on).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "referee", help="replay a table log (JSON lines of events) through the referee"
    )
    parser.add_argument("--log", required=True, help="table log file, or - for standard input")
    parser.add_argument("--json", action="store_true", help="one JSON line per input line")
    parser.add_argument(
        "--must-correct",
        action="store_true",
        help="backgammon: an illegal play never stands, even after the opponent rolls",
    )
    parser.add_argument(
        "--lang", choices=("de", "en"), default="de", help="language of the text output"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.referee import Referee, RefereeInputError
    from controller.referee.turns import TableSettings
    from controller.table_log import TableLogError, parse_line

    referee = Referee(TableSettings(must_correct=args.must_correct))
    try:
        stream = sys.stdin if args.log == "-" else open(args.log, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        print(f"cannot read table log {args.log}: {exc.strerror}", file=sys.stderr)
        return 2
    errors = 0
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                signals = referee.handle(parse_line(line))
            except (TableLogError, RefereeInputError) as exc:
                errors += 1
                _emit(args, number, {"error": f"line {number}: {exc}"})
                continue
            _emit(args, number, {"signals": [s.to_json() for s in signals]})
    return 1 if errors and not args.json else 0


def _emit(args: argparse.Namespace, number: int, obj: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps(obj, ensure_ascii=False), flush=True)
        return
    if "error" in obj:
        print(obj["error"])
        return
    for signal in obj["signals"]:
        print(f"{number:4d}  {_describe(signal, args.lang)}")


def _describe(signal: dict[str, Any], lang: str) -> str:
    details = {k: v for k, v in signal.items() if k != "type"}
    for key in ("reason", "text"):
        own, other = f"{key}_{lang}", f"{key}_{'en' if lang == 'de' else 'de'}"
        if own in details:
            details.pop(other, None)
    return f"{signal['type']}: " + ", ".join(f"{k}={v}" for k, v in details.items())
