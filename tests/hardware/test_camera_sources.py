"""Camera sources with real OpenCV: image files, a video file through VideoCapture, a probe."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import CameraError, ImageFiles, OpenCvCamera, open_camera, probe_camera

DICE_PHOTOS = Path(__file__).resolve().parents[3] / "shared/data/dice-topdown/images"


def _write_images(folder: Path) -> list[np.ndarray]:
    images = []
    for index in range(3):
        image = np.full((60, 80, 3), 40 * (index + 1), np.uint8)
        cv2.imwrite(str(folder / f"frame{index}.png"), image)
        images.append(image)
    return images


def test_image_files_repeat_in_name_order(tmp_path: Path) -> None:
    images = _write_images(tmp_path)
    camera = open_camera("files", path=tmp_path)
    got = [camera.read() for _ in range(4)]
    camera.close()
    assert all(np.array_equal(a, b) for a, b in zip(got, [*images, images[0]], strict=True))


def test_image_files_glob_and_missing_files(tmp_path: Path) -> None:
    _write_images(tmp_path)
    assert len(ImageFiles(tmp_path / "frame[01].png").names) == 2
    with pytest.raises(CameraError, match="no image files match"):
        ImageFiles(tmp_path / "*.jpg")


def test_opencv_source_reads_a_video_file_like_a_camera(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for value in (30, 200):
        writer.write(np.full((48, 64, 3), value, np.uint8))
    writer.release()
    camera = OpenCvCamera(str(path))
    first, second, end = camera.read(), camera.read(), camera.read()
    camera.close()
    assert first.shape == (48, 64, 3) and abs(int(first.mean()) - 30) < 8
    assert abs(int(second.mean()) - 200) < 8
    assert end is None


def test_probe_says_when_no_camera_answers(tmp_path: Path) -> None:
    probe = probe_camera("opencv", device=str(tmp_path / "no-such-camera.avi"))
    assert not probe.ok and "no camera answers" in probe.detail
    assert "unknown camera source" in probe_camera("webcam").detail


def test_probe_of_real_dice_photos() -> None:
    if not DICE_PHOTOS.is_dir():
        pytest.skip(f"shared dice photos not found at {DICE_PHOTOS}")
    probe = probe_camera("files", path=DICE_PHOTOS)
    assert probe.ok, probe.detail


def test_picamera2_missing_is_reported_not_raised() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        probe = probe_camera("picamera2")
        assert not probe.ok and "picamera2" in probe.detail
    else:
        pytest.skip("picamera2 is installed here: this test covers machines without it")
