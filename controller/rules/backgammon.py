"""Backgammon positions, legal plays, the transition check (judge) and game results.

Seats: 0 = White, 1 = Black. A `Position` stores, per seat, 25 counts seen from that seat's
own side (index 0..23 = its 1..24-point, index 24 = its bar), exactly the layout of a GNU
Backgammon position key; checkers borne off are 15 minus the rest. So the side on roll's view
is one tuple lookup, and Position IDs need no conversion.

Legal plays come from `backgammon_movegen.legal_table` (plain lists and ints, memoised per
position, dice and options); the judge looks the observed result up in that table and only
searches for an explanation when the result is illegal.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from controller.rules import gnubg_id
from controller.rules.backgammon_movegen import (
    Key,
    Side,
    blocked_and_blots,
    find_play,
    legal_table,
    memoised_table,
    phases_of,
)
from controller.rules.backgammon_options import (
    DOUBLES_TOP_BOTTOM,
    HOFER,
    NON_DOUBLE_LOWER_FIRST,
    PRESETS,
    STANDARD,
    Options,
)
from controller.rules.dice import check_dice, opening_roll
from controller.rules.errors import IllegalMove, InvalidNotation, InvalidPosition
from controller.rules.notation import BAR, Move, format_moves, parse_moves
from controller.rules.verdict import Verdict
from controller.words.events import BackgammonBoard
from controller.words.reasons import Reason, reason

log = logging.getLogger(__name__)

__all__ = [
    "HOFER",
    "PRESETS",
    "STANDARD",
    "IllegalMove",
    "Move",
    "Options",
    "Play",
    "Position",
    "Result",
    "opening_roll",
]

CHECKERS = 15


R_BAR_FIRST = reason("bar_first")
R_BLOCKED = reason("blocked_point")
R_INTERMEDIATE = reason("intermediate_blocked")
R_BOTH = reason("must_use_both")
R_HIGHER = reason("must_use_higher")
R_DOUBLE_ALL = reason("must_use_double")
R_DISTANCE = reason("wrong_distance")
R_NOT_HOME = reason("bear_off_not_home")
R_HIGHER_POINT = reason("bear_off_higher_point")
R_LOWER_FIRST = reason("lower_die_first")
R_LOWER_BLOCKED = reason("lower_die_blocked")
R_TOP_FIRST = reason("top_face_first")
R_NO_MOVE = reason("no_move_possible")
R_MUST_MOVE = reason("must_move")
R_NO_CHECKER = reason("no_checker")
R_OPPONENT = reason("opponent_moved")
R_BACKWARDS = reason("backwards")


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn: the checker moves in order (empty when nothing can move)."""

    moves: tuple[Move, ...] = ()

    def notation(self) -> str:
        """Standard notation from the mover's side, e.g. "bar/22* 13/11", "8/5(2)", "6/off"."""
        return format_moves(self.moves)

    def __str__(self) -> str:
        return format_moves(self.moves)

    @staticmethod
    def parse(text: str, turn: int = 0) -> Play:
        """Read standard notation (mover's numbering, so `turn` only documents the side).

        Chains like "24/18*/13" become two moves; "(2)" repeats a move. InvalidNotation names
        the token that cannot be read.
        """
        if turn not in (0, 1):
            raise InvalidNotation(f"turn must be 0 or 1, not {turn!r}")
        return Play(parse_moves(text))


@dataclass(frozen=True, slots=True)
class Result:
    """How a finished game ended; `multiplier` is 1, 2 or 3 (before the cube)."""

    winner: int
    kind: str  # "single" | "gammon" | "backgammon"
    multiplier: int


