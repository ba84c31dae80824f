"""Standard backgammon notation, from the mover's side: "24/18*/13 6/off", "bar/22", "8/5(2)".

Points are numbered from the side that moves (its 24-point is the opponent's 1-point), so the
same text means the same thing for White and Black. `parse_moves` inverts `format_moves` for
every move list; it also reads chains of one checker ("24/18*/13") as separate moves.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import NamedTuple

from controller.rules.errors import InvalidNotation

log = logging.getLogger(__name__)

BAR = 25
OFF = 0
MAX_MOVES = 8  # Hofer doubles: the top face twice and the bottom face twice, jumps split


class Move(NamedTuple):
    """One checker step in the mover's numbering: `src` 25 = bar, `dst` 0 = off."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_point(self.src)}/{_point(self.dst)}{'*' if self.hit else ''}"


def _point(n: int) -> str:
    return "bar" if n == BAR else "off" if n == OFF else str(n)


_TOKEN = re.compile(r"^(bar|\d{1,2})((?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?$")
_STEP = re.compile(r"/(off|\d{1,2})(\*?)")


def format_moves(moves: Sequence[Move]) -> str:
    """Standard notation, one token per move in order, repeats as "(n)"; "-" for no move."""
    if not moves:
        return "-"
    parts: list[str] = []
    i = 0
    while i < len(moves):
        j = i
        while j + 1 < len(moves) and moves[j + 1] == moves[i]:
            j += 1
        parts.append(str(moves[i]) + (f"({j - i + 1})" if j > i else ""))
        i = j + 1
    return " ".join(parts)


def parse_moves(text: str) -> tuple[Move, ...]:
    """Moves from standard notation; InvalidNotation names the token that cannot be read.

    Hit marks ("*") are read but the engine recomputes hits from the board when applying.
    """
    text = text.strip()
    if text in ("-", "", "pass"):
        return ()
    moves: list[Move] = []
    for token in text.replace(",", " ").split():
        match = _TOKEN.match(token.lower())
        if not match:
            raise InvalidNotation(f"cannot read {token!r} (expected e.g. 24/18, bar/22*, 6/off)")
        first, rest, repeat = match.groups()
        src = BAR if first == "bar" else int(first)
        chain: list[Move] = []
        for dst_text, star in _STEP.findall(rest):
            dst = OFF if dst_text == "off" else int(dst_text)
            if not 1 <= src <= BAR or not 0 <= dst <= 24:
                raise InvalidNotation(f"point out of range in {token!r} (points are 1..24)")
            chain.append(Move(src, dst, star == "*"))
            src = dst
        if repeat is not None and not 1 <= int(repeat) <= 4:
            raise InvalidNotation(f"repeat count in {token!r} must be 1..4")
        moves.extend(chain * int(repeat or 1))
    if len(moves) > MAX_MOVES:
        raise InvalidNotation(f"{len(moves)} moves are more than any roll allows: {text!r}")
    return tuple(moves)
