"""`spieltisch referee --log FILE [--json]`: replay a table log through the referee.

With `--json` it prints exactly one JSON line per non-blank input line: ``{"signals": [...]}``,
or ``{"error": "..."}`` for a line that is unreadable or cannot apply (replay goes on). Without
it, the same signals one per line for a person, in the chosen language. Either way the replay
runs to the end (exit status 0) and says on standard error how many lines failed; a log that
cannot be read at all is named with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

from controller.referee import Referee, RefereeInputError, TableSettings
from controller.table_log import TableLogError, parse_line
from controller.words.catalogue import LANGUAGES
from controller.words.signals import Illegal, Notice, Reroll, Signal


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
        "--lang", choices=LANGUAGES, default="de", help="language of the text output"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    referee = Referee(TableSettings(must_correct=args.must_correct))
    try:
        stream = sys.stdin.buffer if args.log == "-" else open(args.log, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"cannot read table log {args.log}: {exc.strerror}", file=sys.stderr)
        return 2
    lines = failed = 0
    try:
        with stream:
            for number, line in _lines(stream):
                lines += 1
                try:
                    signals = referee.handle(parse_line(line))
                except (TableLogError, RefereeInputError) as exc:
                    failed += 1
                    _error(args, f"line {number}: {exc}")
                    continue
                _signals(args, number, signals)
    except OSError as exc:
        print(f"cannot read table log {args.log}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if failed:
        print(f"{failed} of {lines} lines could not be read or applied", file=sys.stderr)
    return 0


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line; a line that is not UTF-8 is given as is
    with its undecodable bytes replaced, so that it fails as "not JSON" on its own."""
    for number, raw in enumerate(stream, start=1):
        text = raw.decode("utf-8", errors="replace")
        if text.strip():
            yield number, text


def _error(args: argparse.Namespace, message: str) -> None:
    if args.json:
        print(json.dumps({"error": message}, ensure_ascii=False), flush=True)
    else:
        print(message)


def _signals(args: argparse.Namespace, number: int, signals: list[Signal]) -> None:
    if args.json:
        print(json.dumps({"signals": [s.to_json() for s in signals]}, ensure_ascii=False),
              flush=True)
        return
    for signal in signals:
        print(f"{number:4d}  {_describe(signal, args.lang)}")


def _describe(signal: Signal, lang: str) -> str:
    """A signal for a person: its fields, its reason in `lang`."""
    details = {k: v for k, v in signal.to_json().items() if k != "type"}
    if isinstance(signal, Illegal | Reroll):
        details = {k: v for k, v in details.items() if k not in ("reason_de", "reason_en")}
        details["reason"] = signal.reason.text(lang)
    elif isinstance(signal, Notice):
        details = {"key": signal.key, "text": signal.reason.text(lang)}
    return f"{signal.type}: " + ", ".join(f"{k}={v}" for k, v in details.items())
