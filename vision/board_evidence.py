"""From labelled pixels to what each field holds, how sure that is, and how well a board fits.

Every field gets log-probabilities over what it may hold (empty or one piece colour for a
Mensch field; empty or 1..15 checkers of either colour for a backgammon lane), computed from
the pixel labels of `vision.board_look.classify` in the field's disc or along its lane. The
free reading takes each field's most likely state; `BoardEvidence.score(board)` adds up the
log-probabilities of the states a given board puts on the fields, so the referee can hold a
frame against every legal result of a turn (docs/vision.md, "When the reading is unsure").
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision.board_look import BACKGROUND, FIRST_PIECE, SHADOW, UNEXPLAINED, WEAK
from vision.board_regions import ALONG_STEP, FieldDiscs, LaneRows
from vision.geometry import BackgammonGeometry, Lane, MaednGeometry
from vision.lane_rings import RingScores
from vision.piece_edges import FAINT, EdgeLevels

#: Pixels in one field are far from independent: whether a pawn stands there counts as this
#: many observations, which colour it is as `COLOUR_WEIGHT`.
FIELD_WEIGHT = 3.0
COLOUR_WEIGHT = 6.0
#: ... one millimetre of a tray as this share of an independent observation ...
LANE_WEIGHT = 0.35
#: ... and each place a checker takes on a point as this many.
SLOT_WEIGHT = 2.0
#: How often a tray's pile is read one checker off, each way, and further off (development
#: photoreal trays, 96: 77 right, 13 one off, 6 further, mostly read 94-99.8 % sure): its
#: counts are weighed with that, so the fifteen checkers can overrule a pile's count and a
#: pile cannot make a doubtful point sure (`conserve`).
TRAY_SLIP, TRAY_FAR = 0.07, 0.06
#: What a place's change alone says of it being filled: from untouched to all changed. With
#: the calibration's rims this is the weaker of the two looks.
CHANGE_SAYS = (0.1, 0.9)
#: A little changed pixel on a lane says "checker" with this weight (a white checker on a
#: cream point is little more than noise away from it).
WEAK_OCCUPIED = 0.6
#: Across a lane, a row with no more than this share of changed pixels is surely empty, one
#: with this share or more surely covered by a checker.
EMPTY_SHARE, FULL_SHARE = 0.05, 0.35
#: A share never counts as less likely than this (one odd pixel must not veto a field).
FLOOR = 0.03
MOST = 15
PIECES_PER_SEAT = 4


def _normalise(logp: np.ndarray) -> np.ndarray:
    top = logp.max(axis=-1, keepdims=True)
    return logp - top - np.log(np.exp(logp - top).sum(axis=-1, keepdims=True))


def occupancy(geo: MaednGeometry, board: MaednBoard) -> dict[str, int]:
    """Field name → colour of the piece standing there; raises when two pieces share a field."""
    colours = geo.seat_colours(len(board.pieces))
    out: dict[str, int] = {}
    for seat, positions in enumerate(board.pieces):
        house = 0
        for pos in sorted(positions):
            name = geo.field_name(colours[seat], pos, house)
            house += pos == -1
            if name in out:
                raise ValueError(f"two pieces on field {name}")
            out[name] = colours[seat]
    return out


@dataclass(frozen=True)
class MaednEvidence:
    """Per field (`FieldDiscs` order) the log-probability of: empty, then each colour in play."""

    names: tuple[str, ...]
    colours: tuple[int, ...]
    logp: np.ndarray  # (F, 1 + K), -inf where a colour cannot stand (another's goal or house)
    unexplained: np.ndarray  # (F,) share of pixels nothing explains
    geo: MaednGeometry

    def score(self, board: MaednBoard) -> float:
        """How well the frame fits `board` (log-likelihood; -inf if it cannot fit at all)."""
        try:
            return self.log_likelihood(occupancy(self.geo, board))
        except ValueError:
            return -math.inf

    def best_score(self) -> float:
        """The score of the free reading: each field's likeliest state, whatever board that
        makes (no board scores higher; the referee measures how far a board falls short)."""
        return float(self.logp.max(axis=1).sum())

    def state(self, i: int) -> int:
        return int(np.argmax(self.logp[i]))

    def confidence(self) -> tuple[tuple[str, float], ...]:
        best = np.exp(self.logp.max(axis=1))
        return tuple((n, float(c)) for n, c in zip(self.names, best, strict=True))

    def contents(self) -> dict[str, int]:
        """Field name → colour standing there, by each field's most likely state."""
        out = {}
        for i, name in enumerate(self.names):
            s = self.state(i)
            if s:
                out[name] = self.colours[s - 1]
        return out

    def log_likelihood(self, occupied: dict[str, int]) -> float:
        """How well the fields fit a board that puts colour `occupied[name]` on those fields
        and nothing elsewhere (-inf where a colour is not in play here)."""
        total = 0.0
        for i, name in enumerate(self.names):
            colour = occupied.get(name)
            if colour is None:
                total += float(self.logp[i, 0])
            elif colour in self.colours:
                total += float(self.logp[i, 1 + self.colours.index(colour)])
            else:
                return -math.inf
        return total


