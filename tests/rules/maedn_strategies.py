"""Random Mensch ärgere Dich nicht positions: hypothesis strategies and OpenSpiel random play.

Shared by the property tests, the OpenSpiel differential test and bench/bench_rules_maedn.py.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

from controller.rules import maedn
from controller.rules.maedn_options import PRESETS, Options

PRESET_NAMES = tuple(PRESETS)


@st.composite
def positions(
    draw: st.DrawFn, options: Options | None = None, players: int | None = None
) -> maedn.Position:
    """Any valid position: each piece in the house, on a free track field or a free goal field."""
    n = players if players is not None else draw(st.integers(2, 4))
    opts = (
        options
        if options is not None
        else maedn.Options.preset(draw(st.sampled_from(PRESET_NAMES)))
    )
    taken: set[int] = set()
    pieces = []
    for seat in range(n):
        off = maedn.start_offset(seat, n)
        mine: list[int] = []
        for _ in range(4):
            kind = draw(st.sampled_from(("house", "track", "track", "goal")))
            free_track = [f for f in range(40) if (f + off) % 40 not in taken]
            free_goal = [f for f in range(40, 44) if f not in mine]
            if kind == "track" and free_track:
                field = draw(st.sampled_from(free_track))
                taken.add((field + off) % 40)
            elif kind == "goal" and free_goal:
                field = draw(st.sampled_from(free_goal))
            else:
                field = -1
            mine.append(field)
        pieces.append(mine)
    # A seat with every piece home plays no more: the turn is never its (hypothesis once drew
    # such a position, which no game reaches, and the validity property failed on it).
    playing = [seat for seat in range(n) if not all(f >= 40 for f in pieces[seat])]
    turn = draw(st.sampled_from(playing or list(range(n))))
    return maedn.Position.from_pieces(pieces, n, turn, opts)


def random_play(
    players: int, options: Options, rng: random.Random, count: int
) -> Iterator[tuple[maedn.Position, int]]:
    """`count` (position, die) pairs reached by random play with this engine (new game at end)."""
    pos = maedn.Position.initial(options, players=players)
    made = 0
    while made < count:
        if pos.is_over():
            pos = maedn.Position.initial(options, players=players)
            continue
        die = rng.randint(1, 6)
        yield pos, die
        made += 1
        moves = pos.legal_plays(die)
        pos = pos.apply(rng.choice(moves) if moves else None, die)


def openspiel_game(players: int, opposite: bool = True) -> Any:
    """OpenSpiel's `maedn` for this many players (pyspiel imported here: it is optional)."""
    import pyspiel

    return pyspiel.load_game("maedn", {"players": players, "twoPlayersOpposite": opposite})


def iter_openspiel_states(game: Any, rng: random.Random) -> Iterator[Any]:
    """Decision states (a die rolled, a player to move) from endless random OpenSpiel games."""
    state = game.new_initial_state()
    while True:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            state.apply_action(rng.randrange(6))
        else:
            yield state.clone()
            state.apply_action(rng.choice(state.legal_actions()))


def openspiel_states(game: Any, rng: random.Random, count: int) -> list[Any]:
    """`count` decision states from random OpenSpiel games."""
    return list(itertools.islice(iter_openspiel_states(game, rng), count))


def openspiel_pieces(state: Any, players: int, opposite: bool = True) -> list[list[int]]:
    """The pieces of an OpenSpiel state in the batch contract's counting (per seat, own count).

    Read from seat 0's observation tensor: 40 track fields x 4 one-hot seats, then 4 goals x 4
    fields x 4 one-hot seats, then each seat's count of pieces in the house.
    """
    t = state.observation_tensor(0)
    pieces: list[list[int]] = [[] for _ in range(players)]
    for field in range(40):
        cell = t[4 * field : 4 * field + 4]
        if any(cell):
            seat = cell.index(1.0)
            pieces[seat].append((field - maedn.start_offset(seat, players, opposite)) % 40)
    for goal in range(4):
        for i in range(4):
            base = 160 + (goal * 4 + i) * 4
            cell = t[base : base + 4]
            if any(cell):
                pieces[cell.index(1.0)].append(40 + i)
    for seat in range(players):
        pieces[seat].extend([-1] * int(t[224 + seat]))
    return [sorted(p) for p in pieces]


def openspiel_turn_and_die(state: Any) -> tuple[int, int]:
    """(seat to move, die) of an OpenSpiel decision state."""
    return state.current_player(), int(state.history()[-1]) + 1


def openspiel_moves(state: Any) -> set[tuple[int, int]]:
    """OpenSpiel's legal actions as (from, to) in the mover's counting; pass is no move."""
    _, die = openspiel_turn_and_die(state)
    moves = set()
    for action in state.legal_actions():
        if action == 1:
            moves.add((-1, 0))
        elif action >= 2:
            moves.add((action - 2, action - 2 + die))
    return moves


def openspiel_action(move: maedn.Move | None) -> int:
    """The OpenSpiel action for one of our moves (0 pass, 1 bring in, 2 + own source field)."""
    if move is None:
        return 0
    return 1 if move.src == -1 else move.src + 2


def openspiel_paste(state: Any, players: int, opposite: bool = True) -> str:
    """Python lines that rebuild `state` in OpenSpiel (paste into a Python prompt)."""
    return (
        "import pyspiel\n"
        f"s = pyspiel.load_game('maedn', {{'players': {players}, "
        f"'twoPlayersOpposite': {opposite}}}).new_initial_state()\n"
        f"for a in {state.history()}: s.apply_action(a)\n"
        "print(s, s.legal_actions())"
    )
