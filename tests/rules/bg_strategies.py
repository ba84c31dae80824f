"""Hypothesis strategies and small builders for backgammon tests (shared by all bg test files)."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from controller.rules import backgammon as bg
from controller.rules.backgammon_options import PRESETS


def side(counts: dict[int | str, int]) -> tuple[int, ...]:
    """25 counts from {point: n} in that side's own numbering; "bar" for the bar."""
    out = [0] * 25
    for where, n in counts.items():
        out[24 if where == "bar" else int(where) - 1] += n
    return tuple(out)


def position(
    mover: dict[int | str, int],
    other: dict[int | str, int] | None = None,
    options: bg.Options = bg.STANDARD,
    turn: int = 0,
) -> bg.Position:
    """A position with `mover` on roll. Both dicts use the MOVER's point numbers (as a player
    on roll reads the board); "bar" is each side's own bar; checkers not placed are borne off."""
    mirrored = {(k if k == "bar" else 25 - int(k)): n for k, n in (other or {}).items()}
    mine, theirs = side(mover), side(mirrored)
    sides = (mine, theirs) if turn == 0 else (theirs, mine)
    return bg.Position(sides, turn, options)


def notations(pos: bg.Position, dice: tuple[int, int]) -> set[str]:
    return {str(p) for p in pos.legal_plays(dice)}


def results(pos: bg.Position, dice: tuple[int, int]) -> set[bg.Position]:
    return set(pos.legal_results(dice))


def after(pos: bg.Position, text: str) -> bg.Position:
    return pos.apply(bg.Play.parse(text))


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
options = st.sampled_from(sorted(PRESETS.values(), key=lambda o: o.name))


@st.composite
def reachable_positions(draw: st.DrawFn, opts: bg.Options | None = None) -> bg.Position:
    """A position from a random game (random dice, random legal plays) after 0..150 turns."""
    chosen = opts or draw(options)
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    steps = draw(st.integers(0, 150))
    pos = bg.Position.initial(chosen).with_turn(draw(st.integers(0, 1)))
    for _ in range(steps):
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        nxt = pos.apply(rng.choice(pos.legal_plays(roll)))
        if nxt.result() is not None:
            break
        pos = nxt
    return pos


@st.composite
def arbitrary_sides(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Any valid placement (maybe unreachable): up to 15 checkers a side, no shared point."""
    white = [0] * 25
    black = [0] * 25
    for counts, other in ((white, black), (black, white)):
        total = draw(st.integers(0, 15))
        for _ in range(total):
            where = draw(st.integers(0, 24))
            clash = where < 24 and other[23 - where] > 0
            if not clash:
                counts[where] += 1
    return tuple(white), tuple(black)
