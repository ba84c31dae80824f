"""Illegal plays of every kind the rule texts name, made on purpose by simulated players.

Each maker takes the position before the turn, the dice and a random source, and returns the
board a careless player would leave, or None when that mistake is impossible here. The result
is checked against every legal result, so an "illegal" board is never one the rules allow.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.words.events import BackgammonBoard, Board, MaednBoard

Maker = Callable[[Any, tuple[int, ...], random.Random], Board | None]


# ---- backgammon ---------------------------------------------------------------------------
# Work on the mover's 25 counts (index p-1 = its p-point, 24 = bar) and the opponent's; a
# board is built from both exactly as the camera would read it.


def _bg_board(pos: bg.Position, mine: Sequence[int], theirs: Sequence[int]) -> BackgammonBoard:
    sides = (tuple(mine), tuple(theirs)) if pos.turn == 0 else (tuple(theirs), tuple(mine))
    white, black = sides
    points = tuple(white[i] - black[23 - i] for i in range(24))
    return BackgammonBoard(
        points,
        white[24],
        black[24],
        bg.CHECKERS - sum(white),
        bg.CHECKERS - sum(black),
    )


def _sides(pos: bg.Position) -> tuple[list[int], list[int]]:
    return list(pos.sides[pos.turn]), list(pos.sides[1 - pos.turn])


def _theirs_at(theirs: Sequence[int], p: int) -> int:
    """Opposing checkers on the mover's p-point (1..24)."""
    return theirs[24 - p]


def _random_legal_result(pos: bg.Position, dice: tuple[int, ...], rng: random.Random) -> Any:
    return rng.choice(pos.legal_results(dice))