def maedn_evidence(labels: np.ndarray, discs: FieldDiscs, colours: tuple[int, ...],
                   geo: MaednGeometry, p_edges: np.ndarray | None = None) -> MaednEvidence:
    """`labels`: (F, K) pixel labels of each field's disc; `colours`: the piece colours in
    play, in the order of the learned piece colours (label FIRST_PIECE + i is colours[i]);
    `p_edges`: per field, what the new edges there say of a pawn standing on it.

    Whether a pawn stands there and which colour it is are weighed apart: standing there by
    how much of the disc changed (with the edges' odds, where known: a red pawn on its red
    start field changes little colour but draws a pawn's outline), its colour by the shares
    of the piece colours — a little changed pixel on a tinted field (start, goal, house) goes
    to that field's own colour, the pawn that blends into it."""
    n = labels.shape[1]
    still = ((labels == BACKGROUND) | (labels == SHADOW)).sum(axis=1) / n
    weak = (labels == WEAK).sum(axis=1) / n
    unexplained = (labels == UNEXPLAINED).sum(axis=1) / n
    # Per field the index of the colour in play it is painted in (-1: none). There a little
    # change is the paint in another light or blur (its own pawn changes it much: it is
    # labelled that colour), and goes to that colour; elsewhere it is half a change.
    painted = np.array([colours.index(int(look[4:]))
                        if look.startswith("tint") and int(look[4:]) in colours else -1
                        for look in discs.looks])
    changed = np.clip(1.0 - still - np.where(painted >= 0, 1.0, 0.5) * weak, 0.0, 1.0)
    share = np.clip((changed - EMPTY_SHARE) / (FULL_SHARE - EMPTY_SHARE), 0.0, 1.0)
    p_change = CHANGE_SAYS[0] + (CHANGE_SAYS[1] - CHANGE_SAYS[0]) * share
    odds = np.log(p_change / (1 - p_change))
    if p_edges is not None:
        edge = np.clip(p_edges, FLOOR, 1 - FLOOR)
        odds = odds + np.log(edge / (1 - edge))
    p_there = np.clip(1 / (1 + np.exp(-odds)), FLOOR, 1 - FLOOR)
    pieces = np.column_stack([(labels == FIRST_PIECE + i).sum(axis=1) / n
                              for i in range(len(colours))]) + 0.5 * unexplained[:, None] / \
        max(1, len(colours))
    for i in np.flatnonzero(painted >= 0):
        pieces[i, painted[i]] += weak[i]
    which = np.log(np.maximum(pieces, FLOOR) / np.maximum(pieces, FLOOR).sum(axis=1,
                                                                            keepdims=True))
    logp = np.column_stack([FIELD_WEIGHT * np.log(1 - p_there),
                            FIELD_WEIGHT * np.log(p_there)[:, None] + COLOUR_WEIGHT * which])
    for i, name in enumerate(discs.names):
        if name[0] in "gh":  # a goal or house field holds only its own colour
            own = int(name[1])
            for k, colour in enumerate(colours):
                if colour != own:
                    logp[i, 1 + k] = -np.inf
    return MaednEvidence(discs.names, colours, _normalise(logp), unexplained, geo)


