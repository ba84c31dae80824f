"""Unsure readings held against the legal results of the turn (docs/vision.md, "When the
reading is unsure").

When the board is not read with confidence while the referee waits for a play, every board a
legal play of the turn leaves is scored against the frame's evidence (`Observation.score`: the
log-likelihood of that board, in nats) and compared with the *free reading*, the best score
any board could get (each field's likeliest state). Held against the frame with them: the
position before the play (the player may not have moved yet) and, next to each result that
may decide, the *careless* boards a player leaves by mistake (`careless`). Then:

* one board that fits (within `SLACK` of the free reading) and beats every other by `MARGIN`
  (a careless one by `CARELESS_MARGIN`) is the board seen: a `BoardObserved`, judged as any
  other. A legal result or the position before is so taken; a careless board so seen is the
  illegal play it is, and done flags it with what to put back (asking the players to check
  pieces they believe right left them waiting on a table that could not say what was wrong);
* two or three legal results that fit and lie within `MARGIN` of each other are a
  `BoardCandidates`: the seat on turn chooses with its done button (the referee only ever
  offers legal results);
* anything else is a `BoardUnsure`: the referee holds no board and asks the players to check
  the pieces. Nothing fits (an illegal play further from every legal result, or a play
  still being made), a careless board fits about as well as a result, too many fit, or the
  position before the play fits about as well as a result.

A reading that is sure goes the usual way (`ObservationEvents`), so an illegal play read
surely is flagged as before. An illegal board read unsurely can pass for a legal result only
where the frame cannot see it: one checker or piece away from the result, the frame must find
it 20 times less likely (`CARELESS_MARGIN`); further away, no more than 7 times likelier
(`SLACK`): wrong in two or more fields the frame cannot read. Like the stabilizer, a decision
is passed on only once it has held for the settle time, and once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from controller.words.boards import BackgammonBoard, Board, MaednBoard
from controller.words.events import BoardCandidates, BoardObserved, BoardUnsure, Event

log = logging.getLogger(__name__)

#: A legal result is taken alone when it scores this many nats (e^6 ≈ 400 times likelier)
#: above every other board held against the frame; boards closer than this are a tie.
MARGIN = 6.0
#: ... and fits: it scores at most this many nats below the free reading (the frame finds it
#: at most e^2 ≈ 7 times less likely than the likeliest content of every field at once). On
#: degraded renders (docs/vision.md) a true result read unsurely fell short by 0 (median);
#: an illegal play's nearest legal result fell short by less than 4 nats only where it
#: differs from it by one checker or piece (a hit checker not on the bar: 1.9; a captured
#: Mensch piece not in its tinted house: 3.6; an extra checker moved) — those the careless
#: boards hold off.
SLACK = 2.0
#: A careless board (`careless`) stops a result from being taken alone when it scores within
#: this many nats of it (e^3 ≈ 20 times less likely), fewer than `MARGIN`: one of hundreds of
#: such boards is seldom played, and on unsure backgammon frames the likeliest one often lies
#: 1–5 nats below the true result (degraded renders: 41 % of the fitting true results kept at
#: 3 nats, 75 % at 2, 2 % at 6; the one illegal play that fitted, an extra checker moved,
#: had a careless board 1.8 nats below the result it looked like).
CARELESS_MARGIN = 3.0
#: A careless board fitting better than every legal result by this many nats
#: (e^0.5 ≈ 1.6 times) stops a choice among them.
EVEN = 0.5
#: More legal results than this fitting alike is no choice a player can make on a 20×4 display.
MOST_LISTED = 3
#: Why the board is not read: only these readings are scored (a blocked view never is).
UNSURE = ("uncertain", "impossible")
MOST_CHECKERS = 15  # of one backgammon colour


@runtime_checkable
class TurnBoards(Protocol):
    """What the referee knows of the open turn (`controller.referee.Referee`)."""

    def candidate_boards(self) -> tuple[Board, ...]: ...

    def position_board(self) -> Board | None: ...


#: What a board held against a frame is (`Scored.kind`).
RESULT = "result"  # a legal result of the turn
STANDING = "standing"  # the position before the play: nothing moved yet
CARELESS = "careless"  # an illegal board a careless player leaves next to a legal result


@dataclass(frozen=True, slots=True)
class Scored:
    """One board held against a frame: how far below the free reading it scores (nats)."""

    board: Board
    below_free: float
    kind: str  # RESULT, STANDING or CARELESS


def rank(observation: Any, candidates: tuple[Board, ...], standing: Board | None
         ) -> list[Scored]:
    """The boards held against the frame, best first: the legal results, the position before
    the play, and, for the results that may decide, their careless variants (`careless`)."""
    free = observation.evidence.best_score()

    def scored(board: Board, kind: str) -> Scored:
        return Scored(board, free - observation.score(board), kind)

    out = [scored(board, RESULT) for board in candidates]
    if standing is not None and standing not in candidates:
        out.append(scored(standing, STANDING))
    best = min(s.below_free for s in out)
    seen = {s.board for s in out}
    for s in [s for s in out if s.kind == RESULT and s.below_free - best < MARGIN]:
        for board in careless(observation, s.board, standing) if standing is not None else ():
            if board not in seen:
                seen.add(board)
                out.append(scored(board, CARELESS))
    return sorted(out, key=lambda s: s.below_free)


def careless(observation: Any, result: Board, standing: Board) -> list[Board]:
    """The illegal boards nearest to `result`, which a careless player leaves and an unsure
    frame may not tell from it. Backgammon: one checker more moved, or one moved elsewhere
    (the likeliest such board per colour, found place by place: the score is a sum over the
    fields), and a hit checker not put on the bar (beside the board or in the tray). Mensch: a
    piece missing where the play put one (a captured piece not back in its house; a piece
    moved onto its own, two on a field looking like one)."""
    if isinstance(result, BackgammonBoard) and isinstance(standing, BackgammonBoard):
        return _one_checker_moved(observation, result) + _hit_not_on_bar(result, standing)
    if isinstance(result, MaednBoard) and isinstance(standing, MaednBoard):
        return _careless_maedn(result, standing)
    return []


#: Where a backgammon checker can be: the points (0..23, White's 1..24) and its bar and tray.
PLACES: tuple[int | str, ...] = (*range(24), "bar", "off")


def _checkers(board: BackgammonBoard, place: int | str, sign: int) -> int:
    """Checkers of colour `sign` (+1 White, -1 Black) at `place`; -1 where the other colour
    stands."""
    if isinstance(place, int):
        n = board.points[place] * sign
        return n if n >= 0 else -1
    return int(getattr(board, f"{place}_{'white' if sign > 0 else 'black'}"))


def _moved(board: BackgammonBoard, place: int | str, sign: int, delta: int
           ) -> BackgammonBoard:
    """`board` with `delta` checkers of colour `sign` more at `place`."""
    if isinstance(place, int):
        points = list(board.points)
        points[place] += sign * delta
        return replace(board, points=tuple(points))
    name = f"{place}_{'white' if sign > 0 else 'black'}"
    return replace(board, **{name: getattr(board, name) + delta})


def _one_checker_moved(observation: Any, result: BackgammonBoard) -> list[BackgammonBoard]:
    base = observation.score(result)
    out = []
    for sign in (1, -1):
        counts = {place: _checkers(result, place, sign) for place in PLACES}
        take = sorted(((observation.score(_moved(result, p, sign, -1)) - base, p)
                       for p, n in counts.items() if n >= 1), key=lambda x: -x[0])[:2]
        put = sorted(((observation.score(_moved(result, p, sign, 1)) - base, p)
                      for p, n in counts.items() if 0 <= n < MOST_CHECKERS),
                     key=lambda x: -x[0])[:2]
        pairs = [(a + b, p, q) for a, p in take for b, q in put if p != q]
        if pairs:
            _, p, q = max(pairs, key=lambda x: x[0])
            out.append(_moved(_moved(result, p, sign, -1), q, sign, 1))
    return out


def _hit_not_on_bar(result: BackgammonBoard, standing: BackgammonBoard
                    ) -> list[BackgammonBoard]:
    out = []
    for colour in ("white", "black"):
        bar, off = f"bar_{colour}", f"off_{colour}"
        if getattr(result, bar) > getattr(standing, bar):  # a hit
            fewer = replace(result, **{bar: getattr(result, bar) - 1})
            out += [fewer, replace(fewer, **{off: getattr(result, off) + 1})]
    return out


def _careless_maedn(result: MaednBoard, standing: MaednBoard) -> list[MaednBoard]:
    """A piece missing where the play put one (a captured piece not back in its house)."""
    out = []
    for seat, (now, before) in enumerate(zip(result.pieces, standing.pieces, strict=True)):
        added = list(now)
        for position in before:
            if position in added:
                added.remove(position)
        for position in dict.fromkeys(added):
            fewer = list(now)
            fewer.remove(position)
            pieces = (*result.pieces[:seat], tuple(fewer), *result.pieces[seat + 1:])
            out.append(MaednBoard(pieces))
    return out


def decide(ranked: list[Scored]) -> tuple[Board, ...]:
    """The boards the frame allows: one board, taken (a legal result, the position before the
    play, or a careless board: an illegal play the frame sees clearly), two or three legal
    results (to choose from), or none.

    Where two results fit alike the frame cannot see the fields they differ on, and a
    careless board fits about as well there: the players, who can see them, choose among the
    plays the display names, unless a careless board fits better than the plays by `EVEN`."""
    if not ranked or ranked[0].below_free > SLACK:
        return ()  # nothing fits
    best = ranked[0].below_free
    close = [s for s in ranked
             if s.below_free - best < (CARELESS_MARGIN if s.kind == CARELESS else MARGIN)]
    if len(close) == 1:
        return (close[0].board,)
    plays = [s for s in close if s.kind == RESULT]
    if (any(s.kind == STANDING for s in close) or not 2 <= len(plays) <= MOST_LISTED
            or best < plays[0].below_free - EVEN):
        return ()
    return tuple(s.board for s in plays)


class BoardScoring:
    """Turns unsure Observations into `BoardObserved`, `BoardCandidates` or `BoardUnsure` while
    the referee waits for a play; call `update` with every frame's Observation.

    A decision is passed on once it has held for `settle_s` seconds (the stabilizer's settle
    time), and once; a sure reading, a blocked view or a changed decision start again.
    """

    def __init__(self, settle_s: float) -> None:
        self.settle_s = settle_s
        self._decision: tuple[Board, ...] | None = None
        self._since = 0.0
        self._passed = False
        self._last: tuple[Any, tuple[Board, ...], Board | None, tuple[Board, ...]] | None = None

    def forget(self) -> None:
        """Start again (a sure reading, a blocked view, a new game)."""
        self._decision, self._passed, self._last = None, False, None

    def update(self, observation: Any, turn: TurnBoards, t: float) -> list[Event]:
        if (getattr(observation, "blocked", False) or observation.board is not None
                or observation.problem not in UNSURE or observation.evidence is None):
            self.forget()
            return []
        candidates = turn.candidate_boards()
        if not candidates:  # no play open: an unsure reading is left to the players
            self.forget()
            return []
        decision = self._decide(observation, candidates, turn.position_board())
        if decision != self._decision:
            self._decision, self._since, self._passed = decision, t, False
        if self._passed or t - self._since < self.settle_s:
            return []
        self._passed = True
        if not decision:
            log.info("unsure reading that no legal result fits clearly")
            return [BoardUnsure(t=t)]
        if len(decision) == 1:
            log.info("unsure reading taken as the one legal result that fits")
            return [BoardObserved(board=decision[0], t=t)]
        log.info("unsure reading: %d legal results fit alike", len(decision))
        return [BoardCandidates(boards=decision, t=t)]

    def _decide(self, observation: Any, candidates: tuple[Board, ...],
                standing: Board | None) -> tuple[Board, ...]:
        """`decide` for this frame; a frame the still-frame gate repeats is not scored again."""
        last = self._last
        if (last is not None and last[0] is observation and last[1] == candidates
                and last[2] == standing):
            return last[3]
        decision = decide(rank(observation, candidates, standing))
        self._last = (observation, candidates, standing, decision)
        return decision
