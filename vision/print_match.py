"""Find the board again in a frame taken from another view, by its own print.

The frame aligner (`vision.frame_align`) corrects a knock of a few millimetres; a photo taken
by hand, a camera moved on purpose or a board pushed further shows the board from a new view,
and the frame is "moved". The calibration keeps the empty board top-down in board
millimetres, whatever the view: its print's features (SIFT) are matched with the frame's, and
a homography fitted to the matches (RANSAC), made precise by an ECC fit of the print's
edges, is the new view. Pieces, dice and a hand cover some of the print; what matches
elsewhere is enough. A view is accepted only when a dozen matches or more agree with it, the
print's edges then correlate well with the empty board's (another print of the same board
does not), and the board it puts in the picture is plausible: inside the picture, not
folded, and of a size like the calibrated view's. `vision board` and `vision eval` read
frames so (`AnyViewReader`); `calibrate` finds the position's view so when the empty board
was photographed from another, and the table's search for a moved board tries it first.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.board_finder import board_corners
from vision.calibration import Calibration
from vision.camera_pose import pose_from_homography
from vision.frame_align import FIT_EPS, FIT_SOFTEN, FIT_STEPS, SCALE
from vision.frame_reader import BoardReading, FrameReader
from vision.lens import Lens, to_image, warp_board
from vision.observation import MOVED
from vision.piece_edges import structure

#: Lowe's ratio test: a frame's feature matches a print feature only when its best match is
#: clearly better than its second best.
RATIO = 0.85
#: A view is tried with at least this many matches that agree with it (within
#: `REPROJECTION_PX`): a print of 250-500 features (development photoreal boards) has 20-80
#: of them matched right in a frame of the calibrated view ...
MIN_AGREEING = 12
REPROJECTION_PX = 3.0
#: ... and accepted when, fitted precisely (ECC), the print's edges in the frame correlate
#: this well with the empty board's.
MIN_FIT = 0.5
#: The board found may be this much larger or smaller (area) than in the calibrated view.
AREA_CHANGE = 2.0
#: A view whose board corners lie within this (pixels) of the calibrated view's is that view
#: (the frame aligner has seen to it).
SAME_VIEW_PX = 3.0


class PrintMatcher:
    """Finds a board whose empty look is known in frames from any view (build once)."""

    def __init__(self, empty: np.ndarray, homography: np.ndarray, lens: Lens) -> None:
        """`empty`: the empty board top-down (board mm); `homography` and `lens`: the view
        it was seen from (board mm → picture), the size a board found may differ from."""
        self.empty = empty
        self.lens = lens
        self.corners = to_image(homography, lens, board_corners(empty.shape[1], empty.shape[0]))
        self.sift = cv2.SIFT_create()
        self.points, self.features = self.sift.detectAndCompute(
            cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY), None)
        self.area = _area(self.corners)
        self.empty_edges = _soft_half(structure(empty))

    @classmethod
    def of(cls, calib: Calibration) -> PrintMatcher:
        return cls(calib.empty, calib.matrix, calib.lens)

    def find(self, image: np.ndarray) -> np.ndarray | None:
        """The homography (board mm → undistorted picture px) of the view `image` shows the
        board from, or None when the board's print is not found in it."""
        if self.features is None or len(self.points) < MIN_AGREEING:
            return None
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        points, features = self.sift.detectAndCompute(grey, None)
        if features is None or len(points) < MIN_AGREEING:
            return None
        pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(self.features, features, k=2)
        good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
        if len(good) < MIN_AGREEING:
            return None
        src = np.float32([self.points[m.queryIdx].pt for m in good])
        dst = np.float32(self.lens.undistort(np.float32([points[m.trainIdx].pt for m in good])))
        homography, agree = cv2.findHomography(src, dst, cv2.RANSAC, REPROJECTION_PX)
        if homography is None or int(agree.sum()) < MIN_AGREEING:
            return None
        homography, fit = self._refined(image, homography)
        if fit < MIN_FIT:
            return None
        corners = self._corners(homography)
        return homography if _plausible(corners, image.shape, self.area) else None

    def find_moved(self, image: np.ndarray) -> np.ndarray | None:
        """As `find`, but None also when the view found is the matcher's own: its board
        corners within `SAME_VIEW_PX` (the frame aligner sees to such a knock)."""
        homography = self.find(image)
        if homography is None:
            return None
        shift = np.hypot(*(self._corners(homography) - self.corners).T).max()
        return None if shift < SAME_VIEW_PX else homography

    def view(self, calib: Calibration, image: np.ndarray) -> Calibration | None:
        """`calib` seen from the view of `image` (same camera and board, the pieces and
        light learned kept), or None when the board's print is not found in it."""
        homography = self.find(image)
        return None if homography is None else seen_from(calib, homography)

    def _corners(self, homography: np.ndarray) -> np.ndarray:
        """The board's corners in the picture of the view `homography`."""
        h, w = self.empty.shape[:2]
        return to_image(homography, self.lens, board_corners(w, h))

    def _refined(self, image: np.ndarray, homography: np.ndarray) -> tuple[np.ndarray, float]:
        """`homography` made precise (the frame warped with it, its print's edges fitted onto
        the empty board's by ECC, a homography) and how well they then correlate (0 when the
        fit does not converge)."""
        h, w = self.empty.shape[:2]
        seen = _soft_half(structure(warp_board(image, homography, w, h, self.lens)))
        try:
            correlation, fit = cv2.findTransformECC(
                self.empty_edges, seen, np.eye(3, dtype=np.float32), cv2.MOTION_HOMOGRAPHY,
                (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, FIT_STEPS, FIT_EPS), None, 1)
        except cv2.error:
            return homography, 0.0
        half = np.diag([SCALE, SCALE, 1.0])
        return homography @ np.linalg.inv(half) @ fit.astype(np.float64) @ half, correlation


