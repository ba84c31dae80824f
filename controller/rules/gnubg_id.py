"""GNU Backgammon Position ID and Match ID, bit for bit as gnubg shows them.

Position ID: 80 bits; for the side NOT on roll, then the side on roll, each of its 25 places
(own ace point .. 24-point, then the bar) as that many 1-bits followed by one 0-bit; packed
little-endian into 10 bytes, base64 without padding (14 characters).
Match ID: 66 bits in 9 bytes, base64 (12 characters); field layout in `MatchState`. The gnubg
build on PyPI also sets bit 66 when the Jacoby rule is *not* in force (always so in a match);
we do the same so that our IDs equal the ones gnubg shows.
"""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import dataclass

from controller.rules.errors import InvalidPositionId

log = logging.getLogger(__name__)

Side = tuple[int, ...]  # 25 counts: index 0..23 = own 1..24-point, index 24 = bar

CHECKERS = 15


def encode_position(not_on_roll: Side, on_roll: Side) -> str:
    """Position ID of the two sides' counts (each 25 values, from its own ace point to its bar)."""
    bits = 0
    pos = 0
    for side in (not_on_roll, on_roll):
        for count in side:
            pos += count  # `count` one-bits, then a zero-bit
            bits |= ((1 << count) - 1) << (pos - count)
            pos += 1
    if pos > 80:
        raise InvalidPositionId(f"too many checkers to encode ({pos - 50} in all)")
    return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii").rstrip("=")


def decode_position(pid: str) -> tuple[Side, Side]:
    """(not_on_roll, on_roll) counts of a Position ID; InvalidPositionId says what is wrong."""
    if not isinstance(pid, str) or len(pid.strip()) != 14:
        raise InvalidPositionId(f"a Position ID has 14 characters, got {pid!r}")
    try:
        raw = base64.b64decode(pid.strip() + "==", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidPositionId(f"Position ID {pid!r} is not valid base64") from None
    bits = int.from_bytes(raw, "little")
    sides: list[list[int]] = [[], []]
    current = 0
    side = 0
    for i in range(80):
        if side == 2:
            if bits >> i:
                raise InvalidPositionId(f"Position ID {pid!r} has bits after both sides")
            break
        if bits >> i & 1:
            current += 1
        else:
            sides[side].append(current)
            current = 0
            if len(sides[side]) == 25:
                side += 1
    if side < 2:
        raise InvalidPositionId(f"Position ID {pid!r} does not describe two sides of 25 places")
    for name, counts in zip(("side not on roll", "side on roll"), sides, strict=True):
        if sum(counts) > CHECKERS:
            raise InvalidPositionId(
                f"Position ID {pid!r}: {name} has {sum(counts)} checkers (at most {CHECKERS})"
            )
    a, b = sides
    for i in range(24):
        if a[i] and b[23 - i]:
            raise InvalidPositionId(
                f"Position ID {pid!r}: both colours on the {24 - i}-point of the side on roll"
            )
    return tuple(a), tuple(b)


CUBE_CENTERED = 3
GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything a gnubg Match ID holds. `cube_owner`: 0, 1 or 3 (centred); dice (0, 0) unrolled.

    `turn` is the player who must act (on roll, or to answer a double); `dice_owner` the player
    whose dice are on the board.
    """

    cube_value: int = 1
    cube_owner: int = CUBE_CENTERED
    dice_owner: int = 0
    crawford: bool = False
    game_state: int = GAME_PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False


def _put(fields: list[tuple[int, int]]) -> int:
    bits = 0
    pos = 0
    for value, width in fields:
        if not 0 <= value < 1 << width:
            raise InvalidPositionId(
                f"value {value} does not fit the Match ID field of {width} bits"
            )
        bits |= value << pos
        pos += width
    return bits


def encode_match(state: MatchState) -> str:
    """The Match ID gnubg shows for `state`."""
    log2 = state.cube_value.bit_length() - 1
    if state.cube_value < 1 or 1 << log2 != state.cube_value:
        raise InvalidPositionId(f"cube value must be a power of two, not {state.cube_value}")
    bits = _put(
        [
            (log2, 4),
            (state.cube_owner, 2),
            (state.dice_owner, 1),
            (int(state.crawford), 1),
            (state.game_state, 3),
            (state.turn, 1),
            (int(state.doubled), 1),
            (state.resigned, 2),
            (state.dice[0], 3),
            (state.dice[1], 3),
            (state.match_length, 15),
            (state.score[0], 15),
            (state.score[1], 15),
            (int(not state.jacoby), 1),
        ]
    )
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def decode_match(mid: str) -> MatchState:
    """The fields of a Match ID; InvalidPositionId says what is wrong."""
    if not isinstance(mid, str) or len(mid.strip()) != 12:
        raise InvalidPositionId(f"a Match ID has 12 characters, got {mid!r}")
    try:
        raw = base64.b64decode(mid.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidPositionId(f"Match ID {mid!r} is not valid base64") from None
    bits = int.from_bytes(raw, "little")
    values = []
    for width in (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1):
        values.append(bits & ((1 << width) - 1))
        bits >>= width
    (
        log2,
        owner,
        dice_owner,
        crawford,
        game,
        turn,
        doubled,
        resigned,
        d1,
        d2,
        length,
        s0,
        s1,
        no_jacoby,
    ) = values
    if owner == 2:
        raise InvalidPositionId(f"Match ID {mid!r}: cube owner 2 does not exist")
    if d1 > 6 or d2 > 6:
        raise InvalidPositionId(f"Match ID {mid!r}: a die shows more than 6")
    return MatchState(
        cube_value=1 << log2,
        cube_owner=owner,
        dice_owner=dice_owner,
        crawford=bool(crawford),
        game_state=game,
        turn=turn,
        doubled=bool(doubled),
        resigned=resigned,
        dice=(d1, d2),
        match_length=length,
        score=(s0, s1),
        jacoby=not no_jacoby,
    )
