"""Where every checker, pawn and die stands in 3D, from the reader's own geometry.

Positions come from vision.geometry (lanes, fields, dice area), so the labels and the rendered
pieces cannot disagree with what the reader expects. Each placement is a prototype name and a
4×4 world matrix in millimetres (see camera.py for the axes); the Blender side only copies them.

Backgammon stacks are built as players build them: up to five checkers in a row from the
point's edge, then either shingled (evenly spaced over `stack_length` as `Lane.offsets` says,
each checker resting tilted on the one before) or as a second layer on top of the first row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.geometry import BackgammonGeometry, Lane, MaednGeometry

ROW = 5  # checkers that lie side by side before a stack overlaps or gets a second layer
DIE_MM = 16.0
#: Which face of the die mesh shows each value: +Z 1, −Z 6, +X 2, −X 5, +Y 3, −Y 4.
FACE_TURNS = {1: ("x", 0.0), 6: ("x", 180.0), 2: ("y", -90.0), 5: ("y", 90.0),
              3: ("x", 90.0), 4: ("x", -90.0)}


@dataclass(frozen=True, slots=True)
class Checkers:
    """One set of checkers: real size (a little under the geometry's, so rows do not touch)."""

    diameter: float
    thickness: float


def placement(proto: str, rotation: np.ndarray, centre: np.ndarray) -> dict:
    m = np.eye(4)
    m[:3, :3] = rotation
    m[:3, 3] = centre
    return {"proto": proto, "matrix": [[round(float(v), 5) for v in row] for row in m]}


def spin_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _turn(axis: str, degrees: float) -> np.ndarray:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])


def _frame(normal: np.ndarray, along: np.ndarray) -> np.ndarray:
    """Rotation whose local Z is `normal` and local X lies along `along`."""
    e3 = normal / np.linalg.norm(normal)
    e1 = along - e3 * float(along @ e3)
    e1 /= np.linalg.norm(e1)
    return np.column_stack([e1, np.cross(e3, e1), e3])


def _lane_world(lane: Lane, along: float, across: float, z: float) -> np.ndarray:
    x, y = lane.at(along, across)
    return np.array([x, -y, z])


def shingle_tilts(starts: list[float], d: float, t: float) -> list[float]:
    """Tilt of each checker of a shingled row (radians): the first lies flat, each later one
    rests on the one before with its far rim on the board. A 2D side view: checker k is a
    d × t rectangle whose near bottom corner lies at along = starts[k]."""
    tilts = [0.0]
    for k in range(1, len(starts)):
        prev = _profile(starts[k - 1], tilts[-1], d, t)
        lo, hi = 0.0, math.radians(80)
        if starts[k] - starts[k - 1] >= d:
            tilts.append(0.0)
            continue
        for _ in range(40):
            mid = (lo + hi) / 2
            if _clears(prev, starts[k], mid, d):
                hi = mid
            else:
                lo = mid
        tilts.append(hi)
    return tilts


def _profile(start: float, tilt: float, d: float, t: float) -> list[tuple[float, float]]:
    """Corners (along, height) of a checker lying with its far rim on the board."""
    u = np.array([math.cos(tilt), -math.sin(tilt)])
    n = np.array([math.sin(tilt), math.cos(tilt)])
    near = np.array([start, d * math.sin(tilt)])
    return [tuple(p) for p in (near, near + d * u, near + d * u + t * n, near + t * n)]


def _clears(prev: list[tuple[float, float]], start: float, tilt: float, d: float) -> bool:
    far = start + d * math.cos(tilt)
    slope = math.tan(tilt)
    return all(not start <= x <= far or z <= (far - x) * slope - 0.05 for x, z in prev)


def lane_checkers(lane: Lane, count: int, proto: str, pieces: Checkers, stacking: str,
                  base_z: float, rng: np.random.Generator) -> list[dict]:
    """Checkers lying flat in a lane (a point or a bar half), in `stacking` style."""
    d, t = pieces.diameter, pieces.thickness
    direction = np.array([lane.direction[0], -lane.direction[1], 0.0])
    out = []
    if stacking == "layers" or count <= ROW:
        for k in range(count):
            layer, slot = divmod(k, ROW)
            along = slot * lane.pitch + lane.pitch / 2 + rng.uniform(-0.6, 0.6) \
                + (rng.uniform(-1.5, 1.5) if layer else 0.0)
            across = rng.uniform(-1.8, 1.8)
            centre = _lane_world(lane, along, across, base_z + t / 2 + layer * t)
            out.append(placement(proto, spin_z(rng.uniform(0, 2 * math.pi)), centre))
        return out
    starts = lane.offsets(count)
    starts = [s + (lane.pitch - d) / 2 for s in starts]
    tilts = shingle_tilts(starts, d, t)
    for start, tilt in zip(starts, tilts, strict=True):
        u = np.array([math.cos(tilt), -math.sin(tilt)])
        n = np.array([math.sin(tilt), math.cos(tilt)])
        near = np.array([start, d * math.sin(tilt)])
        along, height = near + d / 2 * u + t / 2 * n
        centre = _lane_world(lane, float(along), rng.uniform(-1.0, 1.0), base_z + float(height))
        normal = direction * n[0] + np.array([0.0, 0.0, 1.0]) * n[1]
        rotation = _frame(normal, direction) @ spin_z(rng.uniform(0, 2 * math.pi))
        out.append(placement(proto, rotation, centre))
    return out


