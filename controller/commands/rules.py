"""`spieltisch rules`: ask the rules engines from the command line.

`rules legal --batch` answers one JSON line per input line (checks outside this repository rely
on the exact format, see docs/rules-backgammon.md); `rules id` shows a gnubg Position ID as a
board; `rules plays` lists the legal plays of a position and roll in standard notation;
`rules judge` says whether one position can follow another with a roll, and why not.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, TextIO

from controller.rules import backgammon as bg
from controller.rules import maedn_batch
from controller.rules.errors import RulesError
from controller.rules.games import BACKGAMMON, GAMES, MAEDN

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `rules` and its subcommands to the `spieltisch` parser."""
    parser = subparsers.add_parser("rules", help="legal moves, position IDs, rule checks")
    sub = parser.add_subparsers(dest="rules_command", metavar="RULES_COMMAND", required=True)

    legal = sub.add_parser("legal", help="legal results of positions and rolls (JSON lines)")
    legal.add_argument(
        "--batch",
        action="store_true",
        required=True,
        help="read JSON lines on stdin, answer one JSON line per input line",
    )
    legal.set_defaults(func=_run_legal_batch)

    show = sub.add_parser("id", help="show a gnubg Position ID as a board")
    show.add_argument("position_id")
    show.set_defaults(func=_run_show_id)

    plays = sub.add_parser("plays", help="list the legal plays of a position ID and a roll")
    plays.add_argument("position_id")
    plays.add_argument("die1", type=int)
    plays.add_argument("die2", type=int)
    plays.add_argument("--variant", default="standard", help="standard or hofer")
    plays.set_defaults(func=_run_plays)

    judge = sub.add_parser("judge", help="was the change from one position ID to another legal?")
    judge.add_argument("before", help="Position ID, side on roll")
    judge.add_argument("after", help="Position ID after the play, still seen from the mover")
    judge.add_argument("die1", type=int)
    judge.add_argument("die2", type=int)
    judge.add_argument("--variant", default="standard", help="standard or hofer")
    judge.set_defaults(func=_run_judge)


def _run_legal_batch(args: argparse.Namespace) -> int:
    return legal_batch(sys.stdin.buffer, sys.stdout)


def legal_batch(stdin: BinaryIO, stdout: TextIO) -> int:
    """Answer each input line with exactly one JSON line, flushed at once; 1 if stdin fails."""
    try:
        for raw in stdin:
            try:
                answer = answer_line(raw)
            except Exception as exc:  # one bad line must never end the run
                log.exception("rules legal: unexpected failure on a line")
                answer = {"error": f"internal error: {type(exc).__name__}: {exc}"}
            stdout.write(json.dumps(answer) + "\n")
            stdout.flush()
    except OSError as exc:
        print(f"spieltisch rules legal: cannot read stdin: {exc}", file=sys.stderr)
        return 1
    return 0


def answer_line(raw: bytes | str) -> dict[str, Any]:
    """The answer object for one input line (an {"error": ...} when the line is bad)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        return {"error": f"line is not UTF-8: {exc}"}
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return {"error": f"line is not JSON: {exc}"}
    if not isinstance(obj, dict):
        return {"error": "line must be a JSON object"}
    game = obj.get("game")
    answer = _ANSWERS.get(game) if isinstance(game, str) else None
    if answer is None:
        return {"error": f"unknown game {game!r}; known: {', '.join(GAMES)}"}
    try:
        return answer(obj)
    except (RulesError, ValueError, TypeError, KeyError) as exc:
        return {"error": str(exc)}


def _backgammon(obj: dict[str, Any]) -> dict[str, Any]:
    variant = obj.get("variant", "standard")
    if not isinstance(variant, str):
        return {"error": f"variant must be a string, not {variant!r}"}
    options = bg.Options.preset(variant)
    changes = obj.get("options")
    if changes is not None:
        if not isinstance(changes, dict):
            return {"error": "options must be an object of option names and values"}
        options = options.with_changes(changes)
    pid = obj.get("position")
    if not isinstance(pid, str):
        return {"error": f"position must be a gnubg Position ID string, not {pid!r}"}
    dice = obj.get("dice")
    if not isinstance(dice, list):
        return {"error": f"dice must be a list of two numbers 1..6, not {dice!r}"}
    pos = bg.Position.from_position_id(pid, 0, options)
    return {"results": sorted(set(pos.legal_result_ids(dice)))}


_ANSWERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    BACKGAMMON.name: _backgammon,
    MAEDN.name: maedn_batch.handle,
}


def _run_show_id(args: argparse.Namespace) -> int:

    try:
        pos = bg.Position.from_position_id(args.position_id)
    except RulesError as exc:
        print(f"spieltisch rules id: {exc}", file=sys.stderr)
        return 2
    print(pos.diagram())
    return 0


def _run_plays(args: argparse.Namespace) -> int:

    try:
        pos = bg.Position.from_position_id(args.position_id, 0, bg.Options.preset(args.variant))
        plays = pos.legal_plays((args.die1, args.die2))
    except RulesError as exc:
        print(f"spieltisch rules plays: {exc}", file=sys.stderr)
        return 2
    for play in plays:
        print(f"{play}\t{pos.apply(play).with_turn(0).position_id()}")
    return 0


def _run_judge(args: argparse.Namespace) -> int:
    """Exit status 0 when legal, 1 when illegal, 2 when the input is bad."""

    try:
        options = bg.Options.preset(args.variant)
        before = bg.Position.from_position_id(args.before, 0, options)
        after = bg.Position.from_position_id(args.after, 0, options).with_turn(1)
        verdict = before.judge(after, (args.die1, args.die2))
    except RulesError as exc:
        print(f"spieltisch rules judge: {exc}", file=sys.stderr)
        return 2
    if verdict.legal:
        print(f"legal: {verdict.play}")
        return 0
    assert verdict.reason is not None
    print(f"illegal: {verdict.reason.de} / {verdict.reason.en} ({verdict.reason.key})")
    for play in verdict.nearest:
        print(f"  nearest legal: {play}")
    return 1
