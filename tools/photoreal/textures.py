"""Procedural surface images for the photoreal scenes: table tops, wood, paper and cloth.

Everything is drawn from noise by this code (no third-party textures). Images are BGR uint8 as
OpenCV writes them; a texture's scale in millimetres per pixel is chosen by the caller.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

Colour = tuple[int, int, int]  # RGB 0..255


def noise(rng: np.random.Generator, shape: tuple[int, int], cells: float,
          octaves: int = 4) -> np.ndarray:
    """Smooth fractal noise in 0..1: `cells` features across the larger side, halving in size
    per octave."""
    h, w = shape
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        n = max(2, int(cells * 2 ** o))
        gh, gw = max(2, round(n * h / max(h, w))), max(2, round(n * w / max(h, w)))
        grid = rng.random((gh + 2, gw + 2)).astype(np.float32)
        big = cv2.resize(grid, (w + 2 * w // gw, h + 2 * h // gh), interpolation=cv2.INTER_CUBIC)
        out += amp * big[h // gh: h // gh + h, w // gw: w // gw + w]
        total += amp
        amp *= 0.5
    out /= total
    lo, hi = np.percentile(out, (1, 99))
    return np.clip((out - lo) / max(hi - lo, 1e-6), 0, 1)


def streaks(rng: np.random.Generator, shape: tuple[int, int], stretch: float,
            cells: float) -> np.ndarray:
    """Noise stretched along x (fibres, grain, brush strokes), 0..1."""
    h, w = shape
    small = noise(rng, (h, max(8, int(w / stretch))), cells, octaves=3)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def paint(mask: np.ndarray, a: Colour, b: Colour) -> np.ndarray:
    """Blend RGB colours a → b by `mask` (0..1) into a BGR float image."""
    ca = np.array(a[::-1], np.float32)
    cb = np.array(b[::-1], np.float32)
    return ca + (cb - ca) * mask[..., None]


def to_u8(img: np.ndarray) -> np.ndarray:
    return np.clip(img, 0, 255).astype(np.uint8)


def jitter(rng: np.random.Generator, colour: Colour, amount: float) -> Colour:
    """A colour nudged in brightness and tint, as two copies of one product differ."""
    scale = rng.uniform(1 - amount, 1 + amount)
    return tuple(int(np.clip(c * scale + rng.uniform(-amount, amount) * 60, 0, 255))
                 for c in colour)


def wood(rng: np.random.Generator, shape: tuple[int, int], light: Colour, dark: Colour,
         plank_px: int = 0, ring_px: float = 14.0) -> np.ndarray:
    """Wood grain along x: growth rings bent by noise, fine pores, and optional planks with
    dark seams and a brightness of their own."""
    h, w = shape
    out = np.zeros((h, w, 3), np.float32)
    rows = [(0, h)] if plank_px <= 0 else \
        [(y, min(h, y + plank_px)) for y in range(0, h, plank_px)]
    for y0, y1 in rows:
        ph = y1 - y0
        # Rings run along x and wander slowly across it; knots bend them locally.
        bend = streaks(rng, (ph, w), 12, 3) * rng.uniform(1.0, 3.0) + \
            noise(rng, (ph, w), 2.0, 2) * rng.uniform(0.5, 1.5)
        spacing = 0.4 + 1.2 * rng.random(ph // 8 + 2).astype(np.float32)  # irregular rings
        spacing = cv2.resize(spacing[None, :], (ph, 1), interpolation=cv2.INTER_LINEAR)[0]
        yy = (np.cumsum(spacing) / ring_px)[:, None] + rng.uniform(0, 100)
        rings = 0.5 + 0.5 * np.sin(2 * math.pi * (yy + bend))
        rings = rings ** rng.uniform(2.0, 4.0)
        pores = streaks(rng, (ph, w), 60, 40)
        figure = noise(rng, (ph, w), 4, 3)  # broad light and dark patches across the grain
        mask = np.clip(0.35 * rings + 0.3 * pores + 0.45 * figure, 0, 1)
        plank = paint(mask, light, dark) * rng.uniform(0.85, 1.1)
        if plank_px > 0:
            plank[:2] *= 0.45
            xs = int(rng.integers(w // 4, w))
            plank[:, max(0, xs - 1): xs + 1] *= 0.5  # butt joint
        out[y0:y1] = plank
    return to_u8(out)


def cloth(rng: np.random.Generator, base: np.ndarray, thread_px: float = 3.0,
          wrinkles: float = 0.12) -> np.ndarray:
    """A woven look over `base` (BGR float or uint8): a thread grid, slubs and soft folds."""
    h, w = base.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    weave = 0.5 + 0.25 * np.sin(2 * math.pi * xx / thread_px) + \
        0.25 * np.sin(2 * math.pi * yy / thread_px)
    slub = streaks(rng, (h, w), 40, 30) - 0.5
    folds = noise(rng, (h, w), 2.5, 3) - 0.5
    shade = 1 + 0.10 * (weave - 0.5) + 0.06 * slub + wrinkles * folds
    return to_u8(base.astype(np.float32) * shade[..., None])


def table_texture(rng: np.random.Generator, family: str, px: int) -> tuple[np.ndarray, dict]:
    """A square table-top image and how Blender should shade it (roughness, bump, sheen)."""
    shape = (px, px)
    if family == "oak":
        light = jitter(rng, (196, 160, 112), 0.08)
        img = wood(rng, shape, light, jitter(rng, (135, 96, 58), 0.08),
                   plank_px=int(px * rng.uniform(0.07, 0.12)), ring_px=rng.uniform(10, 22))
        return img, {"roughness": rng.uniform(0.4, 0.65), "bump": 0.25}
    if family == "walnut":
        img = wood(rng, shape, jitter(rng, (120, 78, 50), 0.1), jitter(rng, (52, 32, 22), 0.1),
                   plank_px=int(px * rng.uniform(0.1, 0.2)) if rng.random() < 0.6 else 0,
                   ring_px=rng.uniform(8, 16))
        return img, {"roughness": rng.uniform(0.35, 0.6), "bump": 0.2}
    if family == "felt":
        colour = [(38, 90, 52), (120, 30, 36), (40, 52, 95), (70, 70, 72)][int(rng.integers(4))]
        base = paint(noise(rng, shape, 6, 4), jitter(rng, colour, 0.1), jitter(rng, colour, 0.2))
        img = cloth(rng, base, thread_px=2.2, wrinkles=0.05)
        return img, {"roughness": 1.0, "bump": 0.4, "sheen": 0.8}
    if family == "gingham":
        return _gingham(rng, shape), {"roughness": 0.9, "bump": 0.35, "sheen": 0.4}
    if family == "linen":
        colour = jitter(rng, [(214, 200, 176), (200, 196, 186), (182, 170, 150)][
            int(rng.integers(3))], 0.05)
        base = paint(noise(rng, shape, 5, 4), colour, jitter(rng, colour, 0.08))
        return cloth(rng, base, thread_px=2.6, wrinkles=0.22), \
            {"roughness": 0.95, "bump": 0.5, "sheen": 0.5}
    if family == "glass":
        return _floor(rng, shape), {"roughness": 0.6, "bump": 0.2, "glass": True}
    if family == "stone":
        return _stone(rng, shape), {"roughness": rng.uniform(0.15, 0.5), "bump": 0.15}
    if family == "floral_cloth":
        return _floral(rng, shape), {"roughness": 0.9, "bump": 0.35, "sheen": 0.4}
    if family == "painted_wood":
        return _painted(rng, shape), {"roughness": rng.uniform(0.35, 0.6), "bump": 0.3}
    raise ValueError(f"unknown table family {family!r}")


def _gingham(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    colour = [(170, 30, 40), (30, 60, 140), (40, 110, 60), (200, 120, 30)][int(rng.integers(4))]
    check = int(rng.integers(14, 30))
    yy, xx = np.mgrid[0:h, 0:w]
    band_x = ((xx // check) % 2).astype(np.float32)
    band_y = ((yy // check) % 2).astype(np.float32)
    cover = (band_x + band_y) / 2
    base = paint(cover, (240, 236, 228), jitter(rng, colour, 0.1))
    base = cv2.GaussianBlur(base, (0, 0), 0.8)
    return cloth(rng, base, thread_px=2.4, wrinkles=0.2)


def _floor(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """What is seen through a glass table top: a rug or floor boards far below."""
    if rng.random() < 0.5:
        colour = jitter(rng, [(90, 70, 60), (60, 66, 80), (120, 110, 96)][int(rng.integers(3))],
                        0.1)
        base = paint(noise(rng, shape, 8, 5), colour, jitter(rng, colour, 0.35))
        return cloth(rng, base, thread_px=4.0, wrinkles=0.1)
    return wood(rng, shape, jitter(rng, (150, 112, 78), 0.1), jitter(rng, (80, 54, 36), 0.1),
                plank_px=shape[0] // 6)


def _stone(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    kind = int(rng.integers(3))
    if kind == 0:  # marble: light with dark veins
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        turb = noise(rng, shape, 3, 6) * rng.uniform(6, 12)
        veins = np.abs(np.sin((xx * 0.7 + yy * 0.4) / w * 6 * math.pi + turb))
        mask = np.clip(1 - veins ** 0.15, 0, 1) * 0.8 + noise(rng, shape, 6, 4) * 0.2
        return to_u8(paint(mask, jitter(rng, (232, 230, 226), 0.03),
                           jitter(rng, (110, 112, 118), 0.1)))
    if kind == 1:  # slate: dark, layered
        mask = 0.6 * streaks(rng, shape, 8, 6) + 0.4 * noise(rng, shape, 10, 5)
        return to_u8(paint(mask, (48, 52, 58), jitter(rng, (92, 96, 104), 0.1)))
    # granite: speckles of three minerals
    base = paint(noise(rng, shape, 12, 3), (150, 144, 140), (120, 112, 110))
    for colour, share in (((30, 30, 34), 0.12), ((225, 220, 215), 0.1), ((160, 110, 100), 0.06)):
        speck = noise(rng, shape, 180, 2) > 1 - share
        base[speck] = np.array(colour[::-1], np.float32)
    return to_u8(cv2.GaussianBlur(base, (0, 0), 0.7))


def _floral(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    ground = jitter(rng, [(238, 232, 214), (200, 220, 230), (40, 50, 80)][int(rng.integers(3))],
                    0.05)
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(ground[::-1], np.float32)
    petal = jitter(rng, [(200, 60, 80), (230, 160, 40), (120, 80, 170)][int(rng.integers(3))],
                   0.1)
    leaf = jitter(rng, (70, 120, 60), 0.15)
    step = int(rng.integers(70, 120))
    for gy in range(-step, h + step, step):
        for gx in range(-step, w + step, step):
            cx = gx + (step // 2 if (gy // step) % 2 else 0) + int(rng.integers(-8, 9))
            cy = gy + int(rng.integers(-8, 9))
            r = int(step * rng.uniform(0.16, 0.24))
            for a in range(0, 360, 60):
                lx = int(cx + 1.6 * r * math.cos(math.radians(a + 30)))
                ly = int(cy + 1.6 * r * math.sin(math.radians(a + 30)))
                if a % 120 == 0:
                    cv2.ellipse(img, (lx, ly), (r, r // 3), a + 30, 0, 360, leaf[::-1], -1,
                                cv2.LINE_AA)
            for a in range(0, 360, 72):
                px = int(cx + r * 0.8 * math.cos(math.radians(a)))
                py = int(cy + r * 0.8 * math.sin(math.radians(a)))
                cv2.circle(img, (px, py), int(r * 0.6), petal[::-1], -1, cv2.LINE_AA)
            cv2.circle(img, (cx, cy), int(r * 0.35), (40, 190, 230), -1, cv2.LINE_AA)
    return cloth(rng, img, thread_px=2.5, wrinkles=0.18)


def _painted(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    colour = jitter(rng, [(236, 234, 228), (196, 214, 206), (210, 200, 180), (170, 190, 210)][
        int(rng.integers(4))], 0.04)
    grain = wood(rng, shape, (200, 170, 130), (120, 90, 60), plank_px=shape[0] // 7)
    brush = streaks(rng, shape, 50, 25)
    paintcoat = paint(brush, colour, jitter(rng, colour, 0.06))
    worn = (streaks(rng, shape, 6, 50) > 0.9).astype(np.float32)  # chips along the grain
    worn = cv2.GaussianBlur(worn, (0, 0), 1.2)[..., None] * 0.8
    seams = grain.astype(np.float32).mean(axis=2, keepdims=True) < 60
    out = paintcoat * (1 - worn) + grain.astype(np.float32) * worn
    out[seams[..., 0]] *= 0.75
    return to_u8(out)
