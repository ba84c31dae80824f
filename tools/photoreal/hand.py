"""A player's arm and hand reaching over the board, as metaball capsules and ellipsoids for
blender_scene.py (world millimetres, camera.py's axes).

The arm comes in from one side of the table (mostly the near side, where White sits), the wrist
hovers 70–150 mm above some point of the board, the fingers either reach or pinch as if picking
up a piece. Only the look matters: the label keeps the true board under the hand.
"""

from __future__ import annotations

import math

import numpy as np
import scene_parts as parts

SLEEVES = ((30, 44, 84), (120, 120, 124), (150, 30, 36), (40, 90, 60), (230, 230, 226),
           (26, 26, 28), (180, 140, 90))


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _pt(v: np.ndarray) -> list[float]:
    return [round(float(c), 2) for c in v]


def hand(rng: np.random.Generator, board: tuple[float, float]) -> dict:
    """A random arm and hand over a `board` (width, height mm)."""
    w, h = board
    side = rng.choice(["near", "near", "left", "right", "far"])
    reach = {"near": (0.0, 1.0), "far": (0.0, -1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}
    a = _unit(np.array([*reach[str(side)], 0.0]) + np.array([rng.uniform(-0.35, 0.35),
                                                            rng.uniform(-0.35, 0.35), 0.0]))
    right = np.array([a[1], -a[0], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    wrist = np.array([rng.uniform(0.15, 0.85) * w, -rng.uniform(0.15, 0.85) * h,
                      rng.uniform(70, 150)])
    rise = math.radians(rng.uniform(12, 30))
    elbow = wrist - a * 260 * math.cos(rise) + up * 260 * math.sin(rise)
    shoulder = elbow - a * 260 + up * 180
    mid = (elbow + wrist) / 2
    pitch = math.radians(rng.uniform(10, 30))  # the hand tips down towards the fingers
    fwd = _unit(a * math.cos(pitch) - up * math.sin(pitch))
    palm_up = np.cross(right, fwd)
    palm = wrist + fwd * 42
    elements = [
        {"type": "capsule", "a": _pt(shoulder), "b": _pt(elbow), "radius": 42.0},
        {"type": "capsule", "a": _pt(elbow), "b": _pt(mid), "radius": 33.0},
        {"type": "capsule", "a": _pt(mid), "b": _pt(wrist), "radius": 25.0},
        {"type": "ellipsoid", "centre": _pt(palm), "size": [46.0, 40.0, 15.0],
         "rotation": [[round(float(v), 5) for v in row]
                      for row in np.column_stack([fwd, right, palm_up])]},
    ]
    pinch = rng.random() < 0.5
    thumb_side = -1.0 if rng.random() < 0.8 else 1.0  # mostly right hands
    for k, (across, length, radius) in enumerate(((-24, 46, 8.5), (-8, 50, 8.5), (8, 47, 8.0),
                                                 (23, 38, 7.0))):
        base = palm + fwd * 36 + right * across * -thumb_side
        curl = math.radians(rng.uniform(45, 80) if pinch else rng.uniform(10, 35))
        first = _unit(fwd * math.cos(curl * 0.5) - palm_up * math.sin(curl * 0.5))
        second = _unit(fwd * math.cos(curl * 1.4) - palm_up * math.sin(curl * 1.4))
        knuckle = base + first * length * 0.55
        tip = knuckle + second * length * 0.45
        # Each finger is its own metaball group, so that neighbours do not melt together.
        elements.append({"type": "capsule", "a": _pt(base - fwd * 6), "b": _pt(knuckle),
                         "radius": radius, "group": f"finger{k}"})
        elements.append({"type": "capsule", "a": _pt(knuckle), "b": _pt(tip),
                         "radius": radius * 0.92, "group": f"finger{k}"})
        if k == 0 and pinch:
            pinch_tip = tip
    thumb_base = palm - fwd * 10 + right * 30 * thumb_side - palm_up * 4
    thumb_dir = _unit(fwd * 0.8 + right * 0.35 * thumb_side - palm_up * 0.5)
    thumb_mid = thumb_base + thumb_dir * 30
    thumb_tip = pinch_tip + right * 10 * thumb_side if pinch else thumb_mid + \
        _unit(fwd - palm_up * 0.3) * 24
    elements += [{"type": "capsule", "a": _pt(thumb_base), "b": _pt(thumb_mid), "radius": 11.0},
                 {"type": "capsule", "a": _pt(thumb_mid), "b": _pt(thumb_tip), "radius": 9.5}]
    skin = parts.SKIN[int(rng.integers(len(parts.SKIN)))]
    spec = {"elements": elements,
            "skin": {"color": parts.linear(skin), "roughness": 0.45, "specular": 0.35,
                     "micro": 0.1, "micro_scale": 1500.0},
            "motion_mm": _pt(rng.normal(0, 1, 3) * np.array([4.0, 4.0, 2.0]))}
    if rng.random() < 0.8:
        cuff = elbow + (wrist - elbow) * rng.uniform(0.3, 0.75)
        colour = SLEEVES[int(rng.integers(len(SLEEVES)))]
        past = _unit(elbow - shoulder) * 25  # the two tubes overlap at the elbow
        spec["sleeve"] = {"tubes": [{"a": _pt(shoulder), "b": _pt(elbow + past), "r0": 54.0,
                                     "r1": 46.0},
                                    {"a": _pt(elbow - _unit(cuff - elbow) * 25), "b": _pt(cuff),
                                     "r0": 46.0, "r1": 38.0}],
                          "material": {"color": parts.linear(colour), "roughness": 0.9,
                                       "sheen": 0.6, "micro": 0.4, "micro_scale": 600.0}}
    return spec
