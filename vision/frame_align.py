"""A knocked camera: bring each frame's warp back onto the empty board's before comparing.

A camera mount that is bumped, or a board pushed by an elbow, moves the picture by a few
pixels: compared pixel by pixel with the empty board, every printed line would then count as
change. The warp of each frame is matched to the empty board's: the shift of each quarter of
the board is measured by phase correlation of their edges (pieces, dice and hands change little
of the print's edges), and an affine correction fitted to the four shifts is applied when the
board moved by more than `MOVED_MM`. A board moved further than `LOST_MM` is not corrected (that
needs a new calibration).

Both edge maps are multiplied by the places where no piece can stand before the correlation,
so the mask's own pattern matches best unmoved: fine for a knock of a few tenths of a degree,
but a camera turned by 1.5° (photoreal `md04`, quarters moved 2–9 mm) measured 0–2 mm, its
frames read as a hand over the board and the table never looked for the board again. So a
coarse look comes first (`_coarse`): the empty board's free places alone, matched against the
frame's whole quarter (a masked template match), which finds such a move to a millimetre or
two, or says the board is lost; the phase correlation then measures what is left.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Shifts below this (mm) are left alone: noise and the empty board's own tolerance.
MOVED_MM = 0.6
#: A quarter's shift is trusted when its correlation peak is at least this strong.
MIN_RESPONSE = 0.05
#: Further than this the board is lost, not knocked: calibrate again.
LOST_MM = 10.0
#: The shift is measured at half the warp's pixels: a millimetre's precision is plenty.
SCALE = 0.5
#: The coarse look (`Aligner._coarse`): how far (mm) each quarter is looked for around where
#: it was, how much its edges are softened (pixels at half size), how well a quarter must
#: match to count, and the move (mm) below which it leaves the frame to the phase correlation
#: (its own precision is a pixel at half size, 2 mm).
REACH_MM = 24.0
SOFTEN = 1.5
COARSE_RESPONSE = 0.3
COARSE_MM = 3.0
#: The print's strongest edges looked at to tell a still frame at a glance, and the share of
#: their strength a frame keeps when the board has not moved (pieces cover some of them;
#: moved by a millimetre or two, the narrow edges drop to less than half).
EDGE_PIXELS = 3000
STILL_SHARE = 0.75


class Aligner:
    """Measures how far a frame's warp moved against the empty board's (edges, float32)."""

    def __init__(self, empty_structure: np.ndarray, free: np.ndarray | None = None) -> None:
        """`free`: where no piece can stand (True); only the edges there are matched, so
        that pieces moved between frames do not pass for the board moving."""
        self.free = (np.ones(empty_structure.shape, np.float32) if free is None
                     else free.astype(np.float32))
        # the coarse look's template: every edge of the empty board, softened once
        self.empty_soft = cv2.GaussianBlur(_half(empty_structure), (0, 0), SOFTEN)
        self.empty_free = (_half(self.free) > 0.99).astype(np.float32)
        empty_structure = empty_structure * self.free
        self.empty = _half(empty_structure)
        h, w = self.empty.shape
        self.window = cv2.createHanningWindow((w // 2, h // 2), cv2.CV_32F)
        flat = empty_structure.ravel()
        strong = np.argpartition(flat, -EDGE_PIXELS)[-EDGE_PIXELS:]
        self._edges = np.unravel_index(strong, empty_structure.shape)
        self._edge_level = float(flat[strong].mean())

    def still(self, frame_structure: np.ndarray) -> bool:
        """True when the print's strongest edges are where they were (no need to measure)."""
        level = float(frame_structure[self._edges].mean())
        return level >= STILL_SHARE * self._edge_level

    def measure(self, frame_structure: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """(the 2×3 affine map taking a point of the empty board's warp to where the frame
        shows it, None when the frame has not moved or cannot be matched; lost: True when too
        little of the print's edges is where it was or near it to measure, the board or the
        camera moved further than a knock)."""
        if self.still(frame_structure):
            return None, False
        coarse, lost = self._coarse(_half(frame_structure))
        if lost:
            return None, True
        seen = frame_structure if coarse is None else realign(frame_structure, coarse)
        src, dst = self._shifts(_half(seen * self.free))
        if len(src) < 2 and coarse is None:
            return None, True
        fine = _fitted(np.array(src), np.array(dst)) if len(src) >= 2 else None
        # `seen` shows the empty board's point p at fine(p), the frame at coarse(fine(p))
        matrix = fine if coarse is None else coarse if fine is None else _after(coarse, fine)
        return (matrix if self._helps(frame_structure, matrix) else None), False

    def _coarse(self, frame: np.ndarray) -> tuple[np.ndarray | None, bool]:
        """(the frame's turn and shift when most quarters of the print moved by `COARSE_MM`
        or more, else None; lost: two quarters or more found further than `LOST_MM`). Each
        quarter's free places, `REACH_MM` in from its sides, are looked for in the frame's
        quarter (both at half size, softened)."""
        reach = round(REACH_MM * SCALE)
        seen = cv2.GaussianBlur(frame, (0, 0), SOFTEN)
        src, dst, far = [], [], 0
        for y0, x0, (h, w), centre in _quarters(self.empty.shape):
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
        ys, xs = self._edges
        h, w = frame_structure.shape[:2]
        mx = np.clip(np.rint(matrix[0, 0] * xs + matrix[0, 1] * ys + matrix[0, 2]), 0, w - 1)
        my = np.clip(np.rint(matrix[1, 0] * xs + matrix[1, 1] * ys + matrix[1, 2]), 0, h - 1)
        moved = float(frame_structure[my.astype(int), mx.astype(int)].mean())
        return moved > float(frame_structure[self._edges].mean())

    def _shifts(self, frame: np.ndarray) -> tuple[list, list]:
        """Where each quarter's centre lies in the empty board and in the frame (those whose
        shift could be measured)."""
        src, dst = [], []
        for y0, x0, (h, w), centre in _quarters(self.empty.shape):
            a = np.ascontiguousarray(self.empty[y0:y0 + h, x0:x0 + w])
            b = np.ascontiguousarray(frame[y0:y0 + h, x0:x0 + w])
            (dx, dy), response = cv2.phaseCorrelate(a, b, self.window)
            if response < MIN_RESPONSE or np.hypot(dx, dy) > LOST_MM * SCALE:
                continue
            src.append(centre)
            dst.append((centre[0] + dx / SCALE, centre[1] + dy / SCALE))
        return src, dst


def _quarters(shape: tuple[int, ...]) -> list[tuple[int, int, tuple[int, int], tuple[float,
                                                                                     float]]]:
    """The quarters of a half-size warp of `shape`: (top, left, (height, width), centre in
    full-size warp pixels)."""
    h, w = shape[:2]
    return [(y0, x0, (h // 2, w // 2), ((x0 + w / 4) / SCALE, (y0 + h / 4) / SCALE))
            for y0 in (0, h - h // 2) for x0 in (0, w - w // 2)]


def _fitted(src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """The 2×3 map taking the quarters' centres `src` to where they were found (`dst`): a
    shift from two, a turn and scale with it from three or more; None when none moved by
    `MOVED_MM`."""
    shifts = dst - src
    if np.abs(shifts).max() < MOVED_MM:
        return None
    if len(src) < 3:
        mean = shifts.mean(axis=0)
        return np.array([[1.0, 0.0, mean[0]], [0.0, 1.0, mean[1]]])
    matrix, _ = cv2.estimateAffinePartial2D(src.astype(np.float32), dst.astype(np.float32))
    return matrix


def _turned(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The turn and shift (no scale: the coarse shifts are too rough to tell one) that best
    take the points `src` to `dst`, as a 2×3 map."""
    a, b = src - src.mean(axis=0), dst - dst.mean(axis=0)
    angle = np.arctan2((a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]).sum(), (a * b).sum())
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return np.column_stack([turn, dst.mean(axis=0) - turn @ src.mean(axis=0)])


def _after(first: np.ndarray, then: np.ndarray) -> np.ndarray:
    """The 2×3 map p ↦ first(then(p))."""
    return (np.vstack([first, [0.0, 0.0, 1.0]]) @ np.vstack([then, [0.0, 0.0, 1.0]]))[:2]


def _half(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)


def realign(warp: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The frame's warp as if the board had not moved."""
    h, w = warp.shape[:2]
    return cv2.warpAffine(warp, matrix, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)
