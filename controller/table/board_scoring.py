"""Unsure readings held against the legal results of the turn (docs/vision.md, "When the
reading is unsure").

When the board is not read with confidence while the referee waits for a play, every board a
legal play of the turn leaves is scored against the frame's evidence (`Observation.score`: the
log-likelihood of that board, in nats) and compared with the *free reading*, the best score
any board could get (each field's likeliest state). Then:

* one legal result that fits (within `SLACK` of the free reading) and beats every other board
  by `MARGIN` is the board seen: a `BoardObserved`, judged as any other. The position before
  the play is held against the frame too (the player may not have moved yet): when it wins
  so, it is the board seen (nothing is judged by that; done then finds no move made);
* two or three that fit and lie within `MARGIN` of each other are a `BoardCandidates`: the
  seat on turn chooses with its done button (the referee only ever offers legal results);
* anything else is a `BoardUnsure`: the referee holds no board and asks the players to check
  the pieces. Nothing fits (the free reading is far better than every legal result: an
  illegal play read unsurely, or a play still being made), too many fit, or the position
  before the play fits about as well as a result.

A reading that is sure goes the usual way (`ObservationEvents`), so an illegal play read
surely is flagged as before, and an illegal play read unsurely is never made legal: a legal
result is only taken when the frame itself says it is nearly as likely as the best reading of
all, and far likelier than every other board. Like the stabilizer, a decision is passed on
only once it has held for the settle time, and once.
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
#: at most e^2 ≈ 7 times less likely than the likeliest content of every field at once).
#: Measured on degraded renders (docs/vision.md): an illegal play's nearest legal result fell
#: 3.6 nats short at the least (a captured Mensch piece not put back in its tinted house),
#: a true legal result read unsurely mostly within 1.
SLACK = 2.0
#: More legal results than this fitting alike is no choice a player can make on a 20×4 display.
MOST_LISTED = 3
#: Why the board is not read: only these readings are scored (a blocked view never is).
UNSURE = ("uncertain", "impossible")
MOST_CHECKERS = 15


@runtime_checkable
class TurnBoards(Protocol):
    """What the referee knows of the open turn (`controller.referee.Referee`)."""

    def candidate_boards(self) -> tuple[Board, ...]: ...

    def position_board(self) -> Board | None: ...


#: What a board held against a frame is (`Scored.kind`).
RESULT = "result"  # a legal result of the turn
STANDING = "standing"  # the position before the play: nothing moved yet
CARELESS = "careless"  # a legal result with a piece more or fewer where its play changed it


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
        for board in careless(s.board, standing) if standing is not None else ():
            if board not in seen:
                seen.add(board)
                out.append(scored(board, CARELESS))
    return sorted(out, key=lambda s: s.below_free)


def careless(result: Board, standing: Board) -> list[Board]:
    """`result` with one piece more or fewer on a field its play changed: the illegal boards
    a careless player leaves closest to it (a hit checker or captured piece not put back, a
    checker too many or too few on a stack). An unsure reading that cannot tell the result
    from these is not taken: such a play changes one field only, which the sum of the
    evidence (`SLACK`) alone may not see."""
    if isinstance(result, BackgammonBoard) and isinstance(standing, BackgammonBoard):
        return _careless_backgammon(result, standing)
    if isinstance(result, MaednBoard) and isinstance(standing, MaednBoard):
        return _careless_maedn(result, standing)
    return []


def _careless_backgammon(result: BackgammonBoard, standing: BackgammonBoard
                         ) -> list[BackgammonBoard]:
    out = []
    for i, (now, before) in enumerate(zip(result.points, standing.points, strict=True)):
        if now == before:
            continue
        sign = 1 if (now or before) > 0 else -1
        for count in (now + sign, now - sign):
            if count * sign >= 0 and abs(count) <= MOST_CHECKERS:
                points = (*result.points[:i], count, *result.points[i + 1:])
                out.append(replace(result, points=points))
    for name in ("bar_white", "bar_black", "off_white", "off_black"):
        now = getattr(result, name)
        if now != getattr(standing, name):
            out += [replace(result, **{name: n}) for n in (now - 1, now + 1)
                    if 0 <= n <= MOST_CHECKERS]
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
    """The boards the frame allows: one legal result or the position before the play (taken),
    two or three legal results (to choose from), or none.

    Careless boards only stop a result from being taken alone: where two results fit alike,
    a piece more or fewer fits as well (the frame cannot see those fields), and the players,
    who can, choose among the plays the display names."""
    if not ranked or ranked[0].below_free > SLACK:
        return ()  # nothing fits
    best = ranked[0].below_free
    close = [s for s in ranked if s.below_free - best < MARGIN]
    if len(close) == 1:
        return (close[0].board,) if close[0].kind != CARELESS else ()
    plays = [s.board for s in close if s.kind == RESULT]
    if any(s.kind == STANDING for s in close) or not 2 <= len(plays) <= MOST_LISTED:
        return ()
    return tuple(plays)


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