def maedn_board(evidence: MaednEvidence, seat_colours: tuple[int, ...]) -> MaednBoard | None:
    """The board each field's most likely state gives; None when it is impossible (a colour
    not in play, more than four pieces of a seat)."""
    seats: list[list[int]] = [[] for _ in seat_colours]
    for name, colour in evidence.contents().items():
        if colour not in seat_colours:
            return None
        position = seat_position(name, colour)
        if position is None:
            return None
        seats[seat_colours.index(colour)].append(position)
    if any(len(s) > PIECES_PER_SEAT for s in seats):
        return None
    return MaednBoard(tuple(tuple(sorted(s)) for s in seats))


#: Before looking: each colour in play has its four pawns on the board's fields (house, track
#: or goal); now and then one is in a hand or beside the board (a captured pawn on its way
#: home).
PAWNS_PRIOR = {PIECES_PER_SEAT: 0.97, PIECES_PER_SEAT - 1: 0.03}


def conserve_pawns(evidence: MaednEvidence) -> MaednEvidence:
    """The fields' probabilities once the four pawns each colour has are taken into account:
    a field left unsure (a patch of light that is no pawn's colour, a pawn blending into its
    painted field) is settled by how many of the colour the other fields surely hold. Per
    colour, each unsure field's chance of holding it is weighed with the count the others
    make; the field's other states keep their proportions."""
    unsure = evidence.logp.max(axis=1) <= SURE
    if not unsure.any():
        return evidence
    logp = evidence.logp.copy()
    prior = np.full(PIECES_PER_SEAT + 3, 1e-6)
    for total, p in PAWNS_PRIOR.items():
        prior[total] = p
    for k in range(1, logp.shape[1]):
        fields = np.flatnonzero(np.isfinite(logp[:, k]))
        q = np.clip(np.exp(logp[fields, k]), 1e-12, 1 - 1e-12)
        for m in np.flatnonzero(unsure[fields]):
            i = fields[m]
            rest = np.array([1.0])
            for j in np.flatnonzero(q > 1e-6):  # the others hardly change the count
                if j != m:
                    rest = np.convolve(rest, [1 - q[j], q[j]])[:PIECES_PER_SEAT + 2]
            rest = np.pad(rest, (0, PIECES_PER_SEAT + 2 - len(rest)))
            there = q[m] * float(prior[1:PIECES_PER_SEAT + 3] @ rest)
            bare = (1 - q[m]) * float(prior[:PIECES_PER_SEAT + 2] @ rest)
            post = there / (there + bare)
            others = np.arange(logp.shape[1]) != k
            logp[i, others] += math.log(max(1 - post, 1e-300) / (1 - q[m]))
            logp[i, k] = math.log(max(post, 1e-300))
    return dataclasses.replace(evidence, logp=_normalise(logp))


#: A seat with fewer than four pieces seen is an illegal board (a captured piece not put back
#: in its house), said only when each of the seat's empty house fields is read this surely
#: (log-probability of a pawn there): a pawn on a house field painted its own colour changes
#: little and draws faint edges (development photoreal `md10`: such pawns scored -5 to -11, a
#: bare house field about -14).
MISSING_SURE = math.log(1e-5)


def unseen_in_house(evidence: MaednEvidence, board: MaednBoard,
                    seat_colours: tuple[int, ...]) -> list[str]:
    """The empty-read house fields of seats with fewer than four pieces seen that may hold a
    pawn of their own colour all the same (the reading is then unsure, not a missing piece)."""
    out = []
    for pieces, colour in zip(board.pieces, seat_colours, strict=True):
        if len(pieces) >= PIECES_PER_SEAT or colour not in evidence.colours:
            continue
        k = 1 + evidence.colours.index(colour)
        out += [name for i, name in enumerate(evidence.names)
                if name[0] == "h" and int(name[1]) == colour and evidence.state(i) == 0
                and evidence.logp[i, k] > MISSING_SURE]
    return out


def seat_position(field: str, colour: int) -> int | None:
    """A field name → the position of a `colour` piece there, None if it cannot stand there."""
    kind, rest = field[0], field[1:]
    if kind == "t":
        return (int(rest) - 10 * colour) % 40
    if int(rest[0]) != colour:
        return None
    return -1 if kind == "h" else 40 + int(rest[1])


