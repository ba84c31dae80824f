"""Scene parts the generator decides for one set-up: light rigs, piece prototypes (checker and
pawn profiles, dice), the board's 3D build (thickness, raised frame, bar and tray dividers).

All sizes are millimetres in world coordinates (camera.py); colours go to Blender as linear RGB.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import textures as tx

from vision.geometry import BackgammonGeometry, MaednGeometry

Colour = tx.Colour


def linear(colour: Colour) -> list[float]:
    """sRGB 0..255 → Blender's linear 0..1."""
    return [round((c / 255) ** 2.2, 5) for c in colour]


def kelvin(temp: float) -> list[float]:
    """Approximate RGB of a black body at `temp` kelvin, brightest channel 1 (linear)."""
    t = temp / 100
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    rgb = [max(1.0, min(255.0, v)) for v in (r, g, b)]
    lin = [(v / 255) ** 2.2 for v in rgb]
    top = max(lin)
    return [round(v / top, 4) for v in lin]


# --- light rigs ---------------------------------------------------------------------------------

#: Film exposure (stops) that brings each rig to about mid grey on a light board; the camera's
#: metering then moves at most two stops from it (blender_scene.expose).
BASE_EV = {"warm_ceiling": -2.5, "window_day": -3.7, "pendant_lamp": -1.7, "desk_lamp": -0.7,
           "cold_tube": -4.0, "evening_dim": -0.9}

def lights(rng: np.random.Generator, family: str, board: tuple[float, float]) -> dict:
    """Lights, world (soft environment), target brightness and base exposure of a light
    family (the energies are only relative: the camera's exposure meters the scene)."""
    w, h = board
    centre = np.array([w / 2, -h / 2, 0.0])

    def around(dist: float, height: float) -> list[float]:
        a = rng.uniform(0, 2 * math.pi)
        return [float(centre[0] + dist * math.cos(a)), float(centre[1] + dist * math.sin(a)),
                height]

    def aim(spread: float) -> list[float]:
        return [float(centre[0] + rng.uniform(-spread, spread)),
                float(centre[1] + rng.uniform(-spread, spread)), 0.0]

    def world(top: Colour, bottom: Colour, strength: float) -> dict:
        return {"top": linear(top), "bottom": linear(bottom), "strength": strength}

    rigs: list[dict]
    if family == "warm_ceiling":
        rigs = [{"type": "AREA", "position": around(rng.uniform(0, 500), rng.uniform(1500, 2000)),
                 "target": aim(200), "size": rng.uniform(400, 800), "energy": 250.0,
                 "color": kelvin(rng.uniform(2700, 3300))}]
        env = world((120, 100, 80), (40, 32, 26), rng.uniform(0.4, 0.8))
        brightness = rng.uniform(0.4, 0.5)
    elif family == "window_day":
        rigs = [{"type": "AREA", "position": around(rng.uniform(1200, 1800),
                                                    rng.uniform(500, 1000)),
                 "target": aim(150), "size": rng.uniform(900, 1400),
                 "size_y": rng.uniform(1000, 1500), "energy": 1200.0,
                 "color": kelvin(rng.uniform(5600, 7000))}]
        env = world((200, 215, 235), (80, 80, 85), rng.uniform(0.8, 1.4))
        brightness = rng.uniform(0.42, 0.52)
    elif family == "pendant_lamp":
        rigs = [{"type": "SPOT", "position": around(rng.uniform(100, 400), rng.uniform(700, 1000)),
                 "target": aim(250), "spot_deg": rng.uniform(70, 110),
                 "blend": rng.uniform(0.3, 0.7), "radius": rng.uniform(15, 40), "energy": 150.0,
                 "color": kelvin(rng.uniform(2600, 3100))}]
        env = world((70, 60, 50), (25, 22, 20), rng.uniform(0.2, 0.4))
        brightness = rng.uniform(0.38, 0.46)
    elif family == "desk_lamp":
        rigs = [{"type": "SPOT", "position": around(rng.uniform(450, 750), rng.uniform(300, 500)),
                 "target": aim(120), "spot_deg": rng.uniform(60, 95),
                 "blend": rng.uniform(0.4, 0.8), "radius": rng.uniform(6, 14), "energy": 80.0,
                 "color": kelvin(rng.uniform(3000, 4200))}]
        env = world((60, 60, 64), (20, 20, 22), rng.uniform(0.1, 0.25))
        brightness = rng.uniform(0.36, 0.45)
    elif family == "cold_tube":
        overhead = around(rng.uniform(0, 400), rng.uniform(1600, 2100))
        tint = [v * g for v, g in zip(kelvin(rng.uniform(5500, 6800)), (0.94, 1.0, 0.9),
                                      strict=True)]
        rigs = [{"type": "AREA", "position": [overhead[0] + dx, overhead[1], overhead[2]],
                 "target": [overhead[0] + dx, overhead[1], 0.0], "size": 1200.0, "size_y": 70.0,
                 "energy": 300.0, "color": tint} for dx in (-350.0, 350.0)]
        env = world((190, 200, 200), (90, 95, 95), rng.uniform(0.5, 0.9))
        brightness = rng.uniform(0.44, 0.54)
    elif family == "evening_dim":
        rigs = [{"type": "POINT", "position": around(rng.uniform(900, 1400),
                                                     rng.uniform(900, 1300)),
                 "target": aim(0), "radius": rng.uniform(40, 90), "energy": 300.0,
                 "color": kelvin(rng.uniform(2200, 2700))},
                {"type": "AREA", "position": around(rng.uniform(1500, 2000), 500.0),
                 "target": aim(0), "size": 800.0, "size_y": 450.0, "energy": 40.0,
                 "color": kelvin(9000)}]
        env = world((40, 36, 40), (15, 12, 12), rng.uniform(0.1, 0.2))
        brightness = rng.uniform(0.3, 0.37)
    else:
        raise ValueError(f"unknown light family {family!r}")
    return {"lights": rigs, "world": env, "brightness": float(brightness),
            "exposure": BASE_EV[family]}


