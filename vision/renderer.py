"""Realistic camera frames of both boards drawn from a game state, for the simulator and tests.

A pinhole camera 50–80 cm above the board, slightly off centre and tilted, with radial lens
distortion looks at the top-down sheet from `render_board`; then uneven light, an optional hand
or arm (or only its shadow), motion blur, sensor noise and JPEG artefacts are applied. Everything
random comes from one seed, so a seed always gives the same frame. The true homography and the
dice boxes come back with the image, so tests can check calibration and reading against truth.
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision import render_board
from vision.geometry import DIE_SIZE_MM, Rect, TableGeometry, load_geometry
from vision.parallax import Parallax
from vision.render_board import MARGIN_MM, PX_PER_MM, PlacedDie, Sheet

log = logging.getLogger(__name__)

DEFAULT_SIZE = (1280, 720)
#: A cocked die leans this far (radians) onto one bottom edge: from barely (its top still
#: mostly faces up) to nearly halfway onto its side.
COCKED_TILT = (math.radians(25), math.radians(45))


@dataclass(frozen=True, slots=True)
class Camera:
    """Where the camera hangs and how its lens bends the picture.

    `position` is (x, y, height) in board mm; angles in radians; `k1` the radial distortion
    (undistorted = distorted · (1 + k1·r²) in normalised coordinates).
    """

    size: tuple[int, int]
    position: tuple[float, float, float]
    yaw: float
    tilt_x: float
    tilt_y: float
    focal: float
    k1: float

    @classmethod
    def random(cls, rng: np.random.Generator, board_size: tuple[float, float],
               size: tuple[int, int] = DEFAULT_SIZE, fill: float | None = None) -> Camera:
        """A plausible mount: 50–80 cm high, a few cm off centre, a few degrees tilted.

        `fill` > 1 zooms in so that part of the board (and its markers) leaves the picture.
        """
        w, h = board_size
        cam = cls(size=size,
                  position=(w / 2 + rng.uniform(-50, 50), h / 2 + rng.uniform(-35, 35),
                            rng.uniform(500, 800)),
                  yaw=rng.uniform(-0.1, 0.1), tilt_x=rng.uniform(-0.05, 0.05),
                  tilt_y=rng.uniform(-0.05, 0.05), focal=1.0, k1=rng.uniform(-0.03, 0.03))
        reach = 75.0  # markers and their quiet zone reach this far beyond the board
        corners = np.array([(-reach, -reach), (w + reach, -reach), (w + reach, h + reach),
                            (-reach, h + reach)])
        norm = cam._normalised(corners)
        scale = min((size[0] / 2) / np.abs(norm[:, 0]).max(),
                    (size[1] / 2) / np.abs(norm[:, 1]).max())
        chosen = fill if fill is not None else rng.uniform(0.86, 0.96)
        return cls(size=size, position=cam.position, yaw=cam.yaw, tilt_x=cam.tilt_x,
                   tilt_y=cam.tilt_y, focal=float(scale * chosen), k1=cam.k1)

    def rotation(self) -> np.ndarray:
        cz, sz = math.cos(self.yaw), math.sin(self.yaw)
        cx, sx = math.cos(self.tilt_x), math.sin(self.tilt_x)
        cy, sy = math.cos(self.tilt_y), math.sin(self.tilt_y)
        rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
        rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
        ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
        return rz @ rx @ ry

    def _plane_matrix(self) -> np.ndarray:
        """Board plane (x, y, 1) → camera coordinates (the table is z = 0, camera at −height)."""
        r = self.rotation()
        centre = np.array([self.position[0], self.position[1], -self.position[2]])
        return np.column_stack([r[:, 0], r[:, 1], -r @ centre])

    def _normalised(self, points_mm: np.ndarray) -> np.ndarray:
        cam = (self._plane_matrix() @ np.column_stack([points_mm, np.ones(len(points_mm))]).T).T
        return cam[:, :2] / cam[:, 2:3]

    @property
    def px_per_mm(self) -> float:
        """Roughly how many image pixels one board millimetre covers."""
        return self.focal / self.position[2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Board mm → distorted image pixels, exactly where the renderer draws them."""
        und = self._normalised(np.asarray(points_mm, dtype=np.float64).reshape(-1, 2))
        dist = und.copy()
        for _ in range(10):
            r2 = (dist ** 2).sum(axis=1, keepdims=True)
            dist = und / (1 + self.k1 * r2)
        return dist * self.focal + np.array(self.size) / 2

    def parallax(self) -> Parallax:
        """The side faces flat dice show this camera, as a calibration that measured the
        mount's height would tell the dice reader (here the nadir is exact, not assumed)."""
        nadir = self.project(np.array([self.position[:2]]))[0]
        return Parallax.of_camera((float(nadir[0]), float(nadir[1])), self.position[2])

