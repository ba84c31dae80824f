"""`spieltisch play`: the table program.

With a configuration that names a camera, pins and a serial port it runs the real table
(`controller.table_app.run_play`: camera → vision → referee → LEDs and display, journal
underneath; docs/install.md). With no hardware configured (`camera.source = "simulated"`, the
default) it runs the simulated table end to end: the bots' game is rendered into camera frames,
the real vision pipeline reads them, the real referee judges, the seat LEDs are gpiozero devices
on mock pins and the display board is the firmware logic behind a pseudo-terminal, all drawn
live in the terminal. `--without-vision` skips the camera and vision (the bots' boards go to the
referee directly): a quick look at the referee and the LEDs. The games, seed, habits and
language come from the configuration unless given as options; the simulated table ends by
itself after the configured games (one of each by default).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

GAME_DEFAULTS = {"backgammon": ("standard", 2), "maedn": ("hofer", 4)}
DEFAULT_SPEED = 50.0  # how much faster than real players the terminal simulation runs


def register(subparsers: Any) -> None:
    from controller.table_app import add_play_arguments

    parser = subparsers.add_parser(
        "play", help="run the table (the simulated table unless the configuration names hardware)"
    )
    add_play_arguments(parser)
    parser.add_argument(
        "--without-vision",
        action="store_true",
        help="simulated table: hand the bots' boards to the referee directly, no camera frames",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller import config as table_config
    from controller.sim.table import Habits, SimulatedTable
    from controller.table_app import run_play

    try:
        cfg = table_config.load(args.config)
    except table_config.ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if not cfg.simulated or not args.without_vision or args.record:
        return run_play(args)
    if args.speed is None:
        args.speed = DEFAULT_SPEED
    if args.speed < 0:
        print("--speed must be 0 or more", file=sys.stderr)
        return 2
    sim = cfg.simulation
    games = [(g.game, g.variant, g.players) for g in sim.games]
    if args.game:
        variant = args.variant or GAME_DEFAULTS[args.game][0]
        players = 2 if args.game == "backgammon" else (args.players or GAME_DEFAULTS[args.game][1])
        games = [(args.game, variant, players)]
    seed = sim.seed if args.seed is None else args.seed
    rate = sim.illegal_rate if args.illegal_rate is None else args.illegal_rate
    habits = Habits(illegal_rate=rate, hand_rate=sim.hand_rate, cocked_rate=sim.cocked_rate)
    args.lang = args.lang or cfg.language
    live = args.colour == "always" or (args.colour == "auto" and sys.stdout.isatty())
    for number, (game, variant, players) in enumerate(games):
        try:
            table = SimulatedTable(game, variant, players, seed + number, habits)
        except ValueError as exc:
            print(f"cannot play {game} {variant!r}: {exc}", file=sys.stderr)
            return 2
        print(_watch(table, game, variant, players, args, live), flush=True)
    return 0


def _watch(table: Any, game: str, variant: str, players: int, args: argparse.Namespace,
           live: bool) -> str:
    """Run one game through the referee, drawing every change; returns the closing line."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from controller.referee import Referee
    from controller.sim.evening import run_game
    from controller.sim.terminal_view import CLEAR, frame
    from controller.words.signals import GameOver
    from hardware import display_text
    from hardware.devices import TableDevices
    from hardware.pinmap import load_pinmap
    from hardware.seat_colours import SeatColours
    from hardware.signal_outputs import SignalOutputs

    seats = SeatColours.for_game(game)
    title = f"Spieltisch — {game} ({variant}), {players} players"
    offsets = [20 * s if players == 2 else 10 * s for s in range(players)]
    state: dict[str, Any] = {"t": None, "display": ("", "", "", ""), "over": None}
    factory = MockFactory(pin_class=MockPWMPin)
    with TableDevices(load_pinmap(), pin_factory=factory) as devices:
        outputs = SignalOutputs(devices, seats, display=None, lang=args.lang)

        def listen(event: Any, signals: list[Any]) -> None:
            outputs.apply_all(signals)
            pages = display_text.step_pages(signals, args.lang, seats)
            if pages:  # the page the display shows first (then the others, display.page_s each)
                state["display"] = pages[0]
            for signal in signals:
                if isinstance(signal, GameOver):
                    state["over"] = signal
            _pace(state, event.t, args.speed)
            if not signals:
                return
            leds = [
                (seats.name(s, args.lang), tuple(devices.seat_leds[s].value))
                for s in range(min(players, len(devices.seat_leds)))
            ]
            text = frame(title, table.board, leds, state["display"], signals, args.lang, live,
                         offsets)
            print((CLEAR + text) if live else text, flush=True)

        run_game(table, Referee(), listen)
        outputs.close()
    over = state["over"]
    return f"{title}: game over, order {list(over.order)}" if over else f"{title}: stopped"


def _pace(state: dict[str, Any], t: float, speed: float) -> None:
    """Sleep the simulated time since the last event, `speed` times faster (at most 1 s)."""
    last = state["t"]
    state["t"] = t
    if speed > 0 and last is not None and t > last:
        time.sleep(min(1.0, (t - last) / speed))