@dataclass(frozen=True)
class LaneEvidence:
    """Per lane the log-probability of: empty (index 0), 1..15 white (1..15), 1..15 black
    (16..30)."""

    names: tuple[str, ...]
    logp: np.ndarray  # (L, 31)
    unexplained: np.ndarray  # (L,)

    def best_score(self) -> float:
        """The score of the free reading: each lane's likeliest count, whatever board that
        makes (no board scores higher)."""
        return float(self.logp.max(axis=1).sum())

    def count(self, i: int) -> tuple[str, int]:
        s = int(np.argmax(self.logp[i]))
        if s == 0:
            return "", 0
        return ("white", s) if s <= MOST else ("black", s - MOST)

    def confidence(self) -> tuple[tuple[str, float], ...]:
        best = np.exp(self.logp.max(axis=1))
        return tuple((n, float(c)) for n, c in zip(self.names, best, strict=True))

    def contents(self) -> dict[str, int]:
        """Lane name → checkers (+ White / − Black) by each lane's most likely count."""
        out = {}
        for i, name in enumerate(self.names):
            colour, n = self.count(i)
            if n:
                out[name] = n if colour == "white" else -n
        return out

    def score(self, board: BackgammonBoard) -> float:
        """How well the frame fits `board` (log-likelihood)."""
        return self.log_likelihood(lane_counts(board))

    def log_likelihood(self, counts: dict[str, int]) -> float:
        """`counts`: lane name → checkers, + White / − Black (absent: empty)."""
        total = 0.0
        for i, name in enumerate(self.names):
            c = counts.get(name, 0)
            if abs(c) > MOST:
                return -math.inf
            total += float(self.logp[i, 0 if c == 0 else (c if c > 0 else MOST - c)])
        return total


def lane_evidence(labels: np.ndarray, bounds: tuple[tuple[int, int], ...], rows: LaneRows,
                  value: np.ndarray, white: int, black: int,
                  rings: RingScores | None = None,
                  levels: tuple[EdgeLevels | None, EdgeLevels | None] = (None, None),
                  visible: tuple[np.ndarray, np.ndarray] | None = None) -> LaneEvidence:
    """`labels`: (P, A) pixel labels across all lanes' rows, lane i's rows at `bounds[i]`;
    `value`: (P,) brightness along the lanes' axes (for the rims between overlapping
    checkers); `white`/`black`: their labels; `rings` how strongly a checker's rim shows where
    each lane's checkers would start (`vision.lane_rings`), weighed with the calibration's
    `levels` for white and for black checkers (a white checker on a cream point draws a far
    fainter rim than a black one; None: that colour's rims are not used); `visible`: (P,)
    for white and for black, how much of a checker of that colour would show as a change
    there (`vision.board_look.visibility`; None: all of it)."""
    changed = ((labels != BACKGROUND) & (labels != SHADOW)).mean(axis=1)
    occupied_all = changed - (1 - WEAK_OCCUPIED) * (labels == WEAK).mean(axis=1)
    starts = np.array([a for a, _ in bounds])
    n_white = np.add.reduceat((labels == white).sum(axis=1), starts).astype(float)
    n_black = np.add.reduceat((labels == black).sum(axis=1), starts).astype(float)
    bad = np.add.reduceat((labels == UNEXPLAINED).mean(axis=1), starts) / \
        np.array([b - a for a, b in bounds])
    votes = n_white + n_black + 2.0
    trust = np.minimum(20.0, votes / 10.0)
    colour_w = np.log((n_white + 1.0) / votes) * trust
    colour_b = np.log((n_black + 1.0) / votes) * trust
    logps = np.full((len(rows.lanes), 1 + 2 * MOST), -np.inf)
    for i, (lane, (a, b)) in enumerate(zip(rows.lanes, bounds, strict=True)):
        along, occupied = rows.along[i], occupied_all[a:b]
        if lane.compress:
            near = (None if rings is None else
                    np.array([rings.near(i, k * lane.pitch) for k in range(lane.row)]))
            per_colour = []
            middles = _slot_middles(lane, float(along[0]), len(along), round(rows.lean[i], 1))
            share = np.clip((occupied - EMPTY_SHARE) / (FULL_SHARE - EMPTY_SHARE), 0.0, 1.0)
            change = middles @ share
            for k, colour_levels in enumerate(levels):
                # a place that changed shows what is there, whatever the colours predicted
                seen = None if visible is None else np.maximum(middles @ visible[k][a:b],
                                                               change)
                p_ring = None if near is None or colour_levels is None else \
                    colour_levels.p_piece(near, FAINT if seen is None else FAINT * seen)
                counts = _slot_logp(lane, change, p_ring, seen)
                counts = counts + _rim_logp(lane, along, value[a:b], counts)
                per_colour.append(counts - counts[0])  # against the lane lying empty
            counts_w, counts_b = per_colour
        else:
            counts = _slipped(_count_logp(lane, along, occupied, rows.top_lean[i]))
            counts_w = counts_b = counts - counts[0]
        logps[i, 0] = 0.0
        allowed = {"bar_white": "white", "off_white": "white", "bar_black": "black",
                   "off_black": "black"}.get(lane.name)
        if allowed != "black":
            logps[i, 1:MOST + 1] = counts_w[1:] + colour_w[i]
        if allowed != "white":
            logps[i, MOST + 1:] = counts_b[1:] + colour_b[i]
    names = tuple(lane.name for lane in rows.lanes)
    return LaneEvidence(names, _normalise(logps), bad)