@functools.lru_cache(maxsize=16)
def _camera_maps(camera: Camera) -> tuple[np.ndarray, np.ndarray]:
    """For each image pixel, the sheet pixel it shows (for `cv2.remap`)."""
    w, h = camera.size
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    xd = (u - w / 2) / camera.focal
    yd = (v - h / 2) / camera.focal
    grow = 1 + camera.k1 * (xd * xd + yd * yd)
    xu, yu = xd * grow, yd * grow
    inv = np.linalg.inv(camera._plane_matrix())
    px = inv[0, 0] * xu + inv[0, 1] * yu + inv[0, 2]
    py = inv[1, 0] * xu + inv[1, 1] * yu + inv[1, 2]
    pz = inv[2, 0] * xu + inv[2, 1] * yu + inv[2, 2]
    map_x = ((px / pz + MARGIN_MM) * PX_PER_MM).astype(np.float32)
    map_y = ((py / pz + MARGIN_MM) * PX_PER_MM).astype(np.float32)
    return map_x, map_y


@dataclass(frozen=True, slots=True)
class Scene:
    """What lies on the table: a board, dice, and what may get in the way.

    `cocked[i]` tilts die i; `throw` numbers the throw the dice come from (the dice of one throw
    keep their place while checkers move; another throw lands them elsewhere, even with the
    same values); `touching` lays each die face to face with the one before (dice pressed
    together, as they often end in a tray); `hand` puts a hand and arm over the board, `shadow`
    only an arm's shadow; `light` scales the brightness (0.2 is a dim room); `clean` turns off
    noise, blur, uneven light and JPEG (for pictures in the docs); `palette` paints another
    table.
    """

    board: BackgammonBoard | MaednBoard
    dice: tuple[int, ...] = ()
    cocked: tuple[bool, ...] = ()
    throw: int = 0
    touching: bool = False
    hand: bool = False
    shadow: bool = False
    markers: bool = True
    light: float = 1.0
    dice_anywhere: bool = False
    clean: bool = False
    palette: render_board.Palette = render_board.HOFER

    @property
    def game(self) -> str:
        return "backgammon" if isinstance(self.board, BackgammonBoard) else "maedn"


@dataclass(frozen=True, slots=True)
class RenderedFrame:
    """A rendered picture with the truth behind it."""

    image: np.ndarray = field(repr=False)
    scene: Scene
    camera: Camera
    dice: tuple[PlacedDie, ...]
    dice_boxes: tuple[tuple[int, int, int, int], ...]

    @property
    def blocked(self) -> bool:
        return self.scene.hand or self.scene.shadow


