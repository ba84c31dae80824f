"""What calibration learns from its two frames: the empty board and the piece colours.

With a frame of the empty board, that frame *is* the empty board (after a check that nothing
lies on it). Without one, the empty look of the fields the position covers is borrowed from
empty fields of the same kind — another house or goal field of the same colour, a point of the
same colour in the same row — moved into place; that is weaker, and calibrating with
`--empty` is what the docs ask for. Piece colours are learned only from the pixels of occupied
fields that differ from the empty board, only for the colours in play.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_errors import NOT_EMPTY, POSITION_DIFFERS, CalibrationError
from vision.board_look import MIN_PIXELS, UNEXPLAINED, EmptyBoard, PieceColour, classify
from vision.camera_pose import CameraPose
from vision.geometry import BackgammonGeometry, MaednGeometry
from vision.lens import WARP_PX_PER_MM


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
#: A field's surroundings (mm around its pixels, from NEAR to FAR): a lamp's highlight or a
#: shadow that moved between the two pictures lies there too, a piece does not.
SURROUND_NEAR, SURROUND_FAR = 4, 12
#: Fewer of a field's pixels than this share, where no piece of the position can show, and
#: the field is not checked (a piece beside it covers it in the picture).
MIN_SEEN_SHARE = 0.3
#: Grey levels added before a gain is measured, so that dark pixels do not make it wild.
GAIN_FLOOR = 4.0


def check_still(lit: np.ndarray, empty: EmptyBoard, places: dict[str, tuple[np.ndarray, ...]],
                occupied: set[str], still: np.ndarray) -> None:
    """Refuse when a field the position leaves empty looks different in the position's picture
    and the empty board's: a piece lies there in one of the two. `places`: field or lane name
    → (ys, xs) of its pixels; `still`: where no piece of the position (nor its lean) can show,
    the only pixels compared. A change its surroundings share (light that moved) is taken
    away before the field is judged (as light added or as a gain: the field is changed only
    when neither explains it)."""
    odd = []
    for name, (ys, xs) in places.items():
        if name in occupied:
            continue
        ys, xs = ys.ravel(), xs.ravel()
        seen = still[ys, xs]
        if float(np.mean(seen)) < MIN_SEEN_SHARE:
            continue
        ys, xs = ys[seen], xs[seen]
        if _changed(lit, empty, ys, xs) and all(
                _changed(lit_here, empty, ys, xs)
                for lit_here in _lit_as_surroundings(lit, empty.warp, ys, xs, still)):
            odd.append(name)
    if odd:
        raise CalibrationError(
            f"the empty board and the position differ on {', '.join(odd)}, where the position "
            "puts nothing: a piece lies there in one of the two pictures (or the position "
            "given is not the one set up)", NOT_EMPTY)


def _changed(frame: np.ndarray, empty: EmptyBoard, ys: np.ndarray, xs: np.ndarray) -> bool:
    labels, _ = classify(frame, empty, (), ys, xs)
    return float(np.mean(labels == UNEXPLAINED)) > CHANGED_SHARE


def _lit_as_surroundings(lit: np.ndarray, empty_warp: np.ndarray, ys: np.ndarray,
                         xs: np.ndarray, still: np.ndarray) -> list[np.ndarray]:
    """`lit` with the change of the board around the pixels (ys, xs) taken away, once as
    added light (a lamp's highlight) and once as a gain (a shadow, a brighter patch): per
    channel, the median over the surroundings. Neither where too little of them can be seen."""
    place = np.zeros(still.shape, np.uint8)
    place[ys, xs] = 1
    near = cv2.dilate(place, _round_kernel(SURROUND_NEAR)).astype(bool)
    ring = cv2.dilate(place, _round_kernel(SURROUND_FAR)).astype(bool) & ~near & still
    if ring.sum() < MIN_PIXELS:
        return []
    now, before = lit[ring].astype(np.float32), empty_warp[ring].astype(np.float32)
    added = np.median(now - before, axis=0)
    gain = np.median((now + GAIN_FLOOR) / (before + GAIN_FLOOR), axis=0)
    frame = lit.astype(np.float32)
    return [np.clip(frame - added, 0, 255).astype(np.uint8),
            np.clip((frame + GAIN_FLOOR) / gain - GAIN_FLOOR, 0, 255).astype(np.uint8)]


def _round_kernel(radius_mm: float) -> np.ndarray:
    r = max(1, round(radius_mm * WARP_PX_PER_MM))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


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
