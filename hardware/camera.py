"""Camera sources: a camera by OpenCV index, the Pi camera through Picamera2, or image files.

Every source has `read() -> numpy BGR image | None` and `close()`; `open_camera` picks one by
name (`controller.config` camera.source) and raises `CameraError` saying why none answers.
`probe_camera` is what the self-test asks: does a camera answer, and with which frame size.
"""

from __future__ import annotations

import glob
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)

SOURCES = ("opencv", "picamera2", "files")


class CameraError(RuntimeError):
    """No camera answers; the message says which source and why."""


class CameraSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


class OpenCvCamera:
    """A USB/V4L2 camera by index (or anything cv2.VideoCapture opens, such as a video file)."""

    def __init__(self, device: int | str = 0, width: int = 1280, height: int = 720) -> None:
        self._cv2 = cv2
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"opencv: no camera answers at {device!r}")
        if isinstance(device, int):
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def read(self) -> np.ndarray | None:
        ok, image = self._cap.read()
        return image if ok else None

    def close(self) -> None:
        self._cap.release()


class Picamera2Camera:
    """The Raspberry Pi camera module through Picamera2 (only on a Pi with libcamera)."""

    def __init__(self, width: int = 1280, height: int = 720) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError("picamera2: the picamera2 package is not installed") from exc
        try:
            self._cam = Picamera2()
            config = self._cam.create_video_configuration(
                main={"size": (width, height), "format": "BGR888"}
            )
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # libcamera raises many types when no camera is connected
            raise CameraError(f"picamera2: no camera answers ({exc})") from exc

    def read(self) -> np.ndarray | None:
        return self._cam.capture_array("main")

    def close(self) -> None:
        self._cam.stop()
        self._cam.close()


class ImageFiles:
    """Still images (a file, a folder or a glob pattern), read in name order and repeated."""

    def __init__(self, pattern: str | Path) -> None:
        self._cv2 = cv2
        path = Path(pattern)
        if path.is_dir():
            names = sorted(str(p) for p in path.iterdir() if p.suffix.lower() in _IMAGE_SUFFIXES)
        else:
            names = sorted(glob.glob(str(pattern)))
        if not names:
            raise CameraError(f"files: no image files match {str(pattern)!r}")
        self.names = names
        self._next = 0

    def read(self) -> np.ndarray | None:
        name = self.names[self._next % len(self.names)]
        self._next += 1
        image = self._cv2.imread(name, self._cv2.IMREAD_COLOR)
        if image is None:
            log.warning("cannot read image %s", name)
        return image

    def close(self) -> None:
        self._next = 0


_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def open_camera(
    source: str,
    *,
    device: int | str = 0,
    width: int = 1280,
    height: int = 720,
    path: str | Path | None = None,
) -> CameraSource:
    """Open the named source ("opencv", "picamera2", "files" with `path`)."""
    if source == "opencv":
        return OpenCvCamera(device, width, height)
    if source == "picamera2":
        return Picamera2Camera(width, height)
    if source == "files":
        if path is None:
            raise CameraError("files: no path given")
        return ImageFiles(path)
    raise CameraError(f"unknown camera source {source!r}; known: {', '.join(SOURCES)}")


@dataclass(frozen=True, slots=True)
class CameraProbe:
    """Whether a camera answered, and the frame it gave (size) or why not."""

    source: str
    ok: bool
    detail: str


def probe_camera(source: str, **kwargs: Any) -> CameraProbe:
    """Open the camera, read one frame, close it; never raises."""
    try:
        camera = open_camera(source, **kwargs)
    except CameraError as exc:
        return CameraProbe(source, False, str(exc))
    try:
        image = camera.read()
    except Exception as exc:  # a driver failing mid-read: report, do not crash the self-test
        return CameraProbe(source, False, f"{source}: read failed ({exc})")
    finally:
        camera.close()
    if image is None or image.size == 0:
        return CameraProbe(source, False, f"{source}: opened but delivered no frame")
    height, width = image.shape[:2]
    return CameraProbe(source, True, f"{source}: {width}x{height} frame")