# --- pieces ------------------------------------------------------------------------------------

CHECKER_SETS = (((232, 222, 196), (62, 36, 24)), ((236, 236, 232), (22, 22, 24)),
                ((238, 226, 200), (140, 22, 26)), ((240, 240, 236), (24, 70, 40)),
                ((226, 218, 206), (82, 16, 34)), ((220, 204, 170), (22, 32, 70)))
SKIN = ((241, 194, 167), (224, 172, 138), (198, 134, 96), (141, 85, 54), (92, 56, 37),
        (233, 190, 160))


def checker_profile(d: float, t: float, bevel: float, groove: bool) -> list[list[float]]:
    """Half cross-section (radius, z) of a checker centred on z = 0, bottom to top."""
    r, lo, hi = d / 2, -t / 2, t / 2
    prof = [[0.0, lo], [r - bevel, lo]]
    for k in range(1, 4):
        a = math.pi / 2 * k / 4
        prof.append([r - bevel + bevel * math.sin(a), lo + bevel - bevel * math.cos(a)])
    prof += [[r, lo + bevel], [r, hi - bevel]]
    for k in range(1, 4):
        a = math.pi / 2 * k / 4
        prof.append([r - bevel + bevel * math.cos(a), hi - bevel + bevel * math.sin(a)])
    prof.append([r - bevel, hi])
    if groove:
        g = r * 0.72
        prof += [[g + 0.8, hi], [g + 0.5, hi - 0.5], [g - 0.5, hi - 0.5], [g - 0.8, hi]]
    prof.append([0.0, hi])
    return [[round(a, 3), round(b, 3)] for a, b in prof]


def pawn_profile(rng: np.random.Generator, base: float, height: float) -> list[list[float]]:
    """Half cross-section of a Mensch pawn standing on z = 0: a foot, a body narrowing to a
    collar, a neck and a ball head; the body is a cone, a bell or a round-shouldered figure."""
    r = base / 2
    head = min(0.62 * r, 0.2 * height)
    centre = height - head
    neck = 0.3 * r
    join = centre - math.sqrt(head * head - neck * neck)  # where the neck meets the ball
    body_top = join - 2.5
    style = int(rng.integers(3))
    prof = [[0.0, 0.0], [r * 0.97, 0.0], [r, 0.8], [r * 0.96, 1.8]]
    for k in range(1, 9):
        f = k / 8
        z = 1.8 + (body_top - 4.4) * f
        if style == 0:  # cone
            rad = r * (0.92 - 0.6 * f)
        elif style == 1:  # bell: flared skirt
            rad = r * (0.32 + 0.6 * (1 - f) ** 2.2)
        else:  # round-shouldered wooden figure
            rad = r * (0.9 - 0.58 * f ** 1.6)
        prof.append([rad, z])
    collar = r * (0.5 if style != 2 else 0.42)
    prof += [[collar, body_top - 1.6], [collar, body_top - 0.6], [neck, body_top]]
    start = -math.acos(neck / head)
    for k in range(11):
        a = start + (math.pi / 2 - start) * k / 11
        prof.append([head * math.cos(a), centre + head * math.sin(a)])
    prof.append([0.0, height])
    return [[round(a, 3), round(b, 3)] for a, b in prof]


