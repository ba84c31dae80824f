"""Legal-play generation for backgammon: the hot path, on plain lists and ints.

Works in the mover's numbering on a 26-slot list (index 1..24 = points, 25 = bar, 0 unused).
The opponent's made points cannot change during a turn (only blots can be hit), so "blocked"
is computed once per position. Results are keyed by (mover's 25 counts after the play,
bitmask of the points where an opposing blot was hit): that key and the opponent's counts
before the play determine the resulting position. Standard rules take two fast paths
(non-doubles; doubles four times); any other option set takes the generic phase search.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from controller.rules.backgammon_options import (
    DOUBLES_FOUR,
    DOUBLES_TOP_BOTTOM,
    NON_DOUBLE_EITHER,
    NON_DOUBLE_LOWER_FIRST,
    Options,
)
from controller.rules.dice import die_phases
from controller.rules.notation import BAR, Move

log = logging.getLogger(__name__)

Side = tuple[int, ...]
Key = tuple[Side, int]  # (mover's 25 counts after the play, bitmask of points where it hit)
Raw = tuple[tuple[int, int, int], ...]  # (src, dst, hit bit) per step


def blocked_and_blots(theirs: Side) -> tuple[list[bool], int]:
    """Which of the mover's points are blocked (2+ opposing checkers), and a bitmask of blots."""
    blocked = [False] * 26
    blots = 0
    for p in range(1, 25):
        c = theirs[24 - p]
        if c >= 2:
            blocked[p] = True
        elif c == 1:
            blots |= 1 << p
    return blocked, blots


MEMO_SIZE = 1 << 15
_memo: dict[tuple[Side, Side, int, int, Options], dict[Key, tuple[Move, ...]]] = {}


def legal_table(
    mine: Side, theirs: Side, d1: int, d2: int, options: Options
) -> dict[Key, tuple[Move, ...]]:
    """Every distinct legal result of rolling (d1, d2): key -> the first play found reaching it.

    Memoised per (position, dice, options), oldest entries dropped first. When nothing can
    move, the one entry is the unchanged position with the empty play. Do not mutate it.
    """
    memo_key = (mine, theirs, d1, d2, options)
    table = _memo.get(memo_key)
    if table is None:
        table = _compute(mine, theirs, d1, d2, options)
        if len(_memo) >= MEMO_SIZE:
            del _memo[next(iter(_memo))]
        _memo[memo_key] = table
    return table


def memoised_table(
    mine: Side, theirs: Side, d1: int, d2: int, options: Options
) -> dict[Key, tuple[Move, ...]] | None:
    """The table if `legal_table` already computed it, else None (never computes)."""
    return _memo.get((mine, theirs, d1, d2, options))


def clear_memo() -> None:
    """Forget every memoised table (benchmarks time the cold path with it)."""
    _memo.clear()


def _compute(
    mine: Side, theirs: Side, d1: int, d2: int, options: Options
) -> dict[Key, tuple[Move, ...]]:
    blocked, blots = blocked_and_blots(theirs)
    if not _is_standard(options):
        return _generic(mine, blocked, blots, d1, d2, options)
    m = [0, *mine]
    higher = options.bear_off_higher_die
    if d1 == d2:
        raw = _four(m, blocked, blots, d1, higher)
    else:
        raw = _two(m, blocked, blots, max(d1, d2), min(d1, d2), higher)
    return {key: tuple(Move(s, d, h != 0) for s, d, h in moves) for key, moves in raw.items()}


def _steps(m: list[int], die: int, blocked: list[bool], higher: bool, last: int) -> list:
    """(src, dst) of every single move of `die` (sources not above `last`), bar first."""
    if m[BAR]:
        if last < BAR or blocked[BAR - die]:
            return []
        return [(BAR, BAR - die)]
    hi = 24
    while hi and not m[hi]:
        hi -= 1
    top = hi if hi < last else last
    out = []
    if hi <= 6:
        for src in range(top, 0, -1):
            if m[src]:
                dst = src - die
                if dst > 0:
                    if not blocked[dst]:
                        out.append((src, dst))
                elif dst == 0 or (src == hi and higher):
                    out.append((src, 0))
    else:
        for src in range(top, die, -1):
            if m[src] and not blocked[src - die]:
                out.append((src, src - die))
    return out


def _two(
    m: list[int], blocked: list[bool], blots: int, high: int, low: int, higher: bool
) -> dict[Key, Raw]:
    """Standard non-double: both dice in either order if possible, else the higher, else the
    lower, else nothing."""
    found: dict[Key, Raw] = {}
    singles: tuple[dict[Key, Raw], dict[Key, Raw]] = ({}, {})
    for a, b, alone in ((high, low, singles[0]), (low, high, singles[1])):
        for s1, t1 in _steps(m, a, blocked, higher, BAR):
            m1 = m.copy()
            m1[s1] -= 1
            h1 = 0
            if t1:
                m1[t1] += 1
                h1 = blots & (1 << t1)
            follow = _steps(m1, b, blocked, higher, BAR)
            if follow:
                for s2, t2 in follow:
                    m2 = m1.copy()
                    m2[s2] -= 1
                    h2 = 0
                    if t2:
                        m2[t2] += 1
                        h2 = blots & (1 << t2) & ~h1
                    key = (tuple(m2[1:]), h1 | h2)
                    if key not in found:
                        found[key] = ((s1, t1, h1), (s2, t2, h2))
            elif not found:
                key = (tuple(m1[1:]), h1)
                if key not in alone:
                    alone[key] = ((s1, t1, h1),)
    if found:
        return found
    return singles[0] or singles[1] or {(tuple(m[1:]), 0): ()}


