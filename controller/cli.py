"""The `spieltisch` command: one subcommand per module in `controller.commands`.

Only the module of the subcommand given is imported (its imports may be heavy: OpenCV, the
vision models); `spieltisch --help` and an unknown subcommand import them all to list them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from controller import commands

COMMANDS = tuple(sorted(m.name for m in pkgutil.iter_modules(commands.__path__)))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of `only` that one."""
    parser = argparse.ArgumentParser(
        prog="spieltisch", description="Referee software for the Spieltisch game table."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"{commands.__name__}.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    chosen = args_list[0] if args_list and args_list[0] in COMMANDS else None
    parser = build_parser(chosen)
    args = parser.parse_args(args_list)
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