def piece_material(rng: np.random.Generator, colour: Colour) -> dict:
    """Glossy plastic mostly, sometimes satin paint with a fine surface grain."""
    if rng.random() < 0.7:
        return {"color": linear(colour), "roughness": float(rng.uniform(0.12, 0.3)),
                "coat": float(rng.uniform(0.0, 0.6))}
    return {"color": linear(colour), "roughness": float(rng.uniform(0.4, 0.6)), "micro": 0.15,
            "micro_scale": 900.0}


def die_atlas(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Pips of the six faces in a 3×2 atlas (value v at column (v−1) mod 3, row (v−1) div 3),
    and a height map (pips sunk in)."""
    body, pip = [((244, 244, 238), (20, 20, 20)), ((236, 226, 200), (30, 24, 20)),
                 ((190, 24, 28), (246, 246, 246)), ((24, 24, 26), (240, 240, 240))][
        int(rng.choice(4, p=[0.5, 0.2, 0.2, 0.1]))]
    cell = 200
    img = np.zeros((2 * cell, 3 * cell, 3), np.uint8)
    img[:] = body[::-1]
    height = np.full((2 * cell, 3 * cell), 255, np.uint8)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
             5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
             6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
    for value, offsets in spots.items():
        cx0 = ((value - 1) % 3) * cell + cell // 2
        cy0 = ((value - 1) // 3) * cell + cell // 2
        radius = 22 if value != 1 else 30
        for ox, oy in offsets:
            centre = (cx0 + ox * 52, cy0 + oy * 52)
            cv2.circle(img, centre, radius, pip[::-1], -1, cv2.LINE_AA)
            cv2.circle(height, centre, radius, 0, -1, cv2.LINE_AA)
    return img, cv2.GaussianBlur(height, (0, 0), 2)


# --- the board's build ---------------------------------------------------------------------------

#: Per print: (board thickness mm, raised frame height, raised bar height, tray dividers).
BUILDS = {
    "bg_classic": (16, 6, 5, True), "bg_navy": (14, 6, 0, True), "bg_outline": (8, 0, 0, False),
    "bg_tournament": (22, 10, 12, True), "bg_paper": (2, 0, 0, False),
    "bg_inlay": (18, 5, 5, True), "bg_black_gold": (15, 6, 0, True),
    "md_classic": (14, 5, 0, False), "md_wood": (16, 6, 0, False), "md_pastel": (6, 0, 0, False),
    "md_modern": (8, 0, 0, False), "md_paper": (2, 0, 0, False), "md_dark": (12, 4, 0, False),
    "md_vintage": (14, 5, 0, False),
}


def raised_parts(print_family: str, geo: BackgammonGeometry | MaednGeometry) -> list[dict]:
    """Raised wooden (or leather) strips: the frame, a raised bar, the tray dividers."""
    _, frame_h, bar_h, dividers = BUILDS[print_family]
    if frame_h <= 0 or geo.frame <= 0:
        return []
    w, h, f = geo.width, geo.height, geo.frame
    parts = [(0, 0, w, f), (0, h - f, w, h), (0, f, f, h - f), (w - f, f, w, h - f)]
    parts = [{"rect": list(r), "height": float(frame_h)} for r in parts]
    if isinstance(geo, BackgammonGeometry):
        if bar_h and geo.bar_rect is not None:
            parts.append({"rect": list(geo.bar_rect), "height": float(bar_h)})
        if dividers:
            rects = geo.tray_rects()
            for side in geo.tray_sides:
                x0, _, x1, top_y1 = rects[f"{side} top"]
                bottom_y0 = rects[f"{side} bottom"][1]
                strip = (x0 - geo.tray_gap, f, x0, h - f) if side == "right" else \
                    (x1, f, x1 + geo.tray_gap, h - f)
                parts.append({"rect": list(strip), "height": float(frame_h)})
                parts.append({"rect": [x0, top_y1, x1, bottom_y0], "height": float(frame_h)})
    return parts
