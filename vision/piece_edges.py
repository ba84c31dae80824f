"""New edges: what a piece adds to the picture that the empty board does not have.

A piece of the same colour as the place it stands on (a white checker on a cream point, a red
pawn on its red start field) barely changes the colours there, but it is a raised thing: its
rim, its shading and its shadow are edges the empty board has nowhere near. The frame's edges
less the empty board's (allowing a millimetre of shift) are spread over a few millimetres and
scored where a piece would stand; how a piece and an empty place score is learned at
calibration from the pieces the position puts down.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: A rim's edge is spread over this many mm (Gaussian sigma) before it is scored.
RIM_SPREAD = 2.0
#: What a faint and a strong edge say of a piece standing there.
FAINT, SURE = 0.25, 0.98


def structure(warp: np.ndarray) -> np.ndarray:
    """Edge strength of a warp's brightness (|d/dx| + |d/dy|, float32)."""
    grey = cv2.cvtColor(warp, cv2.COLOR_BGR2GRAY)
    gx = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 1, 0, ksize=3))
    gy = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3))
    return cv2.add(gx, gy).astype(np.float32)


def new_structure(frame_structure: np.ndarray, empty_structure: np.ndarray) -> np.ndarray:
    """Edges in the frame that the empty board has nowhere within a millimetre, spread over a
    few millimetres (a piece's rim need not lie exactly where it is looked for)."""
    new = np.maximum(0.0, frame_structure - cv2.dilate(empty_structure, np.ones((3, 3))))
    return cv2.GaussianBlur(new, (0, 0), RIM_SPREAD)


@dataclass(frozen=True, slots=True)
class EdgeLevels:
    """What a piece's new edges score (`present`, median) and an empty place's (`absent`, 90th
    percentile), learned at calibration."""

    present: float
    absent: float

    def p_piece(self, score: np.ndarray, faint: float | np.ndarray = FAINT) -> np.ndarray:
        """Probability that a piece stands there, from its edges' score. Strong edges say so
        surely; faint ones say little (a red checker on a red point, in a flat light, barely
        draws a rim, but changes the colours), so no score takes it below `faint`: lower
        where a piece would not change the colours either."""
        mid = 0.5 * (self.present + self.absent)
        spread = max(1e-3, 0.125 * (self.present - self.absent))
        return faint + (SURE - faint) / (1.0 + np.exp(-(score - mid) / spread))

    @classmethod
    def learn(cls, present: list[float], absent: np.ndarray) -> EdgeLevels | None:
        """From scores where pieces stand and where none do; None when pieces do not stand
        out (then edges are not used)."""
        if not present or not len(absent):
            return None
        levels = cls(float(np.median(present)), float(np.quantile(absent, 0.9)))
        return levels if levels.present > 1.5 * levels.absent + 1.0 else None
