"""A stable reading of a board: what vision's Observation carries and the referee judges.

Both games' boards are plain immutable values in the counting the table-log contract uses
(docs/table-log.md), so vision, the referee and a recorded log never translate.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BackgammonBoard:
    """A stable reading of the backgammon board, from White's side.

    `points[i]` is the number of checkers on White's (i+1)-point: positive for White, negative
    for Black. White moves from its 24-point towards its 1-point.
    """

    points: tuple[int, ...]
    bar_white: int = 0
    bar_black: int = 0
    off_white: int = 0
    off_black: int = 0


@dataclass(frozen=True, slots=True)
class MaednBoard:
    """A stable reading of the Mensch ärgere Dich nicht board, per seat.

    `pieces[s]` lists seat s's four pieces counted from that seat's own start field, exactly as
    the `rules legal --batch` contract counts them: -1 house, 0 own start field, 1..39 track,
    40..43 goal. The order of a seat's pieces carries no meaning (readers sort them).
    """

    pieces: tuple[tuple[int, ...], ...]


Board = BackgammonBoard | MaednBoard
