"""Where the camera hangs, worked out from the board's homography.

A homography from the board plane to the picture holds the camera's pose: with the principal
point at the picture's centre and square pixels, the two board axes must come out perpendicular
and of equal scale, which fixes the focal length (unless the camera looks nearly straight down,
when any focal length fits and a measured height decides instead). The pose tells how far a tall
piece standing on a field leans in the picture (`lean`), and a rectangle's true proportions
from its four corners (`rectangle_aspect`), which is how an outline that cannot be the board is
refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: The focal length assumed when the homography cannot tell it (a camera looking straight
#: down): a 62° horizontal field of view, the Raspberry Pi camera module 2's.
DEFAULT_FOV_DEG = 62.0
#: Below this much perspective (about 7° of tilt; the measure is the homography's perspective
#: terms against its scale) the focal length is too uncertain to tell: measured on rendered
#: mounts, 2–3° gave focal lengths half or twice the truth.
MIN_TILT = 0.2
#: Focal lengths outside this range (in picture widths) are not a camera's.
FOCAL_RANGE = (0.35, 6.0)


@dataclass(frozen=True, slots=True)
class CameraPose:
    """The lens's position in board millimetres: `nadir` (the board point straight below it)
    and `height` above the board; `focal_px` the focal length in pixels."""

    nadir: tuple[float, float]
    height: float
    focal_px: float

    def lean(self, xy_mm: np.ndarray, height_mm: float) -> np.ndarray:
        """How far (board mm, x and y) the point `height_mm` above each board point `xy_mm`
        appears beyond it, away from the nadir."""
        rel = np.asarray(xy_mm, np.float64).reshape(-1, 2) - np.array(self.nadir)
        return rel * (height_mm / max(self.height - height_mm, 1.0))


def _centred(homography: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    shift = np.array([[1.0, 0.0, -w / 2], [0.0, 1.0, -h / 2], [0.0, 0.0, 1.0]])
    return shift @ homography


def focal_from_homography(homography: np.ndarray, size: tuple[int, int],
                          equal_scale: bool = True) -> float | None:
    """The focal length (px) that makes the board's axes perpendicular (and, with
    `equal_scale`, equally scaled); None when the view is too close to straight down to tell."""
    h = _centred(homography, size)
    h1, h2 = h[:, 0], h[:, 1]
    rows = [(h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2])]
    if equal_scale:
        rows.append((h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h1[2] ** 2 - h2[2] ** 2))
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] for r in rows])
    # a·w + b = 0 with w = 1/f²: least squares; each row scaled by its size at a usual focal
    # length, so a row that says nothing (both terms near 0) stays small.
    w0 = 1.0 / default_focal(size) ** 2
    scale = np.maximum(np.hypot(a * w0, b), 1e-300)
    a, b = a / scale, b / scale
    if float(a @ a) < 1e-12:  # nothing to tell: the board's axes look the same at any focal
        return None
    w = -float(a @ b) / float(a @ a)
    if w <= 0:
        return None
    focal = 1.0 / math.sqrt(w)
    low, high = (f * size[0] for f in FOCAL_RANGE)
    # The constraint is weak when the board is seen nearly straight on: the perspective terms
    # (h1[2], h2[2]) barely differ from 0 and a tiny error moves the answer far.
    tilt = float(np.hypot(h1[2], h2[2])) * size[0] / float(np.hypot(*h1[:2]))
    if not low <= focal <= high or tilt < MIN_TILT:
        return None
    return focal


def default_focal(size: tuple[int, int]) -> float:
    return size[0] / (2 * math.tan(math.radians(DEFAULT_FOV_DEG) / 2))


def pose_from_homography(homography: np.ndarray, size: tuple[int, int],
                         height_mm: float | None = None) -> CameraPose:
    """The camera's pose from board mm → picture px. A measured `height_mm` wins over the one
    the homography gives. A camera looking (nearly) straight down shows no perspective to
    tell its focal length: its nadir is then where the picture's centre lies on the board."""
    focal = focal_from_homography(homography, size)
    if focal is not None:
        pose = _pose(homography, size, focal)
        return pose if height_mm is None else CameraPose(pose.nadir, float(height_mm), focal)
    focal = default_focal(size)
    centre = np.array([[[size[0] / 2, size[1] / 2]]], np.float64)
    nadir = cv2.perspectiveTransform(centre, np.linalg.inv(homography))[0, 0]
    if height_mm is None:
        # Straight down, the board's scale is focal / height.
        corner = cv2.perspectiveTransform(np.array([[nadir, nadir + np.array([100.0, 0.0])]]),
                                          homography)[0]
        px_per_mm = float(np.linalg.norm(corner[1] - corner[0])) / 100.0
        height_mm = focal / px_per_mm
    return CameraPose((float(nadir[0]), float(nadir[1])), float(height_mm), focal)


def _pose(homography: np.ndarray, size: tuple[int, int], focal: float) -> CameraPose:
    k_inv = np.diag([1 / focal, 1 / focal, 1.0])
    m = k_inv @ _centred(homography, size)
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    if t[2] < 0:  # the board lies in front of the camera
        r1, r2, t = -r1, -r2, -t
    rot = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -rot.T @ t
    return CameraPose((float(centre[0]), float(centre[1])), abs(float(centre[2])), focal)


def rectangle_aspect(corners_px: np.ndarray, size: tuple[int, int]) -> float:
    """Width / height of the rectangle whose corners (top-left, top-right, bottom-right,
    bottom-left, undistorted pixels) the camera sees: perspective taken out."""
    unit = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64)
    hom, _ = cv2.findHomography(unit, np.asarray(corners_px, np.float64), 0)
    if hom is None:
        return float("nan")
    focal = focal_from_homography(hom, size, equal_scale=False) or default_focal(size)
    m = np.diag([1 / focal, 1 / focal, 1.0]) @ _centred(hom, size)
    return float(np.linalg.norm(m[:, 0]) / np.linalg.norm(m[:, 1]))
