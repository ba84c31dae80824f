"""What calibration learns from its two frames: the empty board and the piece colours.

With a frame of the empty board, that frame *is* the empty board (after a check that nothing
lies on it). Without one, the empty look of the fields the position covers is borrowed from
empty fields of the same kind — another house or goal field of the same colour, a point of the
same colour in the same row — moved into place; that is weaker, and calibrating with
`--empty` is what the docs ask for. Piece colours are learned only from the pixels of occupied
fields that differ from the empty board, only for the colours in play.
"""

from __future__ import annotations

import numpy as np

from vision.board_errors import NOT_EMPTY, POSITION_DIFFERS, CalibrationError
from vision.board_look import MIN_PIXELS, UNEXPLAINED, EmptyBoard, PieceColour, classify
from vision.camera_pose import CameraPose
from vision.geometry import BackgammonGeometry, MaednGeometry


def _disc_mask(shape: tuple[int, int], centre: tuple[float, float], radius: float
               ) -> np.ndarray:
    ys, xs = np.ogrid[:shape[0], :shape[1]]
    return (xs + 0.5 - centre[0]) ** 2 + (ys + 0.5 - centre[1]) ** 2 <= radius * radius


def _paste(target: np.ndarray, source: np.ndarray, mask: np.ndarray, shift: tuple[int, int]
           ) -> None:
    """target[mask] = source at mask's pixels moved by -shift (the donor's place)."""
    ys, xs = np.nonzero(mask)
    sy = np.clip(ys - shift[1], 0, source.shape[0] - 1)
    sx = np.clip(xs - shift[0], 0, source.shape[1] - 1)
    target[ys, xs] = source[sy, sx]


def synthesize_maedn(geo: MaednGeometry, warp: np.ndarray, occupied: dict[str, int],
                     pose: CameraPose) -> np.ndarray:
    """The empty board as the start frame would show it: each occupied field (and where its
    pawn leans) copied over from an empty field of the same kind."""
    out = warp.copy()
    fields = {name: (centre, look) for name, centre, look in geo.fields()}
    lean = pose.lean(np.array([c for c, _ in fields.values()]), 1.3 * geo.piece_diameter)
    reach = dict(zip(fields, np.linalg.norm(lean, axis=1), strict=True))
    for name in occupied:
        centre, look = fields[name]
        donors = [n for n, (_, lk) in fields.items() if lk == look and n not in occupied]
        same_kind = [n for n in donors if n[0] == name[0]]
        pick = (same_kind or donors)
        if not pick:
            continue
        donor = min(pick, key=lambda n: np.hypot(fields[n][0][0] - centre[0],
                                                 fields[n][0][1] - centre[1]))
        radius = min(geo.cell / 2, geo.field_diameter / 2 + 2 + reach[name])
        mask = _disc_mask(warp.shape[:2], centre, radius)
        d = fields[donor][0]
        _paste(out, warp, mask, (round(centre[0] - d[0]), round(centre[1] - d[1])))
    return out


def synthesize_backgammon(geo: BackgammonGeometry, warp: np.ndarray,
                          counts: dict[str, int]) -> np.ndarray:
    """The empty board as the start frame would show it: each occupied lane copied over from
    an empty lane of the same colour in the same row (mirrored from the other row if none)."""
    out = warp.copy()
    lanes = {lane.name: lane for lane in geo.lanes()}
    h, w = warp.shape[:2]
    for name, lane in lanes.items():
        if not counts.get(name):
            continue
        peers = [o for n, o in lanes.items() if not counts.get(n) and o.background ==
                 lane.background and n != name]
        same_row = [o for o in peers if o.direction == lane.direction]
        if not peers:
            continue
        donor = min(same_row or peers, key=lambda o: abs(o.origin[0] - lane.origin[0]))
        half = lane.width / 2 + 1
        x0, x1 = int(max(0, lane.origin[0] - half)), int(min(w, lane.origin[0] + half + 1))
        dx = round(donor.origin[0] - lane.origin[0])
        y_lo = min(lane.origin[1], lane.at(lane.stack_length + 10)[1])
        y_hi = max(lane.origin[1], lane.at(lane.stack_length + 10)[1])
        y0, y1 = int(max(0, y_lo)), int(min(h, y_hi + 1))
        patch = warp[:, np.clip(np.arange(x0, x1) + dx, 0, w - 1)]
        if donor.direction != lane.direction:
            patch = patch[::-1]
        out[y0:y1, x0:x1] = patch[y0:y1]
    return out