def render(scene: Scene, seed: int, camera: Camera | None = None,
           geometry: TableGeometry | None = None, size: tuple[int, int] = DEFAULT_SIZE,
           ) -> RenderedFrame:
    """Draw one frame of `scene`; the same seed (and camera) always gives the same image."""
    geometry = geometry or load_geometry()
    rng = np.random.default_rng(seed)
    board_geo = geometry.board(scene.game)
    if camera is None:
        camera = Camera.random(np.random.default_rng([seed, 1]), geometry.board_size(scene.game),
                               size)
    markers = geometry.markers if scene.markers else None
    if isinstance(scene.board, BackgammonBoard):
        sheet_img = render_board.backgammon_base(board_geo, markers, scene.palette).copy()
        render_board.draw_backgammon(sheet_img, board_geo, scene.board, rng, scene.palette)
    else:
        sheet_img = render_board.maedn_base(board_geo, markers, scene.palette).copy()
        render_board.draw_maedn(sheet_img, board_geo, scene.board, rng, scene.palette)
    sheet = Sheet(board_geo.width, board_geo.height)
    area = board_geo.dice_area
    if scene.dice_anywhere:
        area = (30.0, 30.0, board_geo.width - 30.0, board_geo.height - 30.0)
    # The dice keep their place while checkers move: their spots depend on the throw only.
    throw_rng = np.random.default_rng([seed, 2, scene.throw, *sorted(scene.dice)])
    dice = _place_dice(scene, area, throw_rng)
    for die in dice:
        render_board.draw_die(sheet_img, sheet, die, camera.position)
    map_x, map_y = _camera_maps(camera)
    image = cv2.remap(sheet_img, map_x, map_y, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=scene.palette.table)
    if scene.hand or scene.shadow:
        _draw_arm(image, camera, board_geo.width, board_geo.height, rng, draw_arm=scene.hand)
    image = _light(image, rng, scene)
    if not scene.clean:
        image = blur_noise_jpeg(image, rng)
    boxes = []
    for die in dice:
        pts = camera.project(die.outline(camera.position))
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
        boxes.append((int(x0), int(y0), int(x1), int(y1)))
    return RenderedFrame(image=image, scene=scene, camera=camera, dice=dice,
                         dice_boxes=tuple(boxes))


def _place_dice(scene: Scene, area: Rect, rng: np.random.Generator) -> tuple[PlacedDie, ...]:
    body = int(rng.integers(len(render_board.DIE_BODIES)))
    placed: list[PlacedDie] = []
    x0, y0, x1, y1 = area
    room = DIE_SIZE_MM * 0.9
    for i, value in enumerate(scene.dice):
        if not 1 <= value <= 6:
            raise ValueError(f"a die shows 1..6, got {value}")
        cocked = bool(scene.cocked[i]) if i < len(scene.cocked) else False
        for _ in range(200):
            centre = (rng.uniform(x0 + room, x1 - room), rng.uniform(y0 + room, y1 - room))
            if all(math.dist(centre, d.centre) > 2.2 * DIE_SIZE_MM for d in placed):
                break
        angle = float(rng.uniform(0, 2 * math.pi))
        if scene.touching and placed:
            angle = placed[-1].angle
            centre = (placed[-1].centre[0] + DIE_SIZE_MM * math.cos(angle),
                      placed[-1].centre[1] + DIE_SIZE_MM * math.sin(angle))
        tilt = float(rng.uniform(COCKED_TILT[0], COCKED_TILT[1])) if cocked else 0.0
        placed.append(PlacedDie(value, centre, angle, cocked, body, tilt))
    return tuple(placed)


