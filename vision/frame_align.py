"""A knocked camera: bring each frame's warp back onto the empty board's before comparing.

A camera mount that is bumped, or a board pushed by an elbow, moves the picture by a few
pixels: compared pixel by pixel with the empty board, every printed line would then count as
change. A frame whose print's edges still line up best where they were (`Aligner.still`) is
read as it is; otherwise the frame's edges are fitted onto the empty board's (a turn and a
shift, `_fitted`: OpenCV's ECC on the softened edges of the whole print, which pieces, dice
and a hand cover only in part) and the frame is turned back when that moves any corner of
the board by `MOVED_MM` or more. A board moved further than `LOST_MM` is not corrected (that
needs a new calibration).

Before the ECC fit: a coarse look (`_coarse`) for the board's free places (where no piece can
stand) in the frame, which finds a turn of a degree or two to a millimetre or two for the fit
to start from, or says the board is lost. The fit replaced a phase correlation of the four
quarters' free places: a backgammon board's free places are only its frame and bar, whose
broad edges kept their strength under a turn, so a camera turned by 0.3–1.5° (photoreal
`bg04`, `bg10`, `bg12`) was taken as still and its frames read unsure, impossible or wrong.
"""

from __future__ import annotations

import cv2
import numpy as np

#: A move that shifts no corner of the board by this much (mm) is left alone: noise and the
#: empty board's own tolerance.
MOVED_MM = 0.6
#: Further than this the board is lost, not knocked: calibrate again.
LOST_MM = 10.0
#: The move is measured at half the warp's pixels: a millimetre's precision is plenty.
SCALE = 0.5
#: The coarse look (`Aligner._coarse`): how far (mm) each quarter is looked for around where
#: it was, how much its edges are softened (pixels at half size), how well a quarter must
#: match to count, and the move (mm) below which the fit starts from where the board was
#: (its own precision is a pixel at half size, 2 mm).
REACH_MM = 24.0
SOFTEN = 1.5
COARSE_RESPONSE = 0.3
COARSE_MM = 3.0
#: The ECC fit (`_fitted`): edges softened by this (pixels at half size), at most this many
#: steps, until a step changes the map by less than `FIT_EPS`.
FIT_SOFTEN = 1.0
FIT_STEPS = 50
FIT_EPS = 1e-4
#: The print's strongest edges in each quarter looked at to tell a still frame at a glance: a
#: quarter is still while they are stronger where they were than a millimetre to either side,
#: above or below, within `STILL_MARGIN` (pieces cover some of them and draw edges of their
#: own beside them, but not preferably on one side; a backgammon print's edges are broad:
#: still frames, photoreal and rendered, measured up to 1.008, frames turned by 0.1° 1.004 to
#: 1.019, by 0.2° more; a Mensch print's edges peak sharper).
EDGE_PIXELS = 800
STILL_MARGIN = 1.01
NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