def _count_logp(lane: Lane, along: np.ndarray, occupied: np.ndarray, lean: float) -> np.ndarray:
    """Log-likelihood of 0..15 checkers from where the lane is occupied: n checkers cover it
    from its start to their extent, and their tops lean on by `lean` mm where it is positive."""
    covered, sure = _coverage(lane, along[0], len(along), round(max(0.0, lean), 1))
    # A place a checker covers need not change all over (a white checker on a cream point
    # changes at its rim and shading); an empty place hardly changes at all.
    occ = np.clip((occupied - EMPTY_SHARE) / (FULL_SHARE - EMPTY_SHARE), FLOOR, 1 - FLOOR)
    log_in, log_out = np.log(occ), np.log(1 - occ)
    return LANE_WEIGHT * ((covered * log_in + (1 - covered) * log_out) * sure).sum(axis=1)


def _slipped(counts: np.ndarray) -> np.ndarray:
    """A pile's log-likelihoods of 0..15 checkers as a reading that slips by one checker
    (`TRAY_SLIP` each way) or further (`TRAY_FAR`, any other count alike) once there is a
    pile: an empty tray is read as surely as it looks."""
    p = np.exp(counts - counts.max())
    pile = p[1:]
    near = np.zeros_like(pile)
    near[1:] += pile[:-1]
    near[:-1] += pile[1:]
    far = (pile.sum() - pile - near) / (len(pile) - 3)
    mixed = (1 - 2 * TRAY_SLIP - TRAY_FAR) * pile + TRAY_SLIP * near + TRAY_FAR * far
    return np.log(np.concatenate([p[:1], mixed]))


@functools.lru_cache(maxsize=512)
def _coverage(lane: Lane, first: float, count: int, lean: float) -> tuple[np.ndarray, np.ndarray]:
    """Per count 0..15: where n checkers cover the lane, and where that is sure (not within
    3 mm of the stack's blurred, shadowed end)."""
    along = first + np.arange(count) * ALONG_STEP
    ends = np.array([lane.extent(n) + (lean if n else 0.0) for n in range(MOST + 1)])
    covered = (along[None, :] < ends[:, None]).astype(np.float64)
    sure = (np.abs(along[None, :] - ends[:, None]) > 3.0).astype(np.float64)
    return covered, sure


def _slot_logp(lane: Lane, change: np.ndarray, p_ring: np.ndarray | None,
               seen: np.ndarray | None = None) -> np.ndarray:
    """Log-likelihood of 0..15 checkers lying on a point or the bar, place by place: a row of
    n checkers fills the first n places a checker takes and leaves the rest of the row empty.
    Two looks decide whether a place is filled, their odds multiplied: a checker's rim there
    (strong evidence either way) and how much of the place's middle changed (weaker: a white
    checker on a cream point hardly changes colour, while a shadow or a blurred neighbour may
    change an empty place). Beyond a full row (overlapping checkers, or a second layer) the
    row is full and the rims between checkers (`_rim_logp`) tell the count. `change`: per
    place of the row, how much of its middle changed (0..1, `_slot_middles`); `p_ring`: per
    place, what its rim says of a checker lying there; `seen`: per place, how much
    of a checker would show as a change in its middle: an unchanged middle says "empty" only
    as far as a checker would have changed it (a cream checker on a cream point hardly does;
    there the rim decides)."""
    row = lane.row
    p_change = CHANGE_SAYS[0] + (CHANGE_SAYS[1] - CHANGE_SAYS[0]) * change
    odds = np.log(p_change / (1 - p_change))
    if seen is not None:
        odds = np.where(odds < 0, odds * seen, odds)
    if p_ring is not None:
        ring = np.clip(p_ring, FLOOR, 1 - FLOOR)
        odds = odds + np.log(ring / (1 - ring))
    p = np.clip(1 / (1 + np.exp(-odds)), FLOOR, 1 - FLOOR)
    full = np.concatenate([[0.0], np.cumsum(SLOT_WEIGHT * np.log(p))])
    empty = np.concatenate([[0.0], np.cumsum(SLOT_WEIGHT * np.log(1 - p))])
    k = np.minimum(np.arange(MOST + 1), row)
    return full[k] + (empty[-1] - empty[k])


