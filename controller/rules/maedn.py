"""Mensch ärgere Dich nicht: positions, legal moves, applying a move, turn flow and judging.

Counting: every seat counts its own pieces from its own start field: -1 house, 0 start field,
1..39 track, 40..43 its goal. Seats' start fields lie 10 track fields apart in seat order; two
players sit opposite by default (seat 1 at 20). The hot path works on plain tuples of ints; a
`Position` is a frozen, hashable value and `apply()` returns a new one.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from controller.rules.errors import IllegalMove, InvalidDice, InvalidPosition, RulesError
from controller.rules.maedn_options import Options
from controller.rules.verdict import Verdict
from controller.words.events import MaednBoard
from controller.words.reasons import Reason, reason

log = logging.getLogger(__name__)

__all__ = [
    "HOUSE",
    "IllegalMove",
    "Move",
    "Options",
    "Position",
    "start_offset",
    "starting_seat",
]

HOUSE = -1
START = 0
TRACK_FIELDS = 40
GOAL_FIRST = 40
GOAL_LAST = 43
PIECES_PER_SEAT = 4
MAX_TRIES = 3

GAME_OVER = reason("maedn.game_over")
NOT_YOUR_PIECE = reason("maedn.not_your_piece")
NO_PIECE_THERE = reason("maedn.no_piece_there")
SIX_TO_LEAVE_HOUSE = reason("maedn.six_to_leave_house")
ENTER_ON_START_FIELD = reason("maedn.enter_on_start_field")
START_FIELD_OWN_PIECE = reason("maedn.start_field_own_piece")
START_FIELD_BLOCKED = reason("maedn.start_field_blocked")
OVERSHOOT = reason("maedn.overshoot")
WRONG_DISTANCE = reason("maedn.wrong_distance")
OWN_PIECE = reason("maedn.own_piece")
NO_JUMPING = reason("maedn.no_jumping")
START_FIELD_FIRST_SIX = reason("maedn.start_field_first_six")
START_FIELD_FIRST = reason("maedn.start_field_first")
SIX_MUST_BRING_OUT = reason("maedn.six_must_bring_out")
MUST_CAPTURE = reason("maedn.must_capture")
MUST_MOVE = reason("maedn.must_move")
SEVERAL_PIECES_MOVED = reason("maedn.several_pieces_moved")
OTHER_PIECE_MOVED = reason("maedn.other_piece_moved")
CAPTURED_NOT_HOME = reason("maedn.captured_not_home")

Pieces = tuple[tuple[int, ...], ...]


class Move(NamedTuple):
    """One piece step in the mover's own counting; `src == -1` brings a piece out.

    `captured` is the seat whose piece is sent home, or None. It is derived from the position:
    `why_not` and `after` match moves by (seat, src, dst) only.
    """

    seat: int
    src: int
    dst: int
    captured: int | None = None

    def notation(self) -> str:
        """The move as from/to in the mover's counting: house is H ("H/0"), * marks a capture."""
        src = "H" if self.src == HOUSE else str(self.src)
        return f"{src}/{self.dst}" + ("*" if self.captured is not None else "")


def start_offset(seat: int, players: int, opposite: bool = True) -> int:
    """Track field (seat 0's counting) of `seat`'s start field: 0/10/20/30; two players at 0/20."""
    if not 2 <= players <= 4:
        raise InvalidPosition(f"players must be 2, 3 or 4, not {players!r}")
    if not 0 <= seat < players:
        raise InvalidPosition(
            f"seat {seat!r} out of range for {players} players (0..{players - 1})"
        )
    return seat * 20 if players == 2 and opposite else seat * 10


def starting_seat(rolls: dict[int, int], options: Options) -> int | None:
    """Who begins, from one roll per seat; None when the highest roll is tied (roll again)."""
    if options.who_begins == "seat0":
        return 0
    if not rolls:
        raise InvalidDice("no rolls to decide who begins")
    for seat, value in rolls.items():
        _check_die(value)
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise InvalidPosition(f"seat {seat!r} is not a seat number")
    best = max(rolls.values())
    leaders = [seat for seat, value in rolls.items() if value == best]
    return leaders[0] if len(leaders) == 1 else None


def _check_die(die: object) -> int:
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
        raise InvalidDice(f"a die shows 1..6, not {die!r}")
    return die


Dice = int | Sequence[int]


def _die(dice: Dice) -> int:
    """The one die of a Mensch roll, given as a number or as the roll (one value)."""
    if type(dice) is int and 1 <= dice <= 6:  # the hot path: a plain number
        return dice
    if isinstance(dice, tuple | list) and len(dice) == 1:
        return _check_die(dice[0])
    return _check_die(dice)


