"""The `spieltisch` command: discovers the subcommands in `controller.commands`."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from controller import commands


def build_parser() -> argparse.ArgumentParser:
    """Build the parser from every module in `controller.commands` (each adds its own)."""
    parser = argparse.ArgumentParser(
        prog="spieltisch", description="Referee software for the Spieltisch game table."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # Whoever read the output stopped early (`spieltisch ... | head`): end quietly, and keep
        # Python's own flush at exit from failing on the closed pipe again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
