"""The lens: radial distortion, board mm → picture pixels, and the top-down warp of the board.

A homography cannot bend straight lines, but a lens does; the distortion is one radial term
about the picture's centre, measured when the board is found (`vision.board_finder`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

#: The top-down warp's scale: one pixel per board millimetre.
WARP_PX_PER_MM = 1.0
#: `Lens.distort`'s rounds of Newton's method: from the first-order guess the error is below
#: 1e-9 of a pixel after four for any distortion the board finder tries (|kappa| <= 0.5).
DISTORT_ROUNDS = 4


@dataclass(frozen=True, slots=True)
class Lens:
    """Radial lens distortion about the picture's centre, which a homography cannot model:
    undistorted = c + (p − c)·(1 + kappa·r²), with r = |p − c| / picture width."""

    kappa: float
    size: tuple[int, int]

    def undistort(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.kappa == 0.0:
            return pts
        centre = np.array(self.size, np.float64) / 2
        rel = pts - centre
        r2 = (rel * rel).sum(axis=1, keepdims=True) / (self.size[0] ** 2)
        return centre + rel * (1 + self.kappa * r2)

    def distort(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.kappa == 0.0:
            return pts
        centre = np.array(self.size, np.float64) / 2
        xu, yu = pts[:, 0] - centre[0], pts[:, 1] - centre[1]
        # rel = rel_u · f, where f solves f (1 + q f²) = 1 with q = kappa r_u²: Newton's method
        # from the first-order guess (the outline search calls this tens of thousands of times)
        q = (self.kappa / (self.size[0] ** 2)) * (xu * xu + yu * yu)
        f = 1.0 - q
        for _ in range(DISTORT_ROUNDS):
            qf2 = q * f * f
            f -= (f + f * qf2 - 1.0) / (1.0 + 3.0 * qf2)
        return np.column_stack([xu * f + centre[0], yu * f + centre[1]])


def to_image(homography: np.ndarray, lens: Lens, points_mm: np.ndarray) -> np.ndarray:
    """Board mm → pixel in the picture as taken (homography, then the lens)."""
    pts = np.asarray(points_mm, np.float64).reshape(1, -1, 2)
    return lens.distort(cv2.perspectiveTransform(pts, homography)[0])


def warp_size(width: float, height: float) -> tuple[int, int]:
    return (round(width * WARP_PX_PER_MM), round(height * WARP_PX_PER_MM))


def warp_board(image: np.ndarray, homography: np.ndarray, width: float, height: float,
               lens: Lens | None = None) -> np.ndarray:
    """A top-down picture of the board at `WARP_PX_PER_MM` (only this region is warped).

    With a distorting lens the pixel lookup table is computed once per calibration."""
    if lens is None or lens.kappa == 0.0:
        scale = np.diag([1 / WARP_PX_PER_MM, 1 / WARP_PX_PER_MM, 1.0])
        return cv2.warpPerspective(image, homography @ scale, warp_size(width, height),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    map_x, map_y = _warp_maps(tuple(homography.ravel()), lens, width, height)
    return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@functools.lru_cache(maxsize=8)
def _warp_maps(homography: tuple[float, ...], lens: Lens, width: float, height: float
               ) -> tuple[np.ndarray, np.ndarray]:
    w, h = warp_size(width, height)
    xs, ys = np.meshgrid(np.arange(w) / WARP_PX_PER_MM, np.arange(h) / WARP_PX_PER_MM)
    mm = np.column_stack([xs.ravel(), ys.ravel()])
    pixels = to_image(np.array(homography).reshape(3, 3), lens, mm)
    return (pixels[:, 0].reshape(h, w).astype(np.float32),
            pixels[:, 1].reshape(h, w).astype(np.float32))