class Aligner:
    """Measures how far a frame's warp moved against the empty board's (edges, float32)."""

    def __init__(self, empty_structure: np.ndarray, free: np.ndarray | None = None) -> None:
        """`free`: where no piece can stand (True); the coarse look matches only the edges
        there, so that pieces do not pass for the board moving."""
        free = np.ones(empty_structure.shape, bool) if free is None else free
        self.empty_free = (_half(free.astype(np.float32)) > 0.99).astype(np.float32)
        self.empty_soft = cv2.GaussianBlur(_half(empty_structure), (0, 0), SOFTEN)
        self.empty_fit = cv2.GaussianBlur(_half(empty_structure), (0, 0), FIT_SOFTEN)
        self.empty_shape = empty_structure.shape[:2]
        self._edges = _strongest(empty_structure)

    def still(self, frame_structure: np.ndarray) -> bool:
        """True when in every quarter the print's strongest edges are stronger where they
        were than a millimetre to either side, above or below (within `STILL_MARGIN`: no
        need to measure)."""
        h, w = frame_structure.shape[:2]
        for ys, xs in self._edges:
            here = float(frame_structure[ys, xs].mean())
            for dy, dx in NEIGHBOURS:
                beside = frame_structure[np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)]
                if float(beside.mean()) > STILL_MARGIN * here:
                    return False
        return True

    def measure(self, frame_structure: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """(the 2×3 affine map taking a point of the empty board's warp to where the frame
        shows it, None when the frame has not moved or cannot be matched; lost: True when the
        coarse look found the board's free places further than a knock, `LOST_MM`)."""
        if self.still(frame_structure):
            return None, False
        half = _half(frame_structure)
        coarse, lost = self._coarse(half)
        if lost:
            return None, True
        matrix = _fitted(self.empty_fit, cv2.GaussianBlur(half, (0, 0), FIT_SOFTEN), coarse)
        if matrix is None:
            matrix = coarse
        if matrix is None or _largest_move(matrix, self.empty_shape) < MOVED_MM:
            return None, False
        return (matrix if self._helps(frame_structure, matrix) else None), False

    def _coarse(self, frame: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """(the frame's turn and shift when most quarters of the print moved by `COARSE_MM`
        or more, else None; lost: two quarters or more found further than `LOST_MM`). Each
        quarter's free places, `REACH_MM` in from its sides, are looked for in the frame's
        quarter (both at half size, softened)."""
        reach = round(REACH_MM * SCALE)
        seen = cv2.GaussianBlur(frame, (0, 0), SOFTEN)
        src, dst, far = [], [], 0
        for y0, x0, (h, w), centre in _quarters(self.empty_soft.shape):
            inner = np.s_[y0 + reach:y0 + h - reach, x0 + reach:x0 + w - reach]
            mask = np.ascontiguousarray(self.empty_free[inner])
            if mask.sum() < 0.1 * mask.size:
                continue
            score = cv2.matchTemplate(
                np.ascontiguousarray(seen[y0:y0 + h, x0:x0 + w]),
                np.ascontiguousarray(self.empty_soft[inner]), cv2.TM_CCOEFF_NORMED, mask=mask)
            score = np.nan_to_num(score, nan=-1.0, posinf=-1.0, neginf=-1.0)
            _, response, _, (px, py) = cv2.minMaxLoc(score)
            if response < COARSE_RESPONSE:
                continue
            dx, dy = (px - reach) / SCALE, (py - reach) / SCALE
            if np.hypot(dx, dy) > LOST_MM:
                far += 1
                continue
            src.append(centre)
            dst.append((centre[0] + dx, centre[1] + dy))
        if far >= 2:
            return None, True
        moves = np.hypot(*(np.array(dst) - np.array(src)).T) if src else np.empty(0)
        if len(src) < 2 or np.median(moves) < COARSE_MM:
            return None, False  # most of the print is where it was: a knock at most
        return _turned(np.array(src), np.array(dst)), False

    def _helps(self, frame_structure: np.ndarray, matrix: np.ndarray | None) -> bool:
        """True when the print's strongest edges lie stronger in the frame where `matrix`
        moves them than where they were: a shift measured on a few plain free areas (a
        board whose pieces cover most of its print) is applied only when it brings the
        print back."""
        if matrix is None:
            return False
        ys = np.concatenate([q[0] for q in self._edges])
        xs = np.concatenate([q[1] for q in self._edges])
        h, w = frame_structure.shape[:2]
        mx = np.clip(np.rint(matrix[0, 0] * xs + matrix[0, 1] * ys + matrix[0, 2]), 0, w - 1)
        my = np.clip(np.rint(matrix[1, 0] * xs + matrix[1, 1] * ys + matrix[1, 2]), 0, h - 1)
        moved = float(frame_structure[my.astype(int), mx.astype(int)].mean())
        return moved > float(frame_structure[ys, xs].mean())


def _quarters(shape: tuple[int, ...]) -> list[tuple[int, int, tuple[int, int], tuple[float,
                                                                                     float]]]:
    """The quarters of a half-size warp of `shape`: (top, left, (height, width), centre in
    full-size warp pixels)."""
    h, w = shape[:2]
    return [(y0, x0, (h // 2, w // 2), ((x0 + w / 4) / SCALE, (y0 + h / 4) / SCALE))
            for y0 in (0, h - h // 2) for x0 in (0, w - w // 2)]


def _fitted(empty: np.ndarray, frame: np.ndarray, start: np.ndarray | None
            ) -> np.ndarray | None:
    """The turn and shift (2×3, full-size warp pixels) taking the softened half-size edges
    `empty` onto `frame`, fitted by ECC from `start` (or from no move); None when the fit
    does not converge."""
    guess = np.eye(2, 3, dtype=np.float32)
    if start is not None:
        guess = start.astype(np.float32).copy()
        guess[:, 2] *= SCALE
    try:
        _, matrix = cv2.findTransformECC(
            empty, frame, guess, cv2.MOTION_EUCLIDEAN,
            (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, FIT_STEPS, FIT_EPS), None, 1)
    except cv2.error:  # the fit ran away (a frame with too little of the print in it)
        return None
    matrix = matrix.astype(np.float64)
    matrix[:, 2] /= SCALE
    return matrix


def _largest_move(matrix: np.ndarray, shape: tuple[int, ...]) -> float:
    """How far (pixels) `matrix` moves the farthest corner of a warp of `shape`."""
    h, w = shape[:2]
    corners = np.array([[0.0, 0.0, 1.0], [w, 0.0, 1.0], [0.0, h, 1.0], [w, h, 1.0]])
    return float(np.abs(corners @ matrix.T - corners[:, :2]).max())


def _strongest(structure: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per quarter of a warp's edges, the places (ys, xs) of its `EDGE_PIXELS` strongest."""
    h, w = structure.shape[:2]
    out = []
    for y0, y1 in ((0, h // 2), (h // 2, h)):
        for x0, x1 in ((0, w // 2), (w // 2, w)):
            flat = structure[y0:y1, x0:x1].ravel()
            strong = np.argpartition(flat, -EDGE_PIXELS)[-EDGE_PIXELS:]
            ys, xs = np.unravel_index(strong, (y1 - y0, x1 - x0))
            out.append((ys + y0, xs + x0))
    return out


def _turned(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The turn and shift (no scale: the coarse shifts are too rough to tell one) that best
    take the points `src` to `dst`, as a 2×3 map."""
    a, b = src - src.mean(axis=0), dst - dst.mean(axis=0)
    angle = np.arctan2((a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum(), (a * b).sum())
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return np.column_stack([turn, dst.mean(axis=0) - turn @ src.mean(axis=0)])


def _half(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)


def realign(warp: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The frame's warp as if the board had not moved."""
    h, w = warp.shape[:2]
    return cv2.warpAffine(warp, matrix, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
