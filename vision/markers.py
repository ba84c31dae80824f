"""The table's ArUco corner markers as the camera sees them.

One detector setting serves the calibration (which finds the board by the markers) and the dice
reader (which must not take a marker for a die: a marker is a black square with white cells,
and a few of its cells look like a black die's pips).
"""

from __future__ import annotations

import cv2
import numpy as np


def marker_detector() -> cv2.aruco.ArucoDetector:
    """An ArUco detector (DICT_4X4_50) for the table's small, slightly blurred markers."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # Small, slightly blurred markers: try more threshold windows, read bits nearer the edge.
    params.adaptiveThreshWinSizeMax = 53
    params.adaptiveThreshWinSizeStep = 4
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    return cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)


def quad_side(quad: np.ndarray) -> float:
    """The mean side of a marker's quadrilateral (4 corners) in pixels."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    return float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)))