@functools.lru_cache(maxsize=512)
def _slot_middles(lane: Lane, first: float, count: int, lean: float) -> np.ndarray:
    """(row, count) weights averaging the middle of each place a checker takes in a row, where
    its top face shows (the neighbour's edge, side face and shadow stay out of it)."""
    along = first + np.arange(count) * ALONG_STEP
    out = np.zeros((lane.row, count))
    for k in range(lane.row):
        start = k * lane.pitch + lean
        inside = (along >= start + 0.3 * lane.pitch) & (along < start + 0.7 * lane.pitch)
        out[k, inside] = 1.0 / max(1, int(inside.sum()))
    return out


def _rim_logp(lane: Lane, along: np.ndarray, value: np.ndarray, counts: np.ndarray
              ) -> np.ndarray:
    """Where several counts cover the lane alike (a full lane: 5..15 overlapping checkers),
    the rims between checkers tell them apart: each count predicts a comb of rims, and the
    brightness along the lane's axis correlates best with the true one's."""
    full, inside, combs = _rim_combs(lane, float(along[0]), len(along))
    out = np.zeros(MOST + 1)
    if len(full) < 2 or int(np.argmax(counts)) not in full:
        return out
    padded = np.pad(value, 3, mode="edge")
    line = np.abs(value - 0.5 * (padded[:-6] + padded[6:]))
    part = line[inside] - line[inside].mean()
    spread = float(np.sqrt((part * part).sum())) + 1e-9
    scores = (combs @ part).max(axis=1) / spread
    out[list(full)] = 12.0 * (scores - scores.max())
    return out


@functools.lru_cache(maxsize=64)
def _rim_combs(lane: Lane, first: float, count: int) -> tuple[tuple[int, ...], np.ndarray,
                                                               np.ndarray]:
    """Unit-length, zero-mean combs (counts, shifts, positions) for `_rim_logp`."""
    along = first + np.arange(count) * ALONG_STEP
    inside = (along > 4.0) & (along < lane.stack_length - 4.0)
    pos = along[inside]
    full = tuple(range(lane.row, MOST + 1))
    shifts = np.arange(-4.0, 4.25, 0.5)
    combs = []
    for n in full:
        rims = np.array(lane.offsets(n)[1:])[None, :, None] + shifts[:, None, None]
        near = (np.abs(pos[None, None, :] - rims).min(axis=1) <= 1.5).astype(np.float64)
        near -= near.mean(axis=1, keepdims=True)
        near /= np.sqrt((near * near).sum(axis=1, keepdims=True)) + 1e-9
        combs.append(near)
    return full, inside, np.array(combs)


#: Before looking: each colour has all 15 checkers on the board (bar and tray included), now
#: and then one or two lie beside it (a hit checker not put on the bar).
TOTAL_PRIOR = {15: 0.9, 14: 0.06, 13: 0.02}
#: Lanes read this surely (log-probability) need no help from the count of fifteen.
SURE = math.log(0.995)


