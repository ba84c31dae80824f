"""How blurred the camera's picture is, measured on the corner markers' printed edges.

A camera out of focus, or one shaking on its mount, widens every edge of the picture in the
direction of its blur, and the table camera's dice (13–18 px wide) lose their pips first: the
calibration warns when the blur is a large part of a die (`vision.calibration`).

The markers are the one thing on the board whose edges are known to be sharp: black and white
print, with a white margin. Across each of their edges the brightness rises from 10 to 90 % of
the step over a width; a sharp picture shows 0.8 px (rendered frames without blur), a blur of
length L along an edge's normal widens it by about 0.8 L. The widths along the markers' two side
directions are combined, because a blur at any angle widens both: blur = √(w₁² − s² + w₂² − s²)
with s the sharp width.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.markers import quad_side

#: 10–90 % width of a sharp edge (px): the renderer's frames without blur measure 0.80–0.83.
SHARP_EDGE_PX = 0.8
#: A marker (DICT_4X4_50) is 6 cells wide: 4 bits and a black border on each side. A profile
#: across an edge reaches half a cell to each side; farther it would run into the next edge.
MARKER_CELLS = 6
#: Brightness step (grey levels) an edge needs to be measured; a marker's is about 200.
MIN_STEP = 60.0
#: Edges a side direction needs before its width counts.
MIN_EDGES = 10
#: An edge whose normal lies within this angle (radians, 20°) of a side's direction is that
#: side's (a lens's distortion and the perspective turn the sides a little).
SIDE_TOLERANCE = 0.35


def marker_blur_px(image_bgr: np.ndarray, markers: list[np.ndarray]) -> float | None:
    """The picture's blur in pixels, measured on the markers (each 4 corners in the picture);
    None when no marker shows enough clean edges."""
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    widths, angles = [], []
    for quad in markers:
        w, a = _edge_widths(gray, quad)
        side = math.atan2(quad[1, 1] - quad[0, 1], quad[1, 0] - quad[0, 0])
        widths.append(w)
        angles.append((a - side) % np.pi)  # 0 or π: normal along the marker's top side
    if not widths:
        return None
    width, angle = np.concatenate(widths), np.concatenate(angles)
    along = np.minimum(angle, np.pi - angle) < SIDE_TOLERANCE
    across = np.abs(angle - np.pi / 2) < SIDE_TOLERANCE
    if along.sum() < MIN_EDGES or across.sum() < MIN_EDGES:
        return None
    spread = sum(max(float(np.median(width[part])) ** 2 - SHARP_EDGE_PX**2, 0.0)
                 for part in (along, across))
    return math.sqrt(spread)


def _edge_widths(gray: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rise widths of the clean step edges of one marker (and its margin), with their normals'
    directions in radians."""
    centre = quad.mean(axis=0)
    outline = centre + (quad - centre) * 1.2  # the marker and a little of its white margin
    h, w = gray.shape
    x0, y0 = np.floor(outline.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    reach = max(1.5, quad_side(quad) / MARKER_CELLS / 2)
    part = gray[y0:y1, x0:x1]
    mask = np.zeros(part.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(outline - (x0, y0)).astype(np.int32)], 255)
    smooth = cv2.GaussianBlur(part, (0, 0), 0.7)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
    ys, xs = np.nonzero((cv2.Canny(part.astype(np.uint8), 50, 120) > 0) & (mask > 0))
    if len(xs) == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    norm = np.hypot(gx[ys, xs], gy[ys, xs]) + 1e-6
    nx, ny = gx[ys, xs] / norm, gy[ys, xs] / norm
    steps = np.arange(-reach, reach + 0.01, 0.25, dtype=np.float32)
    profile = cv2.remap(part, (xs[:, None] + nx[:, None] * steps).astype(np.float32),
                        (ys[:, None] + ny[:, None] * steps).astype(np.float32),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ends = 3  # the outer half pixel of each side: the levels the edge rises between
    low, high = profile[:, :ends].mean(axis=1), profile[:, -ends:].mean(axis=1)
    step = high - low
    ripple = np.maximum(profile[:, :ends].std(axis=1), profile[:, -ends:].std(axis=1))
    clean = (step > MIN_STEP) & (ripple < 0.1 * step)  # one edge, flat on both sides
    rise = (profile[clean] - low[clean, None]) / step[clean, None]
    width = _crossing(rise, steps, 0.9) - _crossing(rise, steps, 0.1)
    return width, np.arctan2(ny[clean], nx[clean]) % np.pi


def _crossing(rise: np.ndarray, steps: np.ndarray, level: float) -> np.ndarray:
    """Where each profile first reaches `level`, linearly between samples."""
    i = np.clip(np.argmax(rise >= level, axis=1), 1, len(steps) - 1)
    rows = np.arange(len(i))
    before, after = rise[rows, i - 1], rise[rows, i]
    frac = np.clip((level - before) / np.maximum(after - before, 1e-6), 0.0, 1.0)
    return steps[i - 1] + frac * (steps[1] - steps[0])
