"""The `Observation`: what vision saw in one frame, before the stabilizer decides it is stable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.words import BackgammonBoard, MaednBoard

if TYPE_CHECKING:
    from vision.dice import DieReading

# Why `board` is None (the value of `Observation.problem`).
BLOCKED = "blocked"  # a hand, arm or shadow hides part of the board
UNCERTAIN = "uncertain"  # some field could not be read with enough confidence
IMPOSSIBLE = "impossible"  # the fields read do not make a position (e.g. 14 white checkers)
MOVED = "moved"  # the board is not where the calibration saw it: the camera or board moved


@dataclass(frozen=True, slots=True)
class Observation:
    """One frame's reading.

    `board` uses the referee's types (backgammon from White's side; Mensch pieces per seat in
    the seat's own counting) and is None when the frame cannot be read; `problem` says why.
    `field_confidence` pairs each field's name (`p1`..`p24`, `bar_white`, `bar_black`,
    `off_white`, `off_black`; Mensch `t0`..`t39`, `g<colour><i>`, `h<colour><i>`) with a
    confidence in 0..1; `confidence` is the lowest of them. `evidence` (when the board could be
    looked at) holds the log-probabilities per field that `score` holds a board against.
    """

    board: BackgammonBoard | MaednBoard | None
    dice: tuple[DieReading, ...]
    blocked: bool
    confidence: float
    field_confidence: tuple[tuple[str, float], ...] = ()
    problem: str = ""
    evidence: object | None = None  # `vision.board_evidence` per field, for scoring boards

    def score(self, board: BackgammonBoard | MaednBoard) -> float:
        """How well `board` fits this frame: the sum over the fields of the log-probability of
        what `board` puts there (-inf without evidence or for a board that cannot fit)."""
        if self.evidence is None:
            return float("-inf")
        return self.evidence.score(board)  # type: ignore[attr-defined]
