"""`spieltisch simulate --games N --seed S [--json]`: headless simulated evenings.

Plays N games (cycling through both games and their variants) with illegal plays of every
kind the rule texts name injected, and reports how many the referee flagged, missed, and how
many legal plays it wrongly flagged.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.referee import TableSettings
from controller.rules.games import NAMES
from controller.sim.evening import GAMES, run_evening


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play simulated games headless with injected illegal moves"
    )
    parser.add_argument("--games", type=_positive, default=10, help="number of games (10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument(
        "--illegal-rate",
        type=_rate,
        default=0.3,
        help="chance that a play is deliberately illegal (0.3)",
    )
    parser.add_argument(
        "--game",
        choices=NAMES,
        help="only this game (default: both, every variant)",
    )
    parser.add_argument(
        "--no-done-button",
        action="store_true",
        help="a table without done button: turns are judged after the settle time",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    kinds = tuple(k for k in GAMES if args.game in (None, k[0]))
    settings = TableSettings(done_button=not args.no_done_button)
    report = run_evening(args.games, args.seed, args.illegal_rate, kinds, settings)
    summary = report.to_json()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(
            f"{summary['games']} games, {summary['events']} events, "
            f"{summary['legal_plays']} legal plays"
        )
        print(
            f"illegal plays injected {summary['injected']}: flagged {summary['flagged']}, "
            f"missed {summary['missed']}; legal plays wrongly flagged "
            f"{summary['wrongly_flagged']}"
        )
        for kind, counts in summary["by_kind"].items():
            print(
                f"  {kind:22s} injected {counts['injected']:4d}  flagged {counts['flagged']:4d}"
                f"  missed {counts['missed']:4d}"
            )
    ok = summary["missed"] == 0 and summary["wrongly_flagged"] == 0
    return 0 if ok else 1


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value
