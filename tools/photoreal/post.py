"""What a cheap camera does to the rendered picture: lens distortion, partial white balance,
vignetting, softness, a little shake, sensor noise, sharpening and JPEG.

Parameters are drawn per frame by `draw_params` and recorded in the labels; `finish` applies
them. Distortion uses camera.py's model, so the labels' pixels (Camera.to_pixels) land exactly
where the distorted picture shows the point.
"""

from __future__ import annotations

import cv2
import numpy as np
from camera import Camera


def draw_params(rng: np.random.Generator, moving: bool) -> dict:
    """One frame's camera artefacts; `moving` frames (a hand in view) blur a little more."""
    shake = rng.random() < (0.5 if moving else 0.2)
    return {
        "white_balance": round(float(rng.uniform(0.2, 0.8)), 3),
        "vignette": round(float(rng.uniform(0.05, 0.3)), 3),
        "soft_px": round(float(rng.uniform(0.45, 0.95)), 3),
        "shake_px": round(float(rng.uniform(1.5, 5.0)), 2) if shake else 0.0,
        "shake_deg": round(float(rng.uniform(0, 180)), 1),
        "noise": round(float(rng.uniform(1.0, 3.5)), 2),
        "sharpen": round(float(rng.uniform(0.2, 0.8)), 2) if rng.random() < 0.5 else 0.0,
        "jpeg_quality": int(rng.integers(75, 93)),
    }


def undistort_maps(camera: Camera, rendered: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """For each output pixel, where the rendered picture shows it. The render is undistorted,
    covers more than the output (Camera.render_size) and may be smaller by `render_scale`:
    its width is render_size's width × scale, its focal length focal_px × the same scale."""
    w, h = camera.size
    scale = rendered[0] / camera.render_size()[0]
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    x, y = (u - (w - 1) / 2) / camera.focal_px, (v - (h - 1) / 2) / camera.focal_px
    grow = 1 + camera.k1 * (x * x + y * y)
    f = camera.focal_px * scale
    map_x = ((rendered[0] - 1) / 2 + x * grow * f).astype(np.float32)
    map_y = ((rendered[1] - 1) / 2 + y * grow * f).astype(np.float32)
    return map_x, map_y


def finish(rendered: np.ndarray, camera: Camera, params: dict,
           rng: np.random.Generator) -> np.ndarray:
    """The rendered picture (BGR uint8, Camera.render_size) → the camera's output picture."""
    h_r, w_r = rendered.shape[:2]
    map_x, map_y = undistort_maps(camera, (w_r, h_r))
    img = cv2.remap(rendered, map_x, map_y, cv2.INTER_CUBIC,
                    borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    means = img.reshape(-1, 3).mean(axis=0) + 1e-3
    gains = (means.mean() / means) ** params["white_balance"]
    img *= gains
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (1 - params["vignette"] * r2)[..., None]
    img = cv2.GaussianBlur(img, (0, 0), params["soft_px"])
    if params["shake_px"] > 0:
        img = cv2.filter2D(img, -1, _line_kernel(params["shake_px"], params["shake_deg"]))
    level = np.clip(img, 0, 255)
    shot = rng.normal(0, 1, img.shape).astype(np.float32) * np.sqrt(level / 255) * \
        params["noise"] * 2.0
    read = rng.normal(0, 1, img.shape).astype(np.float32) * params["noise"]
    chroma = cv2.GaussianBlur(rng.normal(0, 1, img.shape).astype(np.float32), (0, 0), 1.2) * \
        params["noise"] * 1.5
    noise = cv2.GaussianBlur(shot + read, (0, 0), 0.6) + chroma
    img = img + noise
    if params["sharpen"] > 0:
        img = cv2.addWeighted(img, 1 + params["sharpen"], cv2.GaussianBlur(img, (0, 0), 1.4),
                              -params["sharpen"], 0)
    return np.clip(img, 0, 255).astype(np.uint8)


def encode_jpeg(img: np.ndarray, quality: int) -> bytes:
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError("JPEG encoding failed")
    return data.tobytes()


def _line_kernel(length: float, degrees: float) -> np.ndarray:
    size = int(np.ceil(length)) * 2 + 1
    k = np.zeros((size, size), np.float32)
    c = size // 2
    dx = np.cos(np.radians(degrees)) * length / 2
    dy = np.sin(np.radians(degrees)) * length / 2
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1,
             cv2.LINE_AA)
    return k / k.sum()