@dataclass(frozen=True, slots=True)
class Position:
    """A whole game state just before `turn` rolls. Build it with `initial` or `from_pieces`.

    `pieces[s]` is seat s's sorted tuple of 4 ints in its own counting; `finished` lists seats
    in finishing order; `tries_used` counts the failed tries to roll a 6 in this turn.
    """

    players: int
    turn: int
    pieces: Pieces
    options: Options
    finished: tuple[int, ...] = ()
    tries_used: int = 0
    opposite: bool = True

    @classmethod
    def initial(
        cls, options: Options | None = None, players: int = 4, turn: int = 0, opposite: bool = True
    ) -> Position:
        """The set-up before the first roll (Schmidt: one piece already on the start field)."""
        opts = options if options is not None else Options.preset("hofer")
        out = opts.pieces_on_start_field
        seat_pieces = tuple([HOUSE] * (PIECES_PER_SEAT - out) + [START] * out)
        return cls.from_pieces(
            [seat_pieces] * _check_players(players), players, turn, opts, opposite=opposite
        )

    @classmethod
    def from_pieces(
        cls,
        pieces: Sequence[Sequence[int]],
        players: int = 4,
        turn: int = 0,
        options: Options | None = None,
        finished: Sequence[int] | None = None,
        tries_used: int = 0,
        opposite: bool = True,
    ) -> Position:
        """A validated position; impossible ones raise `InvalidPosition` naming the problem.

        Without `finished`, seats with all pieces home are taken as finished in seat order.
        """
        opts = options if options is not None else Options.preset("hofer")
        players = _check_players(players)
        norm = _validate_pieces(pieces, players, opts, opposite)
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn < players:
            raise InvalidPosition(
                f"turn {turn!r}: seat number out of range for {players} players (0..{players - 1})"
            )
        home = [s for s in range(players) if all(p >= GOAL_FIRST for p in norm[s])]
        if finished is None:
            done = tuple(home)
        else:
            done = tuple(finished)
            for seat in done:
                if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
                    raise InvalidPosition(
                        f"finished seat {seat!r} out of range for {players} players"
                    )
            if len(set(done)) != len(done):
                raise InvalidPosition(f"a seat is listed twice as finished: {list(done)}")
            if sorted(done) != home:
                raise InvalidPosition(
                    f"finished seats {list(done)} do not match the seats with all pieces in "
                    f"the goal {home}"
                )
        if isinstance(tries_used, bool) or not isinstance(tries_used, int):
            raise InvalidPosition(f"tries_used must be a whole number, not {tries_used!r}")
        if not 0 <= tries_used < MAX_TRIES:
            raise InvalidPosition(f"tries_used {tries_used} out of range 0..{MAX_TRIES - 1}")
        return cls(players, turn, norm, opts, done, tries_used, bool(opposite))

    @classmethod
    def from_board(
        cls,
        board: MaednBoard,
        turn: int = 0,
        options: Options | None = None,
        players: int | None = None,
    ) -> Position:
        """The position a stable board reading shows, with `turn` to roll; `players` (one seat
        per piece list when not given) must match the board."""
        seats = len(board.pieces) if players is None else players
        return cls.from_pieces(board.pieces, seats, turn, options)

    def to_board(self) -> MaednBoard:
        """The board reading this position would give (the inverse of `from_board`)."""
        return MaednBoard(self.pieces)

    def to_json(self, die: int, variant: str) -> dict[str, object]:
        """The `rules legal --batch` input for this position and die, ready to paste."""
        return {
            "game": "maedn",
            "variant": variant,
            "players": self.players,
            "turn": self.turn,
            "dice": die,
            "pieces": [list(p) for p in self.pieces],
        }

    def is_over(self) -> bool:
        """Over at the first winner, or (playing on for places) when one seat is left."""
        needed = self.players - 1 if self.options.play_on else 1
        return len(self.finished) >= needed

    def places(self) -> tuple[int, ...]:
        """Seats from first place down: the finishing order, then (once over) the rest in seat
        order, since the game stops before they could finish."""
        if not self.is_over():
            return self.finished
        return self.finished + tuple(s for s in range(self.players) if s not in self.finished)

    def tries_allowed(self) -> int:
        """3 when three tries apply to the seat on turn (nothing on the track, goal packed)."""
        if not self.options.three_tries:
            return 1
        mine = self.pieces[self.turn]
        if any(START <= p < GOAL_FIRST for p in mine):
            return 1
        goal = sorted(p for p in mine if p >= GOAL_FIRST)
        packed = goal == list(range(GOAL_LAST + 1 - len(goal), GOAL_LAST + 1))
        return MAX_TRIES if packed else 1

    def offset(self, seat: int) -> int:
        """Track field (seat 0's counting) of `seat`'s start field."""
        return start_offset(seat, self.players, self.opposite)

    def track_field(self, seat: int, field: int) -> int | None:
        """The shared track field (seat 0's counting) of `seat`'s own field; None off the track."""
        if START <= field < TRACK_FIELDS:
            return (field + self.offset(seat)) % TRACK_FIELDS
        return None

    def _track(self) -> list[int]:
        occ = [-1] * TRACK_FIELDS
        two = self.players == 2 and self.opposite
        for seat, seat_pieces in enumerate(self.pieces):
            off = seat * 20 if two else seat * 10
            for p in seat_pieces:
                if START <= p < TRACK_FIELDS:
                    occ[(p + off) % TRACK_FIELDS] = seat
        return occ

    def _candidates(self, die: int) -> list[Move]:
        """Every move the geometry allows, before the priority rules (start field, 6, capture)."""
        o = self.options
        seat = self.turn
        mine = self.pieces[seat]
        occ = self._track()
        off = self.offset(seat)
        block = o.own_pieces_block
        moves: list[Move] = []
        if mine[0] == HOUSE and (die == 6 or not o.six_to_leave_house):
            occupant = occ[off]
            if occupant == -1 or (occupant == seat and not block):
                moves.append(Move(seat, HOUSE, START, None))
            elif occupant != seat and o.capture_on_start_field:
                moves.append(Move(seat, HOUSE, START, occupant))
        previous = HOUSE
        for src in mine:
            if src == previous:
                continue
            previous = src
            dst = src + die
            if dst > GOAL_LAST:
                if o.exact_goal_count or src == GOAL_LAST:
                    continue
                dst = GOAL_LAST
            if block and dst in mine:
                continue
            if not o.jump_over and self._path_blocked(src, dst, occ, off, mine):
                continue
            captured = None
            if dst < TRACK_FIELDS:
                occupant = occ[(dst + off) % TRACK_FIELDS]
                if occupant != -1 and occupant != seat:
                    captured = occupant
            moves.append(Move(seat, src, dst, captured))
        return moves

    @staticmethod
    def _path_blocked(src: int, dst: int, occ: list[int], off: int, mine: tuple[int, ...]) -> bool:
        for field in range(src + 1, dst):
            if field < TRACK_FIELDS:
                if occ[(field + off) % TRACK_FIELDS] != -1:
                    return True
            elif field in mine:
                return True
        return False

    def _restrict(self, moves: list[Move], die: int) -> tuple[list[Move], Reason | None]:
        """Apply the priority rules in order; returns the moves left and the rule that cut."""
        o = self.options
        mine = self.pieces[self.turn]
        house = mine[0] == HOUSE
        rule = o.start_field_rule
        if house and START in mine and (rule == "any_roll" or (rule == "with_six" and die == 6)):
            start_moves = [m for m in moves if m.src == START]
            if start_moves:
                why = START_FIELD_FIRST_SIX if rule == "with_six" else START_FIELD_FIRST
                return start_moves, why
        if house and die == 6 and o.six_must_bring_out:
            out = [m for m in moves if m.src == HOUSE]
            if out:
                return out, SIX_MUST_BRING_OUT
        if o.forced_capture:
            captures = [m for m in moves if m.captured is not None]
            if captures:
                return captures, MUST_CAPTURE
        return moves, None

    def legal_plays(self, dice: Dice) -> list[Move]:
        """The moves the seat on turn may play with the die, sorted by source; [] means pass.

        A Mensch play is one move: `dice` is the die (a number, or the roll of one value).
        """
        die = _die(dice)
        if self.is_over():
            return []
        return self._restrict(self._candidates(die), die)[0]

    def why_not(self, move: Move | None, dice: Dice) -> Reason | None:
        """None when `move` (None = pass) is legal with the die, otherwise the rule it breaks."""
        die = _die(dice)
        if move is None:
            return MUST_MOVE if self.legal_plays(die) else None
        if self.is_over():
            return GAME_OVER
        seat, src, dst = move.seat, move.src, move.dst
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise InvalidPosition(
                f"seat {seat!r} out of range for {self.players} players (0..{self.players - 1})"
            )
        if seat != self.turn:
            return NOT_YOUR_PIECE
        geometric = self._geometry_reason(src, dst, die)
        if geometric is not None:
            return geometric
        candidates = self._candidates(die)
        legal, cut_by = self._restrict(candidates, die)
        if any(m.src == src and m.dst == dst for m in legal):
            return None
        return cut_by if cut_by is not None else WRONG_DISTANCE

    def _geometry_reason(self, src: int, dst: int, die: int) -> Reason | None:
        o = self.options
        mine = self.pieces[self.turn]
        if src not in mine:
            return NO_PIECE_THERE
        occ = self._track()
        off = self.offset(self.turn)
        if src == HOUSE:
            if o.six_to_leave_house and die != 6:
                return SIX_TO_LEAVE_HOUSE
            if dst != START:
                return ENTER_ON_START_FIELD
            occupant = occ[off]
            if occupant == self.turn and o.own_pieces_block:
                return START_FIELD_OWN_PIECE
            if occupant not in (-1, self.turn) and not o.capture_on_start_field:
                return START_FIELD_BLOCKED
            return None
        expected = src + die
        if expected > GOAL_LAST:
            if o.exact_goal_count or src == GOAL_LAST:
                return OVERSHOOT
            expected = GOAL_LAST
        if dst != expected:
            return WRONG_DISTANCE
        if o.own_pieces_block and dst in mine:
            return OWN_PIECE
        if not o.jump_over and self._path_blocked(src, dst, occ, off, mine):
            return NO_JUMPING
        return None

    def _apply(self, move: Move) -> Pieces:
        seat = move.seat
        pieces = list(self.pieces)
        mine = list(pieces[seat])
        mine[mine.index(move.src)] = move.dst
        pieces[seat] = tuple(sorted(mine))
        if move.captured is not None:
            victim = move.captured
            field = (move.dst + self.offset(seat) - self.offset(victim)) % TRACK_FIELDS
            pieces[victim] = tuple(sorted(HOUSE if p == field else p for p in pieces[victim]))
        return tuple(pieces)

    def apply(self, move: Move | None, dice: Dice) -> Position:
        """The position after `move` (None = pass) with the die, with the next seat to roll.

        Raises `IllegalMove` (with the reason) for a move the rules forbid, and `RulesError`
        once the game is over.
        """
        die = _die(dice)
        if self.is_over():
            raise RulesError("the game is over; no further moves")
        legal = self.legal_plays(die)
        seat = self.turn
        if move is None:
            if legal:
                raise IllegalMove(MUST_MOVE, None)
            pieces = self.pieces
            finished = self.finished
        else:
            chosen = next((m for m in legal if m.src == move.src and m.dst == move.dst), None)
            if chosen is None or move.seat != seat:
                raise IllegalMove(self.why_not(move, die) or WRONG_DISTANCE, move)
            pieces = self._apply(chosen)
            finished = self.finished
            if seat not in finished and all(p >= GOAL_FIRST for p in pieces[seat]):
                finished = (*finished, seat)
        return self._next(die, move is not None, pieces, finished)

    def steps(self, move: Move | None, dice: Dice) -> list[Position]:
        """The positions a camera sees while the play is made: one move, one step (none when
        the turn passes)."""
        return [] if move is None else [self.apply(move, dice)]

    def apply_unseen(self, dice: Dice) -> Position:
        """The pieces unchanged (nobody saw the move), the turn passed as after a move of the
        die."""
        return self._next(_die(dice), True, self.pieces, self.finished)

    def _next(self, die: int, moved: bool, pieces: Pieces, finished: tuple[int, ...]) -> Position:
        seat = self.turn
        extra = self.options.extra_roll_after_six
        nxt = Position(self.players, seat, pieces, self.options, finished, 0, self.opposite)
        if nxt.is_over():
            return nxt
        if (
            die == 6
            and seat not in finished
            and (extra == "always" or (extra == "after_move" and moved))
        ):
            return nxt
        if not moved and self.tries_used + 1 < self.tries_allowed():
            return Position(
                self.players,
                seat,
                pieces,
                self.options,
                finished,
                self.tries_used + 1,
                self.opposite,
            )
        following = (seat + 1) % self.players
        while following in finished:
            following = (following + 1) % self.players
        return Position(self.players, following, pieces, self.options, finished, 0, self.opposite)

    def judge(self, after: Position | MaednBoard, dice: Dice) -> Verdict[Move]:
        """Was the change from this position to `after` one legal move with the die?

        Legal: the move that explains it (None when the turn passed). Illegal: the reason and
        up to three legal moves whose results differ least from what was seen.
        """
        die = _die(dice)
        if isinstance(after, Position):
            if after.players != self.players:
                raise InvalidPosition(
                    f"observed position has {after.players} players, this game {self.players}"
                )
            seen = after.pieces
        else:
            seen = _validate_pieces(after.pieces, self.players, self.options, self.opposite)
        legal = self.legal_plays(die)
        results = [(m, self._apply(m)) for m in legal]
        for move, result in results:
            if result == seen:
                return Verdict(True, move)
        nearest = tuple(m for m, _ in sorted(results, key=lambda mr: _distance(mr[1], seen))[:3])
        if seen == self.pieces:
            if not legal:
                return Verdict(True, None)
            return Verdict(False, None, MUST_MOVE, nearest)
        if self.is_over():
            return Verdict(False, None, GAME_OVER, ())
        return Verdict(False, None, self._diagnose(seen, die, results), nearest)

    def _diagnose(self, seen: Pieces, die: int, results: list[tuple[Move, Pieces]]) -> Reason:
        mover = self.turn
        before_c, after_c = Counter(self.pieces[mover]), Counter(seen[mover])
        removed = list((before_c - after_c).elements())
        added = list((after_c - before_c).elements())
        if not removed and not added:
            return OTHER_PIECE_MOVED
        if len(removed) != 1 or len(added) != 1:
            return SEVERAL_PIECES_MOVED
        move = Move(mover, removed[0], added[0])
        why = self.why_not(move, die)
        if why is not None:
            return why
        expected = next(r for m, r in results if m.src == move.src and m.dst == move.dst)
        victim = next(m.captured for m, _ in results if m.src == move.src and m.dst == move.dst)
        if victim is not None and seen[victim] != expected[victim]:
            return CAPTURED_NOT_HOME
        return OTHER_PIECE_MOVED