def _check_sides(sides: tuple[Side, Side]) -> None:
    names = ("White", "Black")
    for seat, side in enumerate(sides):
        if len(side) != 25:
            raise InvalidPosition(f"{names[seat]} needs 25 counts (24 points and the bar)")
        for i, count in enumerate(side):
            if not isinstance(count, int) or count < 0:
                where = "bar" if i == 24 else f"{i + 1}-point"
                raise InvalidPosition(f"{names[seat]} has {count!r} checkers on its {where}")
        total = sum(side)
        if total > CHECKERS:
            raise InvalidPosition(f"{names[seat]} has {total} checkers (a side has {CHECKERS})")
    white, black = sides
    for i in range(24):
        if white[i] and black[23 - i]:
            raise InvalidPosition(f"White and Black both have checkers on White's {i + 1}-point")


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable backgammon position: both sides' counts, who is on roll, the rules.

    Build it with `initial`, `from_board` or `from_position_id`; those check the position.
    """

    sides: tuple[Side, Side]
    turn: int = 0
    options: Options = STANDARD

    def __post_init__(self) -> None:
        if self.turn not in (0, 1):
            raise InvalidPosition(f"turn must be 0 (White) or 1 (Black), not {self.turn!r}")
        if len(self.sides) != 2:
            raise InvalidPosition(f"a position has two sides, got {len(self.sides)}")
        if type(self.sides) is not tuple or any(type(side) is not tuple for side in self.sides):
            # lists would make the value unhashable and mutable from outside
            object.__setattr__(self, "sides", (tuple(self.sides[0]), tuple(self.sides[1])))
        _check_sides(self.sides)

    # construction ---------------------------------------------------------------------------

    @classmethod
    def initial(cls, options: Options = STANDARD, players: int = 2) -> Position:
        """The 2-5-3-5 starting set-up, White (seat 0) on roll (two players, as always)."""
        if players != 2:
            raise InvalidPosition(f"backgammon is played by 2 players, not {players!r}")
        side = [0] * 25
        side[23], side[12], side[7], side[5] = 2, 5, 3, 5
        return cls((tuple(side), tuple(side)), 0, options)

    @classmethod
    def from_points(
        cls,
        points: Sequence[int],
        bar: tuple[int, int] = (0, 0),
        off: tuple[int, int] | None = None,
        turn: int = 0,
        options: Options = STANDARD,
    ) -> Position:
        """From White's view: `points[i]` checkers on White's (i+1)-point, + White / - Black.

        `off` is checked against 15 minus the checkers on board and bar when given.
        """
        if len(points) != 24:
            raise InvalidPosition(f"a board has 24 points, got {len(points)}")
        for i, p in enumerate(points):
            if isinstance(p, bool) or not isinstance(p, int):
                raise InvalidPosition(f"point {i + 1} holds {p!r}, not a whole number")
        white = [max(p, 0) for p in points] + [bar[0]]
        black = [max(-points[23 - j], 0) for j in range(24)] + [bar[1]]
        position = cls((tuple(white), tuple(black)), turn, options)
        if off is not None:
            for seat, name in enumerate(("White", "Black")):
                if off[seat] < 0 or off[seat] != position.off[seat]:
                    raise InvalidPosition(
                        f"{name}: {sum(position.sides[seat])} checkers on board and bar plus "
                        f"{off[seat]} off is not {CHECKERS}"
                    )
        return position

    @classmethod
    def from_board(
        cls, board: BackgammonBoard, turn: int = 0, options: Options = STANDARD
    ) -> Position:
        """The position a stable board reading shows (`BackgammonBoard`), `turn` on roll."""
        return cls.from_points(
            board.points,
            (board.bar_white, board.bar_black),
            (board.off_white, board.off_black),
            turn,
            options,
        )

    @classmethod
    def from_position_id(cls, pid: str, turn: int = 0, options: Options = STANDARD) -> Position:
        """From a gnubg Position ID; `turn` is the seat on roll (the ID does not say)."""
        not_on_roll, on_roll = gnubg_id.decode_position(pid)
        sides = (on_roll, not_on_roll) if turn == 0 else (not_on_roll, on_roll)
        return cls(sides, turn, options)

    def with_turn(self, seat: int) -> Position:
        """The same checkers with `seat` on roll (e.g. after a roll was lost)."""
        return Position(self.sides, seat, self.options)

    def with_options(self, options: Options) -> Position:
        """The same position judged by other rules."""
        return Position(self.sides, self.turn, options)

    # views ----------------------------------------------------------------------------------

    @property
    def bar(self) -> tuple[int, int]:
        """Checkers on the bar (White, Black)."""
        return self.sides[0][24], self.sides[1][24]

    @property
    def off(self) -> tuple[int, int]:
        """Checkers borne off (White, Black): 15 minus those on board and bar."""
        return CHECKERS - sum(self.sides[0]), CHECKERS - sum(self.sides[1])

    @property
    def points(self) -> tuple[int, ...]:
        """24 signed counts from White's view (+ White, - Black)."""
        white, black = self.sides
        return tuple(white[i] - black[23 - i] for i in range(24))

    def to_board(self) -> BackgammonBoard:
        """The board as the camera reports it (White's view), to compare with observations."""
        bar, off = self.bar, self.off
        return BackgammonBoard(self.points, bar[0], bar[1], off[0], off[1])

    def position_id(self) -> str:
        """gnubg Position ID, seen from the side on roll."""
        return gnubg_id.encode_position(self.sides[1 - self.turn], self.sides[self.turn])

    def pip_counts(self) -> tuple[int, int]:
        """Pips each side still has to travel (bar = 25), (White, Black)."""
        return tuple(sum((i + 1) * c for i, c in enumerate(side)) for side in self.sides)

    def diagram(self) -> str:
        """A plain-text board from White's side (W = White, B = Black), for logs and the CLI."""
        points = self.points
        bar, off = self.bar, self.off

        def row(numbers: range) -> str:
            cells = []
            for n in numbers:
                c = points[n - 1]
                cells.append(f"{abs(c)}{'W' if c > 0 else 'B'}" if c else ".")
            return " ".join(f"{n:>3}" for n in numbers) + "\n" + " ".join(f"{c:>3}" for c in cells)

        return "\n".join(
            [
                f"{self.position_id()}  {'White' if self.turn == 0 else 'Black'} on roll",
                row(range(13, 25)),
                row(range(12, 0, -1)),
                f"bar W{bar[0]} B{bar[1]}   off W{off[0]} B{off[1]}   pips {self.pip_counts()}",
            ]
        )

    def __str__(self) -> str:
        pips = self.pip_counts()
        return (
            f"{self.position_id()} ({'White' if self.turn == 0 else 'Black'} on roll, "
            f"pips {pips[0]}:{pips[1]}, bar {self.bar}, off {self.off})"
        )

    # rules ----------------------------------------------------------------------------------

    def _table(self, dice: Sequence[int]) -> dict[Key, tuple[Move, ...]]:
        d1, d2 = check_dice(dice)
        return legal_table(self.sides[self.turn], self.sides[1 - self.turn], d1, d2, self.options)

    def legal_plays(self, dice: Sequence[int]) -> list[Play]:
        """One Play per distinct resulting position; `[Play(())]` when nothing can move."""
        return [Play(moves) for moves in self._table(dice).values()]

    def legal_results(self, dice: Sequence[int]) -> list[Position]:
        """The distinct positions a legal play can lead to (opponent on roll)."""
        return [self._after(key) for key in self._table(dice)]

    def legal_result_ids(self, dice: Sequence[int]) -> list[str]:
        """gnubg Position IDs of the legal results, still seen from the side that moved.

        When nothing can move, the one result is the unchanged position.
        """
        theirs = self.sides[1 - self.turn]
        return [
            gnubg_id.encode_position(_hit(theirs, hits), mine) for mine, hits in self._table(dice)
        ]

    def _after(self, key: Key) -> Position:
        mine, hits = key
        theirs = _hit(self.sides[1 - self.turn], hits)
        sides = (mine, theirs) if self.turn == 0 else (theirs, mine)
        return Position(sides, 1 - self.turn, self.options)

    def apply(self, play: Play, dice: Sequence[int] | None = None) -> Position:
        """The position after `play`, opponent on roll. Checks the board allows each move, and
        with `dice` also that the play is legal with them (`why_not`).

        IllegalMove names the rule and the first move the board does not allow.
        """
        if dice is not None:
            why = self.why_not(play, dice)
            if why is not None:
                raise IllegalMove(why, play)
        mine, hits, problem = _walk(self.sides[self.turn], self.sides[1 - self.turn], play.moves)
        if problem is not None:
            raise IllegalMove(*problem)
        return self._after((mine, hits))

    def steps(self, play: Play, dice: Sequence[int] | None = None) -> list[Position]:
        """The positions after each checker move of `play` in order, as a camera sees the play
        being made (the last is `apply(play, dice)`; `dice` as there)."""
        if dice is not None:
            self.apply(play, dice)
        return [self.apply(Play(play.moves[: k + 1])) for k in range(len(play.moves))]

    def judge(self, after: Position | BackgammonBoard, dice: Sequence[int]) -> Verdict[Play]:
        """Was the change from this position to `after` a legal play of `dice`?

        Any order of checker moves that reaches a legal result is legal. When illegal: the
        reason and the legal plays whose results differ in the fewest places. An `after` that
        cannot be a position at all raises InvalidPosition.
        """
        d1, d2 = check_dice(dice)
        if isinstance(after, BackgammonBoard):
            after = Position.from_board(after, 1 - self.turn, self.options)
        mine, theirs = self.sides[self.turn], self.sides[1 - self.turn]
        mine_after = after.sides[self.turn]
        hits = _hits_between(theirs, after.sides[1 - self.turn])
        if hits is not None:
            key = (mine_after, hits)
            known = memoised_table(mine, theirs, d1, d2, self.options)
            if known is not None and key in known:
                return Verdict(True, Play(known[key]))
            found = find_play(mine, theirs, d1, d2, self.options, mine_after, hits)
            if found is not None:
                return Verdict(True, Play(found))
            table = self._table(dice)
            if key in table:
                return Verdict(True, Play(table[key]))
            why = self._diagnose(mine_after, hits, dice, table)
        else:
            table = self._table(dice)
            why = R_OPPONENT
        return Verdict(False, None, why, self._nearest(after, table))

    def why_not(self, play: Play, dice: Sequence[int]) -> Reason | None:
        """None when `play` is legal with `dice`, else the reason it is not."""
        table = self._table(dice)
        mine, hits, problem = _walk(self.sides[self.turn], self.sides[1 - self.turn], play.moves)
        if problem is not None:
            return problem[0]
        if (mine, hits) in table:
            return None
        return self._diagnose(mine, hits, dice, table)

    def is_over(self) -> bool:
        """True once a side has borne off all its checkers (`result` says how it ended)."""
        return self.result() is not None

    def result(self) -> Result | None:
        """None while both sides have checkers left; else winner, kind and multiplier."""
        for seat in (0, 1):
            if sum(self.sides[seat]) == 0:
                loser = self.sides[1 - seat]
                if not self.options.gammons or sum(loser) < CHECKERS:
                    return Result(seat, "single", 1)
                # the loser's bar or the winner's home board (loser's 19..24-points)
                if loser[24] or any(loser[18:24]):
                    return Result(seat, "backgammon", 3)
                return Result(seat, "gammon", 2)
        return None

    # explanations ---------------------------------------------------------------------------

    def _nearest(self, after: Position, table: dict[Key, tuple[Move, ...]]) -> tuple[Play, ...]:
        """Up to three legal plays whose results differ from `after` in the fewest places
        (points and bar of either colour, and the two off trays)."""
        seen_mine, seen_theirs = after.sides[self.turn], after.sides[1 - self.turn]
        theirs = self.sides[1 - self.turn]

        def distance(key: Key) -> int:
            mine, hits = key
            other = _hit(theirs, hits)
            return (
                sum(a != b for a, b in zip(mine, seen_mine, strict=True))
                + sum(a != b for a, b in zip(other, seen_theirs, strict=True))
                + (sum(mine) != sum(seen_mine))
                + (sum(other) != sum(seen_theirs))
            )

        ranked = sorted(table, key=distance)
        return tuple(Play(table[key]) for key in ranked[:3])

    def _diagnose(
        self, mine_after: Side, hits: int, dice: Sequence[int], table: dict[Key, tuple[Move, ...]]
    ) -> Reason:
        mine = self.sides[self.turn]
        theirs = self.sides[1 - self.turn]
        legal_empty = list(table.values()) == [()]
        if mine_after == mine and hits == 0:
            return R_MUST_MOVE
        d1, d2 = check_dice(dice)
        found = _relaxed_search(mine, theirs, d1, d2, self.options, mine_after, hits)
        if found is None:
            return R_DISTANCE
        violations, used = found
        lower_first = self.options.non_double == NON_DOUBLE_LOWER_FIRST and d1 != d2
        if lower_first and legal_empty and violations <= {"order", "intermediate"}:
            return R_LOWER_BLOCKED
        for key in ("bar_first", "intermediate", "not_home", "higher_point"):
            if key in violations:
                return _VIOLATION_REASONS[key]
        if "order" in violations:
            if d1 == d2:
                return R_TOP_FIRST
            return R_LOWER_BLOCKED if legal_empty else R_LOWER_FIRST
        if legal_empty:
            return R_LOWER_BLOCKED if lower_first else R_NO_MOVE
        if d1 == d2:
            return R_TOP_FIRST if self.options.doubles == DOUBLES_TOP_BOTTOM else R_DOUBLE_ALL
        return R_HIGHER if used == 1 and _max_dice(table) == 1 else R_BOTH


