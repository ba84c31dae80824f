"""The overlay: the calibration's fields drawn on the picture, for a person to check."""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_finder import check_image
from vision.calibration import Calibration
from vision.geometry import BackgammonGeometry


def overlay(image: np.ndarray, calib: Calibration) -> np.ndarray:
    """A copy of `image` with the board's edge (yellow), every point, lane, tray and field
    (magenta, cyan) and the dice area (green) outlined."""
    check_image(image)
    board_geo = calib.geometry().board(calib.game)
    out = image.copy()
    thick = max(1, round(max(image.shape[:2]) / 640))

    def poly(points: list[tuple[float, float]], colour: tuple[int, int, int]) -> None:
        pts = calib.to_image(np.array(points, np.float64))
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, thick, cv2.LINE_AA)

    w, h = board_geo.width, board_geo.height
    poly([(0, 0), (w, 0), (w, h), (0, h)], (0, 255, 255))
    if isinstance(board_geo, BackgammonGeometry):
        for point in range(1, 25):
            poly(list(board_geo.point_triangle(point)), (255, 0, 255))
        for lane in board_geo.lanes()[24:]:
            half = lane.width / 2 - 2
            end = lane.stack_length
            poly([lane.at(0, -half), lane.at(0, half), lane.at(end, half), lane.at(end, -half)],
                 (255, 255, 0))
    else:
        r = board_geo.field_diameter / 2
        ring = [(r * np.cos(a), r * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 24,
                                                                      endpoint=False)]
        for _, (cx, cy), _ in board_geo.fields():
            poly([(cx + dx, cy + dy) for dx, dy in ring], (255, 0, 255))
    x0, y0, x1, y1 = board_geo.dice_area
    poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], (0, 200, 0))
    return out
