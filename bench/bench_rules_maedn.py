"""Mensch ärgere Dich nicht engine speed: legal moves and judge, beside OpenSpiel's `maedn`.

1,000 positions reached by random play in OpenSpiel, each with all six die values: our
`legal_plays`, our `judge` of the resulting board, and OpenSpiel's `legal_actions` on the very
same positions in the same run. Each sample is the mean of `REPEAT` calls (one call is a few
microseconds, near the timer's resolution), timed with the garbage collector paused.
"""

from __future__ import annotations

import gc
import platform
import random
import time
from typing import Any

from bench.timing import print_table, summary
from controller.rules import maedn

POSITIONS = 1000
REPEAT = 10
OPTIONS = maedn.Options.preset("openspiel")


def _chance_states(players: int, rng: random.Random, count: int) -> list[Any]:
    """Chance nodes (a die about to be rolled) from random OpenSpiel games."""
    from tests.rules import maedn_strategies as ms

    game = ms.openspiel_game(players)
    states: list[Any] = []
    state = game.new_initial_state()
    while len(states) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            states.append(state.clone())
            state.apply_action(rng.randrange(6))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return states


def _per_call_us(fn: Any, *args: Any) -> float:
    """Mean time of one call, with the garbage collector paused (as `timeit` does)."""
    gc.disable()
    try:
        start = time.perf_counter_ns()
        for _ in range(REPEAT):
            fn(*args)
        return (time.perf_counter_ns() - start) / REPEAT / 1000
    finally:
        gc.enable()


def measure(players: int, count: int = POSITIONS, seed: int = 1) -> dict[str, list[float]]:
    """Per-call times in microseconds for each operation, over `count` positions x 6 dice."""
    from tests.rules import maedn_strategies as ms

    rng = random.Random(seed)
    samples: dict[str, list[float]] = {"ours": [], "judge": [], "openspiel": []}
    for chance in _chance_states(players, rng, count):
        for outcome in range(6):
            state = chance.clone()
            state.apply_action(outcome)
            seat, die = ms.openspiel_turn_and_die(state)
            pos = maedn.Position.from_pieces(
                ms.openspiel_pieces(state, players), players, seat, OPTIONS
            )
            moves = pos.legal_plays(die)
            seen = pos.apply(rng.choice(moves), die).to_board() if moves else pos.to_board()
            samples["ours"].append(_per_call_us(pos.legal_plays, die))
            samples["judge"].append(_per_call_us(pos.judge, seen, die))
            samples["openspiel"].append(_per_call_us(state.legal_actions))
    return samples


def main() -> None:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel (pip package open-spiel) not installed: Mensch benchmark skipped")
        return
    print(f"Machine: {platform.machine()}, Python {platform.python_version()}\n")
    for players in (2, 4):
        samples = measure(players)
        rows = []
        for label, key in (
            ("legal moves (ours)", "ours"),
            ("legal actions (OpenSpiel, C++ via pybind11)", "openspiel"),
            ("judge of the resulting board (ours)", "judge"),
        ):
            median, p99 = summary(samples[key])
            rows.append((label, len(samples[key]), median, p99))
        print_table(
            f"Mensch ärgere Dich nicht, {players} players: {POSITIONS} positions x 6 dice",
            ("operation", "calls", "median µs", "p99 µs"),
            rows,
        )