def tray_checkers(lane: Lane, count: int, proto: str, pieces: Checkers,
                  rng: np.random.Generator) -> list[dict]:
    """Borne-off checkers standing on their edge side by side, `checker_thickness` apart; the
    last one of a short row sometimes leans back on its neighbour."""
    d, t = pieces.diameter, pieces.thickness
    direction = np.array([lane.direction[0], -lane.direction[1], 0.0])
    up = np.array([0.0, 0.0, 1.0])
    out = []
    for k in range(count):
        lean = 0.0
        along = k * lane.pitch + lane.pitch / 2
        if k == count - 1 and k > 0 and rng.random() < 0.5:
            lean = math.radians(rng.uniform(5, 18))
            face = (k - 1) * lane.pitch + lane.pitch / 2 + t / 2  # neighbour's far face
            bottom = face + d * math.sin(lean)
            along = bottom - d / 2 * math.sin(lean) + t / 2 * math.cos(lean)
        height = d / 2 * math.cos(lean) + t / 2 * math.sin(lean)
        centre = _lane_world(lane, along, rng.uniform(-1.5, 1.5), height)
        normal = direction * math.cos(lean) + up * math.sin(lean)
        rotation = _frame(normal, up) @ spin_z(rng.uniform(0, 2 * math.pi))
        out.append(placement(proto, rotation, centre))
    return out


def beside_board(geo: BackgammonGeometry, colour: str, count: int, proto: str,
                 pieces: Checkers, table_z: float, rng: np.random.Generator) -> list[dict]:
    """Borne-off checkers of a board without trays: piles of up to five on the table, right of
    the board (White's near the bottom, Black's near the top)."""
    d, t = pieces.diameter, pieces.thickness
    out = []
    for k in range(count):
        column, level = divmod(k, ROW)
        x = geo.width + 12 + d / 2 + column * (d + 3) + rng.uniform(-1, 1)
        y = geo.height - d / 2 - 10 if colour == "white" else d / 2 + 10
        centre = np.array([x + rng.uniform(-1.2, 1.2), -(y + rng.uniform(-1.2, 1.2)),
                           table_z + t / 2 + level * t])
        out.append(placement(proto, spin_z(rng.uniform(0, 2 * math.pi)), centre))
    return out


def backgammon_pieces(geo: BackgammonGeometry, board: dict, stacking: str, pieces: Checkers,
                      bar_z: float, table_z: float, rng: np.random.Generator) -> list[dict]:
    """Every checker of a backgammon `board` (table-log shape)."""
    lanes = {lane.name: lane for lane in geo.lanes()}
    out: list[dict] = []
    for i, n in enumerate(board["points"]):
        if n:
            proto = "checker_white" if n > 0 else "checker_black"
            out += lane_checkers(lanes[f"p{i + 1}"], abs(n), proto, pieces, stacking, 0.0, rng)
    for colour in ("white", "black"):
        proto = f"checker_{colour}"
        if board["bar"][colour]:
            out += lane_checkers(lanes[f"bar_{colour}"], board["bar"][colour], proto, pieces,
                                 stacking, bar_z, rng)
        count = board["off"][colour]
        if count and f"off_{colour}" in lanes:
            out += tray_checkers(lanes[f"off_{colour}"], count, proto, pieces, rng)
        elif count:
            out += beside_board(geo, colour, count, proto, pieces, table_z, rng)
    return out


def maedn_pieces(geo: MaednGeometry, board: dict, players: int,
                 rng: np.random.Generator) -> list[dict]:
    """Every pawn of a Mensch `board`, standing on its field's centre."""
    out = []
    for seat, colour in enumerate(geo.seat_colours(players)):
        houses = iter(geo.house(colour))
        for pos in board["pieces"][seat]:
            if pos == -1:
                x, y = next(houses)
            elif pos < 40:
                x, y = geo.track()[(10 * colour + pos) % 40]
            else:
                x, y = geo.goal(colour)[pos - 40]
            centre = np.array([x + rng.uniform(-1.5, 1.5), -(y + rng.uniform(-1.5, 1.5)), 0.0])
            out.append(placement(f"pawn_{colour}", spin_z(rng.uniform(0, 2 * math.pi)), centre))
    return out


def dice(area: tuple[float, float, float, float], count: int,
         rng: np.random.Generator) -> list[tuple[int, dict, np.ndarray]]:
    """`count` dice lying flat in `area` (board mm): (value, placement, 8 world corners)."""
    x0, y0, x1, y1 = area
    half = DIE_MM / 2
    spots: list[tuple[float, float]] = []
    while len(spots) < count:
        p = (rng.uniform(x0 + half + 2, x1 - half - 2), rng.uniform(y0 + half + 2, y1 - half - 2))
        if all(math.dist(p, q) > DIE_MM * 1.7 for q in spots):
            spots.append(p)
    out = []
    cube = np.array([(sx, sy, sz) for sx in (-half, half) for sy in (-half, half)
                     for sz in (-half, half)])
    for x, y in spots:
        value = int(rng.integers(1, 7))
        rotation = spin_z(rng.uniform(0, 2 * math.pi)) @ _turn(*FACE_TURNS[value])
        centre = np.array([x, -y, half])
        out.append((value, placement("die", rotation, centre), cube @ rotation.T + centre))
    return out