def conserve(evidence: LaneEvidence, geo: BackgammonGeometry) -> LaneEvidence:
    """The lanes' probabilities once the fifteen checkers a colour has are taken into account:
    a full lane whose rims leave 11 or 12 checkers open is settled by how many the other lanes
    hold. Applied per colour where the board shows the bar and that colour's tray (else
    checkers may lie out of sight); each lane keeps the colour it most likely holds."""
    logp = evidence.logp.copy()
    prior = np.full(2 * MOST + 1, 1e-4)
    for total, p in TOTAL_PRIOR.items():
        prior[total] = p
    for colour, first in (("white", 1), ("black", MOST + 1)):
        if geo.lane(f"bar_{colour}") is None or geo.lane(f"off_{colour}") is None:
            continue
        lanes = [i for i in range(len(evidence.names)) if evidence.count(i)[0] == colour]
        if not lanes or all(evidence.logp[i].max() > SURE for i in lanes):
            continue
        dists = []
        for i in lanes:
            p = np.exp(evidence.logp[i, first:first + MOST])
            dists.append(np.concatenate([[0.0], p / p.sum()]))  # counts 0..15, 0 impossible
        for k, i in enumerate(lanes):
            rest = np.array([1.0])
            for j, d in enumerate(dists):
                if j != k:
                    rest = np.convolve(rest, d)[:2 * MOST + 1]
            rest = np.pad(rest, (0, 2 * MOST + 1 - len(rest)))
            fit = np.array([(prior[n:n + len(rest)][:2 * MOST + 1 - n] @
                             rest[:2 * MOST + 1 - n]) for n in range(MOST + 1)])
            post = dists[k] * fit
            if post.sum() <= 0:
                continue
            logp[i, first:first + MOST] = np.log(np.maximum(post[1:] / post.sum(), 1e-300))
            others = np.ones(len(logp[i]), bool)
            others[first:first + MOST] = False
            logp[i, others] = -np.inf
    return LaneEvidence(evidence.names, _normalise(logp), evidence.unexplained)


def backgammon_board(evidence: LaneEvidence, geo: BackgammonGeometry
                     ) -> BackgammonBoard | None:
    """The board the lanes' most likely counts give; checkers no lane shows are put where
    the board keeps them out of sight (docs/geometry.md); None when impossible."""
    counts = {name: evidence.count(i) for i, name in enumerate(evidence.names)}
    points = []
    for p in range(1, 25):
        colour, n = counts[f"p{p}"]
        points.append(n if colour == "white" else -n)
    bar = {c: counts.get(f"bar_{c}", ("", 0))[1] for c in ("white", "black")}
    off = {c: counts.get(f"off_{c}", ("", 0))[1] for c in ("white", "black")}
    for colour, sign in (("white", 1), ("black", -1)):
        seen = sum(n for n in (sign * p for p in points) if n > 0) + bar[colour] + off[colour]
        if seen > MOST:
            return None
        unseen = MOST - seen
        has_bar = geo.lane(f"bar_{colour}") is not None
        has_tray = geo.lane(f"off_{colour}") is not None
        if unseen and not (has_bar and has_tray):
            # Beside the board: borne off only once every checker left is in the home board.
            home = range(1, 7) if colour == "white" else range(19, 25)
            all_home = all(sign * points[p - 1] <= 0 for p in range(1, 25) if p not in home)
            if not has_tray and (has_bar or all_home):
                off[colour] += unseen
            elif not has_bar:
                bar[colour] += unseen
    return BackgammonBoard(tuple(points), bar["white"], bar["black"], off["white"], off["black"])


def missing_checkers(board: BackgammonBoard) -> str:
    """What a board lacks of fifteen checkers a colour, in words ("" when nothing). A checker
    not seen lies under a stack (a second layer looks like the row beneath it from above), in
    a tray's pile or in a hand: the board read is then not the one there, whatever the lanes'
    confidence says."""
    short = []
    for colour, points, bar, off in (
            ("white", [n for n in board.points if n > 0], board.bar_white, board.off_white),
            ("black", [-n for n in board.points if n < 0], board.bar_black, board.off_black)):
        seen = sum(points) + bar + off
        if seen < MOST:
            short.append(f"{seen} {colour} checkers seen of {MOST}")
    return ", ".join(short)


def lane_counts(board: BackgammonBoard) -> dict[str, int]:
    """A board as lane name → checkers (+ White / − Black), for `LaneEvidence`; an empty
    lane is absent, as in `LaneEvidence.contents`."""
    out = {f"p{i + 1}": n for i, n in enumerate(board.points) if n}
    out.update({"bar_white": board.bar_white, "bar_black": -board.bar_black,
                "off_white": board.off_white, "off_black": -board.off_black})
    return {name: n for name, n in out.items() if n}
