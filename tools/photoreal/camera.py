"""The photoreal camera: where it hangs, how it projects, and the lens distortion added after
rendering.

World coordinates are millimetres with the board's outer top-left corner at the origin, X along
the board's x, Y = −(board y) and Z up from the playing surface, so that board millimetres
(x right, y down, docs/geometry.md) become (x, −y, 0). The Blender side uses the same numbers in
metres. Pixels are OpenCV pixel-centre coordinates (the top-left pixel's centre is (0, 0)).

Distortion follows vision/renderer.py's convention: undistorted = c + (d − c)·(1 + k1·r²) with
r = |d − c| / focal_px, so k1 > 0 is barrel distortion; labels give distorted (final) pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Webcam and Pi camera fields of view (horizontal, degrees) the generator draws from.
HFOV_RANGE = (58.0, 80.0)
HEIGHT_RANGE = (500.0, 850.0)
MAX_TILT_DEG = 25.0
MAX_ROLL_DEG = 4.0


def board_to_world(points_mm: np.ndarray, z: float | np.ndarray = 0.0) -> np.ndarray:
    """Board (x, y) millimetres → world (x, −y, z)."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
    zs = np.broadcast_to(np.asarray(z, np.float64), (len(pts),))
    return np.column_stack([pts[:, 0], -pts[:, 1], zs])


@dataclass(frozen=True, slots=True)
class Camera:
    """A pinhole camera plus radial distortion. `rotation` columns are the camera's right, up
    and backward axes in world coordinates (Blender's camera looks along its −Z)."""

    position: tuple[float, float, float]
    rotation: tuple[tuple[float, ...], ...]
    focal_px: float
    size: tuple[int, int]
    k1: float

    @property
    def matrix(self) -> np.ndarray:
        return np.array(self.rotation, np.float64)

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down."""
        back = self.matrix[:, 2]
        return math.degrees(math.acos(max(-1.0, min(1.0, back[2]))))

    def project(self, world: np.ndarray, size: tuple[int, int] | None = None) -> np.ndarray:
        """World mm → undistorted pixels of a picture of `size` (default: the output size)."""
        w, h = size or self.size
        pts = np.asarray(world, np.float64).reshape(-1, 3) - np.array(self.position)
        cam = pts @ self.matrix  # rows: (right, up, back) components
        depth = -cam[:, 2]
        if np.any(depth <= 1e-6):
            raise ValueError("a point lies behind the camera")
        u = (w - 1) / 2 + self.focal_px * cam[:, 0] / depth
        v = (h - 1) / 2 - self.focal_px * cam[:, 1] / depth
        return np.column_stack([u, v])

    def distort(self, undistorted: np.ndarray) -> np.ndarray:
        """Undistorted → distorted output pixels (inverts the model by fixed-point steps)."""
        pts = np.asarray(undistorted, np.float64).reshape(-1, 2)
        centre = (np.array(self.size, np.float64) - 1) / 2
        rel_u = (pts - centre) / self.focal_px
        rel = rel_u.copy()
        for _ in range(20):
            r2 = (rel * rel).sum(axis=1, keepdims=True)
            rel = rel_u / (1 + self.k1 * r2)
        return centre + rel * self.focal_px

    def to_pixels(self, world: np.ndarray) -> np.ndarray:
        """World mm → where the point appears in the final (distorted) picture."""
        return self.distort(self.project(world))

    def render_size(self) -> tuple[int, int]:
        """A rendered picture large enough that distorting it fills the output everywhere."""
        w, h = self.size
        corner = math.hypot(w / 2, h / 2) / self.focal_px
        grow = 1 + max(self.k1, 0.0) * corner * corner
        pad = (math.ceil((w / 2 * (grow - 1) + 2) / 2), math.ceil((h / 2 * (grow - 1) + 2) / 2))
        return w + 4 * pad[0], h + 4 * pad[1]  # multiples of 4 when the output's are

    def bumped(self, rng: np.random.Generator) -> Camera:
        """The same camera after a small knock: turned by 0.15–0.4° about a random axis."""
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = math.radians(rng.uniform(0.15, 0.4))
        turn = _axis_rotation(axis, angle)
        return Camera(self.position, _rows(turn @ self.matrix), self.focal_px, self.size, self.k1)

    def to_json(self) -> dict:
        return {"position_mm": [round(v, 2) for v in self.position],
                "rotation": [[round(v, 6) for v in row] for row in self.rotation],
                "focal_px": round(self.focal_px, 2), "k1": round(self.k1, 4)}


def look_at(position: np.ndarray, target: np.ndarray, roll_deg: float) -> np.ndarray:
    """Rotation (columns right, up, back) looking at `target` with the board's top (world +Y)
    up in the picture, then turned by `roll_deg` about the optical axis."""
    forward = target - position
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, np.array([0.0, 1.0, 0.0]))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    base = np.column_stack([right, up, -forward])
    roll = math.radians(roll_deg)
    spin = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0],
                     [0, 0, 1]])
    return base @ spin


def choose_camera(rng: np.random.Generator, board_size: tuple[float, float],
                  size: tuple[int, int]) -> Camera:
    """A webcam 500–850 mm above the board, off centre, tilted up to 25°, that sees the whole
    board with a margin and shows it large enough to read."""
    bw, bh = board_size
    w, h = size
    corners = board_to_world(np.array([(0, 0), (bw, 0), (bw, bh), (0, bh)], np.float64))
    for _ in range(10_000):
        hfov = rng.uniform(*HFOV_RANGE)
        focal = (w / 2) / math.tan(math.radians(hfov) / 2)
        height = rng.uniform(*HEIGHT_RANGE)
        tilt = math.radians(rng.uniform(0.0, MAX_TILT_DEG))
        azimuth = rng.uniform(0, 2 * math.pi)
        target = np.array([bw / 2 + rng.uniform(-0.08, 0.08) * bw,
                           -bh / 2 + rng.uniform(-0.08, 0.08) * bh, 0.0])
        reach = height * math.tan(tilt)
        position = target + np.array([reach * math.cos(azimuth), reach * math.sin(azimuth),
                                      height])
        spread = (hfov - HFOV_RANGE[0]) / (HFOV_RANGE[1] - HFOV_RANGE[0])
        k1 = rng.uniform(-0.02, 0.04 + 0.1 * spread)
        cam = Camera(tuple(float(v) for v in position),
                     _rows(look_at(position, target, rng.uniform(-MAX_ROLL_DEG, MAX_ROLL_DEG))),
                     float(focal), size, float(k1))
        px = cam.to_pixels(corners)
        margin = 0.04 * w
        inside = (px[:, 0].min() > margin and px[:, 0].max() < w - margin
                  and px[:, 1].min() > margin and px[:, 1].max() < h - margin)
        span = max((px[:, 0].max() - px[:, 0].min()) / w, (px[:, 1].max() - px[:, 1].min()) / h)
        if inside and span > 0.72:
            return cam
    raise RuntimeError("no camera found that sees the whole board")


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def _rows(matrix: np.ndarray) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(v) for v in row) for row in matrix)
