"""Backgammon rules engine speed: legal-play enumeration and the transition check (judge),
side by side with OpenSpiel's legal-action generation on the same positions and rolls.

Positions: states just before a roll, from random OpenSpiel games (reachable); each is taken
with all 21 rolls. Our enumeration is timed with an empty memo (cold) and again memoised
(warm, what the referee sees once it enumerated at the roll). The judge is timed on a random
legal result: with an empty memo (its diff search) and after `legal_plays` (a lookup).
Times are the measuring thread's CPU time, so other processes on a shared machine do not
inflate them; one row repeats the enumeration in wall-clock time. The fixtures are frozen out
of the garbage collector's reach (`gc.freeze`) so that its full passes over 21,000 OpenSpiel
states do not land in our p99; the collector stays on for everything the engine allocates.
"""

from __future__ import annotations

import gc
import random
import time

from bench.timing import print_table, summary
from controller.rules import backgammon as bg
from controller.rules import backgammon_openspiel as ospiel
from controller.rules.backgammon_movegen import clear_memo

POSITIONS = 1000
SEED = 20261130


def _us(ns: list[int]) -> tuple[float, float]:
    median, p99 = summary(ns)
    return median / 1000, p99 / 1000


def main() -> None:
    import pyspiel

    game = pyspiel.load_game("backgammon")
    rng = random.Random(SEED)
    chance_states = ospiel.random_chance_states(game, POSITIONS, rng)
    cases = []
    for chance in chance_states:
        for _, state in sorted(ospiel.states_for_every_roll(chance).items()):
            cases.append((ospiel.position(state), ospiel.dice(state), state))
    # The 21,000 fixtures (OpenSpiel states included) are not the engine's heap: keep the
    # garbage collector from walking them during the timings, as a small referee heap would.
    gc.collect()
    gc.freeze()

    ours_cold: list[int] = []
    ours_warm: list[int] = []
    judge_cold: list[int] = []
    judge_warm: list[int] = []
    openspiel: list[int] = []
    wall: list[int] = []
    # CPU time of this thread: the machine is shared, and preemption by other processes
    # would otherwise dominate the p99 (see the wall-clock row for comparison).
    clock = time.thread_time_ns
    for pos, dice, state in cases:
        clear_memo()
        w0 = time.perf_counter_ns()
        t0 = clock()
        plays = pos.legal_plays(dice)
        t1 = clock()
        wall.append(time.perf_counter_ns() - w0)
        pos.legal_plays(dice)
        t2 = clock()
        ours_cold.append(t1 - t0)
        ours_warm.append(t2 - t1)
        after = pos.apply(rng.choice(plays))
        t0 = clock()
        warm = pos.judge(after, dice)  # the referee enumerated when the dice were read
        t1 = clock()
        clear_memo()
        t2 = clock()
        cold = pos.judge(after, dice)
        t3 = clock()
        if not (warm.legal and cold.legal):
            raise AssertionError(f"judge refused a legal result at {pos.position_id()} {dice}")
        judge_warm.append(t1 - t0)
        judge_cold.append(t3 - t2)
        t0 = clock()
        state.legal_actions()
        openspiel.append(clock() - t0)

    rows = []
    for name, samples in (
        ("ours: legal_plays, memo empty", ours_cold),
        ("ours: legal_plays, memoised", ours_warm),
        ("ours: judge a legal result, memo empty (diff search)", judge_cold),
        ("ours: judge a legal result, after legal_plays (lookup)", judge_warm),
        ("OpenSpiel: legal_actions() (C++, first half of a double)", openspiel),
        ("ours: legal_plays, memo empty, wall clock (shared machine)", wall),
    ):
        median, p99 = _us(samples)
        rows.append((name, len(samples), median, p99))
    print_table(
        f"Backgammon rules, {len(chance_states)} reachable positions x 21 rolls (µs, thread CPU)",
        ("operation", "cases", "median µs", "p99 µs"),
        rows,
    )

    by_kind = []
    for label, keep in (
        ("non-doubles", lambda d: d[0] != d[1]),
        ("doubles", lambda d: d[0] == d[1]),
    ):
        chosen = [i for i, (_, dice, _) in enumerate(cases) if keep(dice)]
        for name, samples in (("legal_plays cold", ours_cold), ("judge cold", judge_cold)):
            median, p99 = _us([samples[i] for i in chosen])
            by_kind.append((label, name, len(chosen), median, p99))
    print_table(
        "Our engine by kind of roll (µs, memo empty)",
        ("rolls", "operation", "cases", "median µs", "p99 µs"),
        by_kind,
    )
    hofer = bg.Options.preset("hofer")
    hofer_samples = []
    for pos, dice, _ in cases[: 21 * 300]:
        hpos = pos.with_options(hofer)
        clear_memo()
        t0 = time.thread_time_ns()
        hpos.legal_plays(dice)
        hofer_samples.append(time.thread_time_ns() - t0)
    median, p99 = _us(hofer_samples)
    print_table(
        "Hofer variant on the same positions (µs, memo empty)",
        ("operation", "cases", "median µs", "p99 µs"),
        [("legal_plays", len(hofer_samples), median, p99)],
    )


if __name__ == "__main__":
    main()
