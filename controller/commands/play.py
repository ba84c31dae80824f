"""`spieltisch play`: the table program.

With a configuration that names a camera, pins and a serial port it runs the real table
(camera → vision → referee → LEDs and display, journal underneath; docs/install.md). With no
hardware configured (`camera.source = "simulated"`, the default) it runs the simulated table
end to end: the players' game is rendered into camera frames, the real vision pipeline reads
them, the real referee judges, the seat LEDs are gpiozero devices on mock pins and the display
board is the firmware logic behind a pseudo-terminal, all drawn live in the terminal.
`--without-vision` hands the players' boards to the referee directly (no frames, faster than
real players): the quick look. The simulated table ends by itself after the configured games
and prints what happened.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import signal as os_signal
import sys
from typing import Any

from controller import config as table_config
from controller.rules.games import GAMES
from controller.table.wiring import build_app
from controller.words.catalogue import text
from hardware.pinmap import PinMapError

#: How much faster than real players the simulated table runs without vision (and no --speed).
QUICK_LOOK_SPEED = 200.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play", help="run the table (the simulated table unless the configuration names hardware)"
    )
    add_play_arguments(parser)
    parser.add_argument(
        "--without-vision",
        action="store_true",
        help="simulated table: hand the players' boards to the referee directly, no camera "
        "frames (the quick look)",
    )
    parser.set_defaults(func=run)


def add_play_arguments(parser: argparse.ArgumentParser, recording: bool = True) -> None:
    """The options of `spieltisch play`; `spieltisch record` takes them without --record."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help=f"configuration file (default: ${table_config.ENV_VAR}, else the simulated table)",
    )
    parser.add_argument("--game", choices=table_config.GAMES, help="play this game")
    parser.add_argument("--variant", help="rule variant of --game (a preset name)")
    parser.add_argument("--players", type=int, help="number of players of --game")
    parser.add_argument("--speed", type=float, help="simulation speed, 1 = real time, 0 = fastest")
    parser.add_argument("--seed", type=int, help="seed of the simulated players")
    parser.add_argument(
        "--illegal-rate", type=float, help="share of deliberately illegal plays of the players"
    )
    parser.add_argument(
        "--colour",
        choices=("auto", "always", "never"),
        default="auto",
        help="redraw the table live in place (auto: only on a terminal)",
    )
    parser.add_argument("--lang", choices=table_config.LANGUAGES, help="language at the table")
    parser.add_argument("--data-dir", metavar="DIR", help="journal and calibration folder")
    if recording:
        parser.add_argument("--record", metavar="FOLDER", help="record the session into FOLDER")
        parser.add_argument(
            "--record-every", type=int, default=1, metavar="N", help="record every N-th frame"
        )


def config_from_args(args: argparse.Namespace) -> table_config.Config:
    """The configuration file with the command line's overrides applied (and checked)."""
    config = table_config.load(getattr(args, "config", None))
    game = config.game
    changed = {
        k: getattr(args, k)
        for k in ("game", "variant", "players")
        if getattr(args, k, None) is not None
    }
    if changed:
        name = changed.get("game", game.game)
        rules = GAMES[name]
        same = name == game.game
        variant = changed.get("variant") or (game.variant if same else rules.default_variant)
        players = changed.get("players") or (game.players if same else rules.default_players)
        game = dataclasses.replace(game, game=name, variant=variant, players=players)
        sim = dataclasses.replace(
            config.simulation, games=(table_config.SimulatedGame(name, variant, players),)
        )
        config = dataclasses.replace(config, game=game, simulation=sim)
    sim_changes = {
        k: getattr(args, k)
        for k in ("speed", "seed", "illegal_rate")
        if getattr(args, k, None) is not None
    }
    if getattr(args, "without_vision", False) and args.speed is None:
        sim_changes["speed"] = QUICK_LOOK_SPEED
    if sim_changes:
        config = dataclasses.replace(
            config, simulation=dataclasses.replace(config.simulation, **sim_changes)
        )
    if getattr(args, "lang", None):
        config = dataclasses.replace(
            config, display=dataclasses.replace(config.display, language=args.lang)
        )
    if getattr(args, "data_dir", None):
        config = dataclasses.replace(config, data=table_config.DataConfig(args.data_dir))
    return table_config.validate(config)


def run(args: argparse.Namespace) -> int:
    return run_play(args)


def run_play(args: argparse.Namespace) -> int:
    """Run the table the configuration describes until it ends or is stopped.

    The simulated table ends after its games with exit status 0, or 1 when a game got stuck;
    the real table runs until SIGTERM/SIGINT. A configuration or pin map that cannot be used
    is named (in the table's language and in English) with exit status 2.
    """
    try:
        config = config_from_args(args)
    except table_config.ConfigError as exc:
        return _refuse("error.config", exc, table_config.Config().language)
    logging.basicConfig(
        level=logging.WARNING if config.simulated else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
    )
    live = {"always": True, "never": False}.get(args.colour)
    with contextlib.ExitStack() as stack:
        try:
            app = build_app(
                config, stack, record=getattr(args, "record", None),
                record_every=getattr(args, "record_every", 1) or 1,
                own_set=getattr(args, "own_set", None), stream=sys.stdout,
                live=live, without_vision=getattr(args, "without_vision", False),
            )
        except PinMapError as exc:
            return _refuse("error.pinmap", exc, config.language)
        previous = {
            sig: os_signal.signal(sig, lambda *_: app.stop.set())
            for sig in (os_signal.SIGTERM, os_signal.SIGINT)
        }
        try:
            status = app.run()
        finally:
            for sig, handler in previous.items():
                os_signal.signal(sig, handler)
        if app.simulation is not None:
            print(app.simulation.summary())
    return status


def _refuse(key: str, exc: Exception, lang: str) -> int:
    """Name what cannot be used, in the table's language and (when that is not English) in
    English for whoever reads the logs; exit status 2."""
    print(f"error: {text(key, lang, detail=exc)}", file=sys.stderr)
    if lang != "en":
        print(f"error: {text(key, 'en', detail=exc)}", file=sys.stderr)
    return 2