def bg_wrong_distance(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A checker moved one point further than the dice say (rule texts 002, 004)."""
    mine, theirs = _sides(pos)
    if mine[24]:
        return None
    starts = [p for p in range(2, 25) if mine[p - 1]]
    rng.shuffle(starts)
    for p in starts:
        q = p - dice[0] - 1
        if q >= 1 and _theirs_at(theirs, q) == 0:
            mine[p - 1] -= 1
            mine[q - 1] += 1
            return _bg_board(pos, mine, theirs)
    return None


def bg_intermediate_blocked(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """One checker jumps both numbers although both landing points are blocked (002)."""
    d1, d2 = dice
    if d1 == d2:
        return None
    mine, theirs = _sides(pos)
    if mine[24]:
        return None
    for p in range(24, 0, -1):
        q = p - d1 - d2
        if (
            mine[p - 1]
            and q >= 1
            and _theirs_at(theirs, q) == 0
            and _theirs_at(theirs, p - d1) >= 2
            and _theirs_at(theirs, p - d2) >= 2
        ):
            mine[p - 1] -= 1
            mine[q - 1] += 1
            return _bg_board(pos, mine, theirs)
    return None


def _step_first_open(pos: bg.Position, mine: list[int], theirs: list[int], die: int):
    """The board after the rearmost checker that can land on an open point moves `die` pips."""
    for p in range(24, 0, -1):
        q = p - die
        if mine[p - 1] and q >= 1 and _theirs_at(theirs, q) == 0:
            mine[p - 1] -= 1
            mine[q - 1] += 1
            return _bg_board(pos, mine, theirs)
    return None


def bg_bar_not_first(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A checker on the bar, yet another checker moved (001, 002, 004)."""
    mine, theirs = _sides(pos)
    if not mine[24]:
        return None
    return _step_first_open(pos, mine, theirs, dice[0])


def bg_one_die_only(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """Only the first move of a legal play (002, 004: both numbers must be played)."""
    plays = [p for p in pos.legal_plays(dice) if len(p.moves) >= 2]
    if not plays:
        return None
    play = rng.choice(plays)
    try:
        return pos.apply(bg.Play(play.moves[:1])).to_board()
    except bg.IllegalMove:
        return None


def bg_double_short(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A double played only twice although more was possible (002, 004)."""
    if dice[0] != dice[1]:
        return None
    plays = [p for p in pos.legal_plays(dice) if len(p.moves) >= 3]
    if not plays:
        return None
    try:
        return pos.apply(bg.Play(rng.choice(plays).moves[:2])).to_board()
    except bg.IllegalMove:
        return None


def bg_bear_off_early(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A checker borne off while others are still outside the home board (004)."""
    mine, theirs = _sides(pos)
    if all(c == 0 for c in mine[6:]):
        return None
    home = [p for p in range(1, 7) if mine[p - 1] and p <= max(dice)]
    if not home:
        return None
    mine[rng.choice(home) - 1] -= 1
    return _bg_board(pos, mine, theirs)


def bg_backwards(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A checker moved backwards (002: towards the own home board only)."""
    mine, theirs = _sides(pos)
    if mine[24]:
        return None
    starts = [p for p in range(1, 24) if mine[p - 1]]
    rng.shuffle(starts)
    for p in starts:
        q = p + dice[0]
        if q <= 24 and _theirs_at(theirs, q) == 0:
            mine[p - 1] -= 1
            mine[q - 1] += 1
            return _bg_board(pos, mine, theirs)
    return None


def bg_no_move(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """Nothing moved although a play exists (004: a player must play when he can)."""
    if pos.legal_plays(dice) == [bg.Play(())]:
        return None
    return pos.to_board()


def bg_hit_not_on_bar(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A hit checker taken off the board instead of put on the bar (004)."""
    hits = [p for p in pos.legal_plays(dice) if any(m.hit for m in p.moves)]
    if not hits:
        return None
    after = pos.apply(rng.choice(hits)).to_board()
    if pos.turn == 0:
        return _replace_board(after, bar_black=after.bar_black - 1)
    return _replace_board(after, bar_white=after.bar_white - 1)


def bg_opponent_moved(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A legal play, and an opposing checker nudged one point as well."""
    result = _random_legal_result(pos, dice, rng)
    theirs, mine = list(result.sides[result.turn]), list(result.sides[1 - result.turn])
    for p in range(24, 1, -1):
        if theirs[p - 1] and mine[24 - (p - 1)] == 0:
            theirs[p - 1] -= 1
            theirs[p - 2] += 1
            return _bg_board(pos, mine, theirs)
    return None


def bg_extra_move(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """A legal play and one more checker moved by the first number: too much."""
    if dice[0] == dice[1]:
        return None
    result = _random_legal_result(pos, dice, rng)
    mine, theirs = list(result.sides[pos.turn]), list(result.sides[1 - pos.turn])
    return _step_first_open(pos, mine, theirs, dice[0])


def bg_higher_not_played(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """Only one number can be played, and the lower one was (002, 004: it must be the higher)."""
    d1, d2 = dice
    if d1 == d2 or any(len(p.moves) != 1 for p in pos.legal_plays(dice)):
        return None
    lower = min(d1, d2)
    mine, theirs = _sides(pos)
    starts = [25] if mine[24] else [p for p in range(24, lower, -1) if mine[p - 1]]
    for p in starts:
        q = p - lower
        if q >= 1 and _theirs_at(theirs, q) <= 1:
            mine[p - 1 if p < 25 else 24] -= 1
            mine[q - 1] += 1
            if _theirs_at(theirs, q) == 1:
                theirs[24 - q] -= 1
                theirs[24] += 1
            return _bg_board(pos, mine, theirs)
    return None


def bg_standard_play_in_hofer(pos: bg.Position, dice: tuple[int, ...], rng: random.Random):
    """Hofer rules (001): a play that is legal by the standard rules only: the higher number
    first, or a double played four times with the top face (the bottom face is due)."""
    if pos.options.name != "hofer":
        return None
    hofer = {r.to_board() for r in pos.legal_results(dice)}
    standard = [r.to_board() for r in pos.with_options(bg.Options.preset("standard"))
                .legal_results(dice)]
    broken = [b for b in standard if b not in hofer]
    return rng.choice(broken) if broken else None


def _replace_board(board: BackgammonBoard, **changes: int) -> BackgammonBoard:
    values = {
        "points": board.points,
        "bar_white": board.bar_white,
        "bar_black": board.bar_black,
        "off_white": board.off_white,
        "off_black": board.off_black,
    }
    values.update(changes)
    return BackgammonBoard(**values)


BACKGAMMON: dict[str, Maker] = {
    "wrong_distance": bg_wrong_distance,
    "intermediate_blocked": bg_intermediate_blocked,
    "bar_not_first": bg_bar_not_first,
    "one_die_only": bg_one_die_only,
    "double_short": bg_double_short,
    "bear_off_early": bg_bear_off_early,
    "backwards": bg_backwards,
    "no_move": bg_no_move,
    "hit_not_on_bar": bg_hit_not_on_bar,
    "opponent_moved": bg_opponent_moved,
    "extra_move": bg_extra_move,
    "higher_not_played": bg_higher_not_played,
    "standard_play_in_hofer": bg_standard_play_in_hofer,
}


# ---- Mensch ärgere Dich nicht ----------------------------------------------------------------


def _pieces(pos: maedn.Position) -> list[list[int]]:
    return [list(p) for p in pos.pieces]


def _maedn_board(pieces: list[list[int]]) -> MaednBoard:
    return MaednBoard(tuple(tuple(sorted(p)) for p in pieces))


def _free_for(pos: maedn.Position, seat: int, value: int) -> bool:
    """No piece of any seat on the field `seat` counts as `value`."""
    if value >= maedn.GOAL_FIRST:
        return value not in pos.pieces[seat]
    field = pos.track_field(seat, value)
    return all(
        pos.track_field(s, v) != field
        for s in range(pos.players)
        for v in pos.pieces[s]
        if 0 <= v < maedn.TRACK_FIELDS
    )


def md_wrong_distance(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A piece moved one field more than the die shows (000, 003)."""
    seat, die = pos.turn, dice[0]
    pieces = _pieces(pos)
    for i, v in enumerate(pieces[seat]):
        target = v + die + 1
        if v >= 0 and target <= maedn.GOAL_LAST and _free_for(pos, seat, target):
            pieces[seat][i] = target
            return _maedn_board(pieces)
    return None


def md_out_without_six(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A piece left the house without a 6 (000, 003)."""
    seat, die = pos.turn, dice[0]
    pieces = _pieces(pos)
    if die == 6 or maedn.HOUSE not in pieces[seat] or not _free_for(pos, seat, 0):
        return None
    pieces[seat][pieces[seat].index(maedn.HOUSE)] = 0
    return _maedn_board(pieces)


def md_six_not_out(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A 6 used on the track while pieces wait in the house and the start field is free."""
    seat, die = pos.turn, dice[0]
    if die != 6 or maedn.HOUSE not in pos.pieces[seat] or not _free_for(pos, seat, 0):
        return None
    pieces = _pieces(pos)
    for i, v in enumerate(pieces[seat]):
        if v >= 0 and v + 6 <= maedn.GOAL_LAST and _free_for(pos, seat, v + 6):
            pieces[seat][i] = v + 6
            return _maedn_board(pieces)
    return None


def md_onto_own_piece(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A piece put onto a field where an own piece stands (000, 003: own pieces block)."""
    seat, die = pos.turn, dice[0]
    pieces = _pieces(pos)
    for i, v in enumerate(pieces[seat]):
        if v >= 0 and v + die in pieces[seat]:
            pieces[seat][i] = v + die
            return _maedn_board(pieces)
    return None


def md_captured_not_home(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A capture where the captured piece was left standing instead of going home (000, 003)."""
    captures = [m for m in pos.legal_plays(dice[0]) if m.captured is not None]
    if not captures:
        return None
    move = rng.choice(captures)
    victim = move.captured
    pieces = _pieces(pos.apply(move, dice[0]))
    field = pos.track_field(pos.turn, move.dst)
    old = next(v for v in pos.pieces[victim] if pos.track_field(victim, v) == field)
    pieces[victim].remove(maedn.HOUSE)
    pieces[victim].append(old)
    return _maedn_board(pieces)


def md_other_seat_moved(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A piece of another seat moved by the die."""
    for seat in range(pos.players):
        if seat == pos.turn:
            continue
        for i, v in enumerate(pos.pieces[seat]):
            target = v + dice[0]
            if v >= 0 and target < maedn.TRACK_FIELDS and _free_for(pos, seat, target):
                pieces = _pieces(pos)
                pieces[seat][i] = target
                return _maedn_board(pieces)
    return None


def md_no_move(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """Nothing moved although a move exists."""
    if not pos.legal_plays(dice[0]):
        return None
    return pos.to_board()


def md_two_pieces(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A legal move and a second own piece moved one field as well."""
    moves = pos.legal_plays(dice[0])
    if not moves:
        return None
    after = pos.apply(rng.choice(moves), dice[0])
    seat = pos.turn
    for i, v in enumerate(after.pieces[seat]):
        if v >= 0 and v + 1 < maedn.TRACK_FIELDS and _free_for(after, seat, v + 1):
            pieces = _pieces(after)
            pieces[seat][i] = v + 1
            return _maedn_board(pieces)
    return None


def md_backwards(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A piece moved backwards on the track."""
    seat, die = pos.turn, dice[0]
    for i, v in enumerate(pos.pieces[seat]):
        if die <= v < maedn.TRACK_FIELDS and _free_for(pos, seat, v - die):
            pieces = _pieces(pos)
            pieces[seat][i] = v - die
            return _maedn_board(pieces)
    return None


def md_start_not_cleared(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """The own start field is not cleared while pieces wait in the house (000 with a 6, 003 at
    the first chance): another piece moved instead."""
    seat, die = pos.turn, dice[0]
    mine = pos.pieces[seat]
    if maedn.START not in mine or maedn.HOUSE not in mine:
        return None
    for i, v in enumerate(mine):
        target = v + die
        if v > 0 and target < maedn.TRACK_FIELDS and _free_for(pos, seat, target):
            pieces = _pieces(pos)
            pieces[seat][i] = target
            return _maedn_board(pieces)
    return None


def md_goal_passed(pos: maedn.Position, dice: tuple[int, ...], rng: random.Random):
    """A piece ran past its own goal and on along the track (003: no foreign goal fields)."""
    seat, die = pos.turn, dice[0]
    for i, v in enumerate(pos.pieces[seat]):
        target = (v + die) - maedn.TRACK_FIELDS
        if v < maedn.TRACK_FIELDS <= v + die and _free_for(pos, seat, target):
            pieces = _pieces(pos)
            pieces[seat][i] = target
            return _maedn_board(pieces)
    return None


MAEDN: dict[str, Maker] = {
    "wrong_distance": md_wrong_distance,
    "out_without_six": md_out_without_six,
    "six_not_out": md_six_not_out,
    "onto_own_piece": md_onto_own_piece,
    "captured_not_home": md_captured_not_home,
    "other_seat_moved": md_other_seat_moved,
    "no_move": md_no_move,
    "two_pieces": md_two_pieces,
    "backwards": md_backwards,
    "start_not_cleared": md_start_not_cleared,
    "goal_passed": md_goal_passed,
}

MAKERS: dict[str, dict[str, Maker]] = {"backgammon": BACKGAMMON, "maedn": MAEDN}


def legal_boards(pos: Any, dice: tuple[int, ...]) -> set[Board]:
    """Every board a legal play can leave (what an injected board must not be)."""
    return {pos.apply(play, dice).to_board() for play in pos.legal_plays(dice) or [None]}


def make_illegal(
    game: str, pos: Any, dice: tuple[int, ...], rng: random.Random, exclude: Sequence[str] = ()
) -> tuple[str, Board] | None:
    """(kind, board) of one random applicable illegal play, or None when none applies."""
    makers = [(kind, maker) for kind, maker in MAKERS[game].items() if kind not in exclude]
    rng.shuffle(makers)
    allowed = legal_boards(pos, dice)
    for kind, maker in makers:
        board = maker(pos, dice, rng)
        if board is not None and board not in allowed:
            return kind, board
    return None