def seen_from(calib: Calibration, homography: np.ndarray) -> Calibration:
    """`calib` from the view `homography` (board mm → undistorted picture px): the same
    camera, board, pieces and light learned; the camera's pose as that view gives it."""
    pose = pose_from_homography(homography, calib.image_size,
                                calib.camera_height_mm if calib.height_measured else None)
    return dataclasses.replace(
        calib, homography=tuple(float(v) for v in homography.ravel()),
        camera_height_mm=float(pose.height), nadir_mm=pose.nadir)


def _soft_half(edges: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(cv2.resize(edges, None, fx=SCALE, fy=SCALE,
                                       interpolation=cv2.INTER_AREA), (0, 0), FIT_SOFTEN)


def _area(corners: np.ndarray) -> float:
    return float(abs(cv2.contourArea(np.float32(corners))))


def _plausible(corners: np.ndarray, shape: tuple[int, ...], area: float) -> bool:
    """The board's corners inside the picture, convex in their order, its area within
    `AREA_CHANGE` of the calibrated view's."""
    h, w = shape[:2]
    if not ((corners[:, 0] >= -1) & (corners[:, 0] <= w) & (corners[:, 1] >= -1)
            & (corners[:, 1] <= h)).all():
        return False
    edges = np.roll(corners, -1, axis=0) - corners
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - \
        edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not ((turns > 0).all() or (turns < 0).all()):
        return False
    return 1 / AREA_CHANGE <= _area(corners) / area <= AREA_CHANGE


class AnyViewReader:
    """Reads a frame from the calibrated view or, when it gives no board there, from the view
    its print is found in (`PrintMatcher`): a photo taken by hand, a camera moved or a board
    pushed. For commands that read single frames (`vision board`, `vision eval`): finding the
    print takes 150-200 ms a frame, too slow for the table's live loop, which finds a moved
    board by itself (`vision.calibrate.revisit`)."""

    def __init__(self, reader: FrameReader) -> None:
        self.reader = reader
        self.board_geo = reader.board_geo
        self.matcher = PrintMatcher.of(reader.calib)

    def read_board(self, image: np.ndarray) -> BoardReading:
        """As `FrameReader.read_board`; a board seen from another view is read from there,
        and so is the reason when a board "moved" is not read there either."""
        reading = self.reader.read_board(image)
        if reading.board is not None:
            return reading
        homography = self.matcher.find_moved(image)
        if homography is None:
            return reading
        r = self.reader
        again = FrameReader(seen_from(r.calib, homography), players=r.players, dice_reader=None,
                            min_confidence=r.min_confidence,
                            all_checkers=r.all_checkers).read_board(image)
        return again if again.board is not None or reading.problem == MOVED else reading

