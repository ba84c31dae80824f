"""The calibration: what `vision.calibrate` learned about one camera and board, and its file.

A JSON file (`"version": 2`) holds where the board lies in the picture (homography and lens),
the camera's pose, the empty board's top-down picture (PNG inside the JSON, so one file is the
whole calibration), the learned piece colours and the warnings given (docs/calibration.md).
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.words import BackgammonBoard, MaednBoard
from vision.board_errors import CalibrationError
from vision.board_look import PieceColour
from vision.camera_pose import CameraPose
from vision.geometry import DIE_SIZE_MM, MaednGeometry, TableGeometry, load_geometry
from vision.lens import Lens, to_image
from vision.parallax import Parallax
from vision.piece_edges import EdgeLevels

log = logging.getLogger(__name__)

FORMAT_VERSION = 2

STANDARD_BACKGAMMON = BackgammonBoard(points=(
    -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))


def maedn_start(players: int, geometry: MaednGeometry | None = None) -> MaednBoard:
    """The Hofer start: every seat's four pieces in its house."""
    (geometry or MaednGeometry()).seat_colours(players)
    return MaednBoard(pieces=tuple((-1, -1, -1, -1) for _ in range(players)))


@dataclass(frozen=True, eq=False)
class Calibration:
    """Everything the frame reader needs for one camera position and one board."""

    game: str
    image_size: tuple[int, int]
    homography: tuple[float, ...]  # 9 values, row by row
    method: str
    empty: np.ndarray  # the empty board's top-down warp (uint8, 1 px per mm)
    noise: tuple[float, float, float]  # grey levels two pictures of the empty board differ by
    piece_colours: tuple[PieceColour, ...]
    colours_in_play: tuple[int, ...] = ()  # Mensch: the colour of each learned piece colour
    players: int = 2  # seats of the position calibrated on (its board's shape)
    edge_levels: EdgeLevels | None = None  # how a piece's new edges score
    #: Backgammon: how white's and black's checker rims score (None: as `edge_levels`).
    rim_levels: tuple[EdgeLevels | None, EdgeLevels | None] | None = None
    empty_source: str = "frame"  # "frame" (an empty-board frame) or "position" (borrowed)
    warnings: tuple[str, ...] = ()
    geometry_file: str | None = None
    lens_kappa: float = 0.0
    camera_height_mm: float = 650.0  # measured, or worked out from the board's perspective
    nadir_mm: tuple[float, float] = (0.0, 0.0)
    height_measured: bool = False
    _geometry: list = field(default_factory=list, repr=False)

    @property
    def matrix(self) -> np.ndarray:
        return np.array(self.homography, np.float64).reshape(3, 3)

    @property
    def lens(self) -> Lens:
        return Lens(self.lens_kappa, self.image_size)

    def pose(self) -> CameraPose:
        return CameraPose(self.nadir_mm, self.camera_height_mm, 0.0)

    def parallax(self) -> Parallax:
        """How far a flat die's top face shows beyond its base: the nadir where the camera's
        pose puts it."""
        nadir = self.to_image(np.array([self.nadir_mm]))[0]
        return Parallax.of_camera((float(nadir[0]), float(nadir[1])), self.camera_height_mm)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Board mm → pixel in the picture as taken."""
        return to_image(self.matrix, self.lens, points_mm)

    def geometry(self) -> TableGeometry:
        if not self._geometry:
            self._geometry.append(load_geometry(self.geometry_file))
        return self._geometry[0]

    def to_json(self) -> dict[str, Any]:
        _, png = cv2.imencode(".png", self.empty)
        return {
            "version": FORMAT_VERSION, "game": self.game, "image_size": list(self.image_size),
            "homography": list(self.homography), "method": self.method,
            "empty_png": base64.b64encode(png.tobytes()).decode("ascii"),
            "empty_source": self.empty_source, "noise": list(self.noise),
            "piece_colours": [c.to_json() for c in self.piece_colours],
            "colours_in_play": list(self.colours_in_play), "players": self.players,
            "warnings": list(self.warnings),
            "geometry_file": self.geometry_file, "lens_kappa": self.lens_kappa,
            "camera_height_mm": self.camera_height_mm, "nadir_mm": list(self.nadir_mm),
            "height_measured": self.height_measured,
            "edge_levels": _levels_json(self.edge_levels),
            "rim_levels": (None if self.rim_levels is None
                           else [_levels_json(v) for v in self.rim_levels]),
        }

    def save(self, path: Path | str) -> None:
        """Write the file whole or not at all (a power cut leaves the old one in place)."""
        target = Path(path)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json()), "utf-8")
        tmp.replace(target)

    @classmethod
    def load(cls, path: Path | str) -> Calibration:
        """Read a calibration file; a missing or wrong key is named with the file."""
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{path}: cannot read calibration: {exc}") from exc
        if not isinstance(data, dict):
            raise CalibrationError(f"{path}: not a calibration file")
        try:
            if data["version"] != FORMAT_VERSION:
                raise CalibrationError(f"{path}: calibration version {data['version']!r} "
                                       f"is not {FORMAT_VERSION}; calibrate again")
            png = np.frombuffer(base64.b64decode(data["empty_png"]), np.uint8)
            empty = cv2.imdecode(png, cv2.IMREAD_COLOR)
            if empty is None:
                raise ValueError("the empty board's picture is broken")
            calib = cls(
                game=str(data["game"]), image_size=tuple(int(v) for v in data["image_size"]),
                homography=tuple(float(v) for v in data["homography"]),
                method=str(data["method"]), empty=empty,
                noise=tuple(float(v) for v in data["noise"][:3]),  # type: ignore[arg-type]
                piece_colours=tuple(PieceColour.from_json(c) for c in data["piece_colours"]),
                colours_in_play=tuple(int(v) for v in data["colours_in_play"]),
                players=int(data["players"]),
                empty_source=str(data["empty_source"]),
                warnings=tuple(str(v) for v in data["warnings"]),
                geometry_file=data["geometry_file"], lens_kappa=float(data["lens_kappa"]),
                camera_height_mm=float(data["camera_height_mm"]),
                nadir_mm=(float(data["nadir_mm"][0]), float(data["nadir_mm"][1])),
                height_measured=bool(data["height_measured"]),
                edge_levels=_levels(data["edge_levels"]),
                rim_levels=(None if data.get("rim_levels") is None  # absent in older files
                            else (_levels(data["rim_levels"][0]),
                                  _levels(data["rim_levels"][1]))),
            )
        except KeyError as exc:
            raise CalibrationError(f"{path}: calibration lacks key {exc.args[0]!r}") from None
        except (TypeError, ValueError, IndexError, binascii.Error) as exc:
            raise CalibrationError(f"{path}: malformed calibration: {exc}") from exc
        if calib.game not in ("backgammon", "maedn") or len(calib.homography) != 9:
            raise CalibrationError(f"{path}: malformed calibration (game or homography)")
        return calib


def _levels_json(levels: EdgeLevels | None) -> list[float] | None:
    return None if levels is None else [levels.present, levels.absent]


def _levels(data: list | None) -> EdgeLevels | None:
    return None if data is None else EdgeLevels(*(float(v) for v in data[:2]))


def die_size_px(to_picture: Callable[[np.ndarray], np.ndarray], width: float,
                height: float) -> float:
    """A die's width in pixels at the middle of a board `width` x `height` mm (`to_picture`:
    a calibration's board mm → picture pixel): what the dice reader is told."""
    centre = np.array([(width / 2, height / 2), (width / 2 + 100, height / 2)])
    near, far = to_picture(centre)
    return DIE_SIZE_MM * float(np.linalg.norm(far - near)) / 100
