"""`spieltisch config`: print the documented defaults, or check a configuration file (and the
pin map it names) the way `spieltisch play` will read them."""

from __future__ import annotations

import argparse
import sys

from controller import config
from hardware.pinmap import PinMapError, load_pinmap


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "config",
        help="print the default configuration or check a configuration file",
        description="Print every configuration key with its default, or check a file and the "
        "pin map it names.",
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(
        "--print-defaults", action="store_true", help="print the default file (every key)"
    )
    group.add_argument("--check", metavar="FILE", help="check FILE and say what is wrong")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.print_defaults:
        sys.stdout.write(config.default_text())
        return 0
    try:
        loaded = config.load(args.check)
        pinmap = load_pinmap(loaded.pins.map or None)
    except (config.ConfigError, PinMapError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    mode = "simulated table" if loaded.simulated else f"camera {loaded.camera.source}"
    print(
        f"{args.check}: OK ({loaded.game.game}/{loaded.game.variant}/{loaded.game.players}, "
        f"{mode}, display {loaded.display.port}, pins {loaded.pins.factory}, "
        f"pin map {pinmap.source})"
    )
    return 0