_VIOLATION_REASONS = {
    "bar_first": R_BAR_FIRST,
    "intermediate": R_INTERMEDIATE,
    "not_home": R_NOT_HOME,
    "higher_point": R_HIGHER_POINT,
}


def _pips(side: Side) -> int:
    return sum((i + 1) * c for i, c in enumerate(side))


def _max_dice(table: dict[Key, tuple[Move, ...]]) -> int:
    """Dice used by the legal plays (a bear-off or a jump move may stand for one or two)."""
    return max(len(moves) for moves in table.values())


def _hit(theirs: Side, hits: int) -> Side:
    if not hits:
        return theirs
    out = list(theirs)
    count = 0
    for p in range(1, 25):
        if hits >> p & 1:
            out[24 - p] -= 1
            count += 1
    out[24] += count
    return tuple(out)


def _hits_between(before: Side, after: Side) -> int | None:
    """Bitmask (mover's points) of blots hit, or None if the opponent changed otherwise."""
    hits = 0
    count = 0
    for j in range(24):
        if before[j] != after[j]:
            if before[j] == 1 and after[j] == 0:
                hits |= 1 << (24 - j)
                count += 1
            else:
                return None
    if after[24] != before[24] + count:
        return None
    return hits


def _walk(
    mine: Side, theirs: Side, moves: Sequence[Move]
) -> tuple[Side, int, tuple[Reason, Move] | None]:
    """Apply moves mechanically (board physics only): result counts, hits, first problem and
    the move that has it."""
    blocked, blots = blocked_and_blots(theirs)
    m = [0, *mine]
    hits = 0
    for move in moves:
        src, dst = move.src, move.dst
        if not 1 <= src <= BAR or not 0 <= dst <= 24:
            return mine, 0, (R_DISTANCE, move)
        if m[src] == 0:
            return mine, 0, (R_NO_CHECKER, move)
        if dst >= src:
            return mine, 0, (R_BACKWARDS, move)
        if blocked[dst]:
            return mine, 0, (R_BLOCKED, move)
        m[src] -= 1
        if dst:
            m[dst] += 1
            hits |= blots & (1 << dst)
    return tuple(m[1:]), hits, None