#: A field the position leaves empty is "changed" when this share of its pixels differs from
#: the empty board's picture.
CHANGED_SHARE = 0.3


def check_still(lit: np.ndarray, empty: EmptyBoard, places: dict[str, tuple[np.ndarray, ...]],
                occupied: set[str]) -> None:
    """Refuse when a field the position leaves empty looks different in the position's picture
    and the empty board's: a piece lies there in one of the two. `places`: field or lane name
    → (ys, xs) of its pixels."""
    odd = []
    for name, (ys, xs) in places.items():
        if name in occupied:
            continue
        labels, _ = classify(lit, empty, (), ys.ravel(), xs.ravel())
        if float(np.mean(labels == UNEXPLAINED)) > CHANGED_SHARE:
            odd.append(name)
    if odd:
        raise CalibrationError(
            f"the empty board and the position differ on {', '.join(odd)}, where the position "
            "puts nothing: a piece lies there in one of the two pictures (or the position "
            "given is not the one set up)", NOT_EMPTY)


def learn_colours(frame: np.ndarray, empty: EmptyBoard, samples: dict[str, list[tuple]]
                  ) -> tuple[PieceColour, ...]:
    """One colour per name in `samples` (name → (ys, xs) pixel arrays of its pieces), from
    the pixels there that differ from the empty board."""
    out = []
    for name, places in samples.items():
        ys = np.concatenate([p[0].ravel() for p in places]) if places else np.empty(0, int)
        xs = np.concatenate([p[1].ravel() for p in places]) if places else np.empty(0, int)
        labels, _ = classify(frame, empty, (), ys, xs)
        changed = labels == UNEXPLAINED
        if changed.sum() < MIN_PIXELS:
            raise CalibrationError(
                f"the {name} pieces look like the empty board where the position puts them: "
                "set up the position given (or calibrate with fewer players: --players)",
                POSITION_DIFFERS)
        out.append(PieceColour.learn(name, frame[ys[changed], xs[changed]]))
    return tuple(out)


def piece_mask(geo: BackgammonGeometry | MaednGeometry, counts: dict[str, int],
               shape: tuple[int, int], pose: CameraPose) -> np.ndarray:
    """Where the pieces of a position (and their lean and shadows) may show: True there.
    `counts`: lane → checkers (backgammon) or field → colour (Mensch)."""
    mask = np.zeros(shape, bool)
    if isinstance(geo, BackgammonGeometry):
        for lane in geo.lanes():
            n = counts.get(lane.name, 0)
            if not n:
                continue
            half = lane.width / 2 + 8
            ends = [lane.at(-2), lane.at(lane.extent(abs(n)) + 25)]
            x0 = max(0, int(min(p[0] for p in ends) - half))
            x1 = int(max(p[0] for p in ends) + half) + 1
            y0 = max(0, int(min(p[1] for p in ends) - half))
            y1 = int(max(p[1] for p in ends) + half) + 1
            mask[y0:y1, x0:x1] = True
        return mask
    fields = {name: centre for name, centre, _ in geo.fields()}
    for name in counts:
        centre = fields[name]
        reach = float(np.linalg.norm(pose.lean(np.array([centre]), 1.3 * geo.piece_diameter)))
        mask |= _disc_mask(shape, centre, geo.field_diameter / 2 + 10 + reach)
    return mask