def _distance(a: Pieces, b: Pieces) -> tuple[int, int]:
    """How many pieces stand elsewhere in `b` than in `a`, then how many fields they are off."""
    moved = sum(sum((Counter(x) - Counter(y)).values()) for x, y in zip(a, b, strict=True))
    fields = sum(abs(p - q) for x, y in zip(a, b, strict=True) for p, q in zip(x, y, strict=True))
    return moved, fields


def _check_players(players: object) -> int:
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise InvalidPosition(f"players must be 2, 3 or 4, not {players!r}")
    return players


def _validate_pieces(
    pieces: Sequence[Sequence[int]], players: int, options: Options, opposite: bool
) -> Pieces:
    """Sorted per-seat tuples, or `InvalidPosition` naming the first impossible thing."""
    if isinstance(pieces, str | bytes) or not isinstance(pieces, Sequence):
        raise InvalidPosition(f"pieces must be a list with one list per seat, not {pieces!r}")
    if len(pieces) != players:
        raise InvalidPosition(
            f"{len(pieces)} seats of pieces given for {players} players; need one list per seat"
        )
    seats: list[tuple[int, ...]] = []
    owner: dict[int, tuple[int, int]] = {}
    for seat, seat_pieces in enumerate(pieces):
        if isinstance(seat_pieces, str | bytes) or not isinstance(seat_pieces, Sequence):
            raise InvalidPosition(f"seat {seat}: pieces must be a list, not {seat_pieces!r}")
        if len(seat_pieces) != PIECES_PER_SEAT:
            raise InvalidPosition(
                f"seat {seat} has {len(seat_pieces)} pieces; every seat has exactly "
                f"{PIECES_PER_SEAT}"
            )
        off = start_offset(seat, players, opposite)
        own: set[int] = set()
        for p in seat_pieces:
            if isinstance(p, bool) or not isinstance(p, int):
                raise InvalidPosition(f"seat {seat}: piece {p!r} is not a whole number")
            if p > GOAL_LAST:
                raise InvalidPosition(
                    f"seat {seat}: piece at {p} is beyond its own goal (40..43); "
                    "another colour's goal cannot be entered"
                )
            if p < HOUSE:
                raise InvalidPosition(f"seat {seat}: piece at {p}; -1 (house) is the lowest")
            if p == HOUSE:
                continue
            if p in own and (options.own_pieces_block or p >= GOAL_FIRST):
                raise InvalidPosition(f"seat {seat} has two pieces on its field {p}")
            own.add(p)
            if p < TRACK_FIELDS:
                field = (p + off) % TRACK_FIELDS
                other = owner.get(field)
                if other is not None and other[0] != seat:
                    raise InvalidPosition(
                        f"seats {other[0]} and {seat} both have a piece on track field {field} "
                        f"(seat {other[0]}'s {other[1]}, seat {seat}'s {p})"
                    )
                owner[field] = (seat, p)
        seats.append(tuple(sorted(seat_pieces)))
    return tuple(seats)