# When two explanations break equally many rules, the cheaper one names the player's mistake
# best: a one-checker move through a blocked point, then a wrong order, then the rest.
_VIOLATION_COST = {"intermediate": 10, "order": 11}


def _cost(violations: frozenset[str]) -> int:
    return sum(_VIOLATION_COST.get(v, 12) for v in violations)


def _relaxed_search(
    mine: Side, theirs: Side, d1: int, d2: int, options: Options, target: Side, target_hits: int
) -> tuple[frozenset[str], int] | None:
    """Find a way to reach (target, target_hits) with the dice, breaking as few rules as
    possible: (rules broken, dice used), preferring fewer broken rules, then more dice.
    No rule broken means a legal-looking but incomplete play. None: no sequence of die
    steps explains the change at all."""
    blocked, blots = blocked_and_blots(theirs)
    phases, _ = phases_of(d1, d2, options)
    ordered = [die for phase in phases for die in phase]
    phase_of = [n for n, phase in enumerate(phases) for _ in phase]
    suffix_target = [0] * 27
    for p in range(25, 0, -1):
        suffix_target[p] = suffix_target[p + 1] + (target[p - 1] if p <= 24 else 0)
    target_m = (0, *target)
    best: list[tuple[frozenset[str], int] | None] = [None]
    # state -> cheapest rule-breaking seen there; the dice used are a set (order is in viol)
    seen: dict[tuple, int] = {}

    def feasible(m: list[int]) -> bool:
        acc = 0
        for p in range(25, 0, -1):
            acc += m[p]
            if acc < suffix_target[p]:
                return False
        return True

    def visit(
        m: list[int], hits: int, used: tuple[int, ...], pending: int, viol: frozenset[str], gap: int
    ) -> None:
        state = (tuple(m), hits, used, pending)
        cost = _cost(viol)
        if seen.get(state, cost + 1) <= cost:
            return
        seen[state] = cost
        if (
            pending == 0
            and hits == target_hits
            and tuple(m[1:]) == target_m[1:]
            and (best[0] is None or (cost, -len(used)) < (_cost(best[0][0]), -best[0][1]))
        ):
            best[0] = (viol, len(used))
        remaining = [i for i in range(len(ordered)) if i not in used]
        if gap > sum(ordered[i] for i in remaining):  # pips left exceed the dice left
            return
        tried = set()
        for i in remaining:
            die = ordered[i]
            if die in tried:
                continue
            tried.add(die)
            order_bad = any(phase_of[j] < phase_of[i] for j in remaining)
            hi = BAR
            while hi and not m[hi]:
                hi -= 1
            sources = [pending] if pending else [p for p in range(BAR, 0, -1) if m[p]]
            for src in sources:
                v = set(viol)
                if order_bad:
                    v.add("order")
                if m[BAR] and src != BAR and options.bar_enters_first:
                    v.add("bar_first")
                dst = src - die
                new_pending = 0
                if dst > 0:
                    if blocked[dst]:
                        v.add("intermediate")
                        new_pending = dst
                elif dst == 0 or (src == hi and options.bear_off_higher_die):
                    if hi > 6:
                        v.add("not_home")
                    dst = 0
                else:
                    v.add("higher_point")
                    if hi > 6:
                        v.add("not_home")
                    dst = 0
                bit = blots & (1 << dst) if dst and not new_pending else 0
                if bit & ~target_hits:
                    continue  # a hit cannot be undone
                m2 = m.copy()
                m2[src] -= 1
                if dst:
                    m2[dst] += 1
                if not feasible(m2):
                    continue
                step = tuple(sorted((*used, i)))
                visit(m2, hits | bit, step, new_pending, frozenset(v), gap - (src - dst))

    visit([0, *mine], 0, (), 0, frozenset(), _pips(mine) - _pips(target))
    return best[0]