def _four(m: list[int], blocked: list[bool], blots: int, die: int, higher: bool) -> dict[Key, Raw]:
    """Standard double: four moves of `die`, as many as possible. Sources never rise from one
    move to the next, which reaches every result once in a canonical order."""
    found: dict[Key, Raw] = {}
    best = [0]

    def dfs(m: list[int], hits: int, moves: Raw, left: int, last: int) -> None:
        steps = _steps(m, die, blocked, higher, last) if left else []
        if not steps:
            depth = 4 - left
            if depth < best[0]:
                return
            key = (tuple(m[1:]), hits)
            if depth > best[0]:
                found.clear()
                best[0] = depth
            if key not in found:
                found[key] = moves
            return
        for src, dst in steps:
            m2 = m.copy()
            m2[src] -= 1
            bit = 0
            if dst:
                m2[dst] += 1
                bit = blots & (1 << dst) & ~hits
            dfs(m2, hits | bit, (*moves, (src, dst, bit)), left - 1, src)

    dfs(m, 0, (), 4, BAR)
    return found


def phases_of(d1: int, d2: int, options: Options) -> tuple[tuple[tuple[int, ...], ...], int]:
    """Die phases and how many of them must be maximised (the rest are optional)."""
    phases = die_phases((d1, d2), options)
    mandatory = 1 if d1 == d2 and options.doubles == DOUBLES_TOP_BOTTOM else len(phases)
    return phases, mandatory


def _generic(
    mine: Side, blocked: list[bool], blots: int, d1: int, d2: int, options: Options
) -> dict[Key, tuple[Move, ...]]:
    """Any rule options: depth-first over die phases, every node recorded with its score."""
    phases, mandatory = phases_of(d1, d2, options)
    bar_first = options.bar_enters_first
    higher_die = options.bear_off_higher_die
    # key -> (score, first die, moves); score counts dice of the mandatory phases
    found: dict[Key, tuple[int, int, Raw]] = {}

    def record(m: list[int], hits: int, moves: Raw, score: int, first: int) -> None:
        key = (tuple(m[1:]), hits)
        prev = found.get(key)
        if prev is None or score > prev[0]:
            found[key] = (score, first, moves)

    def steps(m: list[int], die: int, last: int) -> list[tuple[int, int]]:
        if m[BAR] and bar_first:
            if last < BAR:
                return []
            return [] if blocked[BAR - die] else [(BAR, BAR - die)]
        hi = BAR
        while hi and not m[hi]:
            hi -= 1
        out = []
        for src in range(min(hi, last), 0, -1):
            if m[src]:
                dst = src - die
                if dst > 0:
                    if not blocked[dst]:
                        out.append((src, dst))
                elif hi <= 6 and (dst == 0 or (src == hi and higher_die)):
                    out.append((src, 0))
        return out

    def rec(
        m: list[int],
        hits: int,
        moves: Raw,
        phase: int,
        rem: tuple[int, ...],
        last: int,
        score: int,
        first: int,
    ) -> None:
        if not rem:
            phase += 1
            if phase == len(phases):
                return
            rem = phases[phase]
            last = BAR
        node = (tuple(m), hits, phase, rem, last, score)
        if node in visited:  # e.g. two orders of the top face reach the same bottom phase
            return
        visited.add(node)
        counted = 1 if phase < mandatory else 0
        same = len(set(rem)) == 1
        for die in sorted(set(rem), reverse=True):
            rest = list(rem)
            rest.remove(die)
            rest_t = tuple(rest)
            for src, dst in steps(m, die, last if same else BAR):
                m2 = m.copy()
                m2[src] -= 1
                bit = blots & (1 << dst) & ~hits if dst else 0
                if dst:
                    m2[dst] += 1
                new_moves = (*moves, (src, dst, bit))
                f = first or die
                record(m2, hits | bit, new_moves, score + counted, f)
                rec(m2, hits | bit, new_moves, phase, rest_t, src, score + counted, f)

    visited: set[tuple] = set()
    start = [0, *mine]
    record(start, 0, (), 0, 0)
    rec(start, 0, (), 0, phases[0], BAR, 0, 0)
    if not options.intermediate_must_be_open and d1 != d2 and not (start[BAR] and bar_first):
        _jumps(start, blocked, blots, d1, d2, record)

    best = max(score for score, _, _ in found.values())
    keep = {k: v for k, v in found.items() if v[0] == best}
    if best == 1 and d1 != d2 and options.non_double != NON_DOUBLE_LOWER_FIRST:
        high = max(d1, d2)
        with_high = {k: v for k, v in keep.items() if v[1] == high}
        keep = with_high or keep
    return {k: tuple(Move(s, d, h != 0) for s, d, h in v[2]) for k, v in keep.items()}