def _draw_arm(image: np.ndarray, camera: Camera, width: float, height: float,
              rng: np.random.Generator, draw_arm: bool) -> None:
    """A hand reaching for a random spot on the board from the nearest side, with its shadow."""
    scale = camera.px_per_mm * rng.uniform(1.05, 1.2)  # the hand is nearer to the lens
    target_mm = np.array([[rng.uniform(0.2, 0.8) * width, rng.uniform(0.2, 0.8) * height]])
    target = camera.project(target_mm)[0]
    h, w = image.shape[:2]
    side = int(rng.integers(4))
    start = {0: (target[0] + rng.uniform(-200, 200), -400.0),
             1: (w + 400.0, target[1] + rng.uniform(-150, 150)),
             2: (target[0] + rng.uniform(-200, 200), h + 400.0),
             3: (-400.0, target[1] + rng.uniform(-150, 150))}[side]
    direction = np.array(target) - np.array(start)
    direction /= np.linalg.norm(direction)
    normal = np.array([-direction[1], direction[0]])
    mask = np.zeros((h, w), np.uint8)
    wrist = np.array(target) - direction * 45 * scale
    cv2.line(mask, _pt(start), _pt(wrist), 255, int(75 * scale))
    cv2.ellipse(mask, _pt(target), (int(48 * scale), int(42 * scale)),
                math.degrees(math.atan2(direction[1], direction[0])), 0, 360, 255, -1)
    for k in range(4):
        base = np.array(target) + normal * (k - 1.5) * 19 * scale + direction * 30 * scale
        tip = base + direction * rng.uniform(45, 70) * scale + normal * (k - 1.5) * 6 * scale
        cv2.line(mask, _pt(base), _pt(tip), 255, int(17 * scale))
    offset = (rng.uniform(-1, 1, 2) * 40 + 35) * scale
    shadow = np.roll(mask, (int(offset[1]), int(offset[0])), axis=(0, 1))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 6 * scale)
    strength = rng.uniform(0.45, 0.6)
    image[:] = (image * (1 - strength * shadow[..., None] / 255.0)).astype(np.uint8)
    if not draw_arm:
        return
    skin = np.array([rng.uniform(105, 150), rng.uniform(135, 175), rng.uniform(185, 230)])
    texture = cv2.resize(rng.uniform(0.8, 1.05, (h // 40 + 2, w // 40 + 2)).astype(np.float32),
                         (w, h), interpolation=cv2.INTER_CUBIC)
    soft = cv2.GaussianBlur(mask, (0, 0), 1.5).astype(np.float32)[..., None] / 255.0
    arm = texture[..., None] * skin
    image[:] = np.clip(image * (1 - soft) + arm * soft, 0, 255).astype(np.uint8)


def _pt(p: np.ndarray | tuple[float, float]) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))


def _light(image: np.ndarray, rng: np.random.Generator, scene: Scene) -> np.ndarray:
    """Uneven light: a gradient from a lamp to one side and a vignette, scaled by `light`."""
    h, w = image.shape[:2]
    if scene.clean:
        gain = np.full((8, 8), scene.light, np.float32)
    else:
        ys, xs = np.mgrid[0:1:8j, 0:1:8j].astype(np.float32)
        gx, gy = rng.uniform(-0.12, 0.12, 2)
        vignette = rng.uniform(0.0, 0.1)
        base = rng.uniform(0.9, 1.05) * scene.light
        r2 = (xs - 0.5) ** 2 + (ys - 0.5) ** 2
        gain = base * (1 + gx * (xs - 0.5) * 2 + gy * (ys - 0.5) * 2) * (1 - vignette * r2 * 2)
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(image * gain[..., None], 0, 255).astype(np.uint8)


def blur_noise_jpeg(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What the table camera does to a picture: motion blur of 1-3.5 px at any angle, sensor
    noise, JPEG at quality 70-92 (also applied to real dice photos shrunk to the table
    camera's scale when training the classifier for its small dice)."""
    length = rng.uniform(1.0, 3.5)
    angle = rng.uniform(0, math.pi)
    size = 7
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(kernel, (round(c * 16 - dx * 16), round(c * 16 - dy * 16)),
             (round(c * 16 + dx * 16), round(c * 16 + dy * 16)), 1.0, 1, cv2.LINE_AA, shift=4)
    kernel /= kernel.sum()
    blurred = cv2.filter2D(image, -1, kernel)
    noise = np.empty(image.shape, np.int16)
    cv2.setRNGSeed(int(rng.integers(2**31)))
    cv2.randn(noise, 0, rng.uniform(2.0, 5.0))
    noisy = cv2.add(blurred.astype(np.int16), noise, dtype=cv2.CV_16S)
    noisy = np.clip(noisy, 0, 255).astype(np.uint8)
    quality = int(rng.integers(70, 93))
    ok, buf = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