def _jumps(
    m: list[int], blocked: list[bool], blots: int, d1: int, d2: int, record: Callable
) -> None:
    """Option `intermediate_must_be_open=False`: one checker counts both dice together when
    every intermediate point is blocked (else it must stop there, hitting as usual)."""
    total = d1 + d2
    for src in range(24, total, -1):
        dst = src - total
        if m[src] and not blocked[dst] and blocked[src - d1] and blocked[src - d2]:
            m2 = m.copy()
            m2[src] -= 1
            m2[dst] += 1
            bit = blots & (1 << dst)
            record(m2, bit, ((src, dst, bit),), 2, max(d1, d2))


def _is_standard(options: Options) -> bool:
    return (
        options.non_double == NON_DOUBLE_EITHER
        and options.doubles == DOUBLES_FOUR
        and options.intermediate_must_be_open
        and options.bar_enters_first
    )


def find_play(
    mine: Side, theirs: Side, d1: int, d2: int, options: Options, target: Side, target_hits: int
) -> tuple[Move, ...] | None:
    """A legal play turning `mine` into `target` (hitting exactly `target_hits`), found by
    searching only moves consistent with the before/after difference; None when there is none
    or the options are not the standard ones (then the caller consults `legal_table`).

    This is the judge's fast path: it needs no enumeration of every legal play, only a check
    that no play uses more dice (or, with one die, that the higher one was not possible).
    """
    if not _is_standard(options):
        return None
    blocked, blots = blocked_and_blots(theirs)
    higher = options.bear_off_higher_die
    m = [0, *mine]
    goal = [0, *target]
    slack = [0] * 27  # slack[q]: checkers at q or above now, minus in the target
    for q in range(BAR, 0, -1):
        slack[q] = slack[q + 1] + m[q] - goal[q]
        if slack[q] < 0:
            return None
    dice = (d1, d2) if d1 != d2 else (d1,) * 4
    best: list[tuple[Raw, tuple[int, ...]] | None] = [None]

    def better(path: Raw, used: tuple[int, ...]) -> bool:
        if best[0] is None or len(path) > len(best[0][0]):
            return True
        return len(path) == len(best[0][0]) == 1 and d1 != d2 and used[0] == max(d1, d2)

    def dfs(m: list[int], slack: list[int], hits: int, path: Raw, used: tuple[int, ...]) -> bool:
        if hits == target_hits and m == goal and better(path, used):
            best[0] = (path, used)
            if len(path) == len(dice):
                return True
        remaining = list(dice)
        for die in used:
            remaining.remove(die)
        last = path[-1][0] if path and d1 == d2 else BAR
        for die in sorted(set(remaining), reverse=True):
            for src, dst in _steps(m, die, blocked, higher, last):
                if any(slack[q] < 1 for q in range(dst + 1, src + 1)):
                    continue
                bit = blots & (1 << dst) & ~hits if dst else 0
                if bit and not bit & target_hits:
                    continue
                m2 = m.copy()
                m2[src] -= 1
                if dst:
                    m2[dst] += 1
                slack2 = slack.copy()
                for q in range(dst + 1, src + 1):
                    slack2[q] -= 1
                if dfs(m2, slack2, hits | bit, (*path, (src, dst, bit)), (*used, die)):
                    return True
        return False

    dfs(m, slack, 0, (), ())
    if best[0] is None:
        return None
    path, used = best[0]
    if not _uses_most_dice(m, blocked, higher, d1, d2, used):
        return None
    return tuple(Move(s, d, h != 0) for s, d, h in path)


def _uses_most_dice(
    m: list[int], blocked: list[bool], higher: bool, d1: int, d2: int, used: tuple[int, ...]
) -> bool:
    """Standard forced-play rules for a play that used the dice `used` (in order) from `m`."""
    if d1 == d2:
        return len(used) == 4 or not _can_play(m, blocked, higher, (d1,) * (len(used) + 1), BAR)
    if len(used) == 2:
        return True
    if _can_play(m, blocked, higher, (d1, d2), BAR) or _can_play(m, blocked, higher, (d2, d1), BAR):
        return False
    if not used:
        return not _steps(m, d1, blocked, higher, BAR) and not _steps(m, d2, blocked, higher, BAR)
    high = max(d1, d2)  # one die only: the higher if it can be played at all
    return used[0] == high or not _steps(m, high, blocked, higher, BAR)


def _can_play(
    m: list[int], blocked: list[bool], higher: bool, dice: tuple[int, ...], last: int
) -> bool:
    """Can these dice, in this order, all be played (stops at the first way found)? For equal
    dice the sources never rise, as in `_four`."""
    if not dice:
        return True
    same = len(set(dice)) == 1
    for src, dst in _steps(m, dice[0], blocked, higher, last if same else BAR):
        m2 = m.copy()
        m2[src] -= 1
        if dst:
            m2[dst] += 1
        if _can_play(m2, blocked, higher, dice[1:], src if same else BAR):
            return True
    return False
