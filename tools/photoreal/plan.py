"""The plan of a photoreal set: every set-up and frame, decided from the seed alone.

Planning renders nothing, so labels can be rewritten for a partly rendered set and a resumed
run draws exactly the same scenes. Each set-up fixes a table top, a board print, a light rig,
a camera and a piece set; its frames are `empty`, `start`, eight `play` and two `hand` frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import families as fam
import hand as hand_mod
import layout
import numpy as np
import positions
import post
import scene_parts as parts
from camera import Camera, board_to_world, choose_camera

from vision.geometry import BackgammonGeometry, MaednGeometry, load_geometry

KINDS = ("empty", "start", *(["play"] * 8), *(["hand"] * 2))
GAME_PREFIX = {"backgammon": "bg", "maedn": "md"}


@dataclass
class FramePlan:
    name: str
    kind: str
    board: dict | None
    objects: list[dict]
    dice: list[tuple[int, np.ndarray]]  # value, 8 world corners
    hand: dict | None
    camera: Camera
    light_scale: list[float]
    light_shift: list[list[float]]
    seed: int
    post: dict


@dataclass
class Setup:
    id: str
    index: int
    split: str
    game: str
    players: int
    table: str
    print: str
    light: str
    geometry_file: str
    stacking: str
    camera: Camera
    rig: dict
    protos: dict
    frame_height: float
    frames: list[FramePlan] = field(default_factory=list)

    def board_geometry(self, root: Path) -> BackgammonGeometry | MaednGeometry:
        return load_geometry(root / self.geometry_file).board(self.game)


def _cycle(rng: np.random.Generator, items: tuple[str, ...], n: int) -> list[str]:
    """`n` picks that use every item about equally often, in a random order."""
    out: list[str] = []
    while len(out) < n:
        out += list(rng.permutation(items))
    return [str(x) for x in out[:n]]


def plan_set(root: Path, seed: int, dev: int, heldout: int,
             size: tuple[int, int]) -> list[Setup]:
    """`dev` and `heldout` set-ups per game, families drawn only from their own split."""
    setups: list[Setup] = []
    for game in ("backgammon", "maedn"):
        rng = np.random.default_rng([seed, 0 if game == "backgammon" else 1])
        splits = list(rng.permutation(["dev"] * dev + ["heldout"] * heldout))
        picks = {}
        for split in fam.SPLITS:
            n = splits.count(split)
            picks[split] = {"table": _cycle(rng, fam.TABLES[split], n),
                            "print": _cycle(rng, fam.PRINTS[game][split], n),
                            "light": _cycle(rng, fam.LIGHTS[split], n),
                            "players": _cycle(rng, ("2", "3", "4"), n)}
        used = {s: 0 for s in fam.SPLITS}
        for k, split in enumerate(splits):
            i = used[split]
            used[split] += 1
            choice = {key: vals[i] for key, vals in picks[split].items()}
            index = len(setups)
            setups.append(_setup(root, seed, index, f"{GAME_PREFIX[game]}{k + 1:02d}", str(split),
                                 game, choice, size))
    return setups


def _setup(root: Path, seed: int, index: int, ident: str, split: str, game: str,
           choice: dict, size: tuple[int, int]) -> Setup:
    rng = np.random.default_rng([seed, 100 + index])
    geometry_file = fam.board_file(choice["print"])
    geo = load_geometry(root / geometry_file).board(game)
    players = 2 if game == "backgammon" else int(choice["players"])
    stacking = str(rng.choice(["rows", "overlap", "layers"], p=[0.2, 0.4, 0.4])) \
        if game == "backgammon" else "rows"
    camera = choose_camera(rng, (geo.width, geo.height), size)
    rig = parts.lights(rng, choice["light"], (geo.width, geo.height))
    protos = _protos(rng, game, geo, players)
    setup = Setup(ident, index, split, game, players, choice["table"], choice["print"],
                  choice["light"], geometry_file, stacking, camera, rig, protos,
                  float(parts.BUILDS[choice["print"]][1]) if geo.frame > 0 else 0.0)
    bump_at = int(rng.integers(4, len(KINDS))) if rng.random() < 0.35 else None
    bumped = camera.bumped(rng)
    counts: dict[str, int] = {}
    for k, kind in enumerate(KINDS):
        counts[kind] = counts.get(kind, 0) + 1
        name = f"{ident}_{kind}" + (str(counts[kind]) if kind in ("play", "hand") else "")
        cam = bumped if bump_at is not None and k >= bump_at else camera
        setup.frames.append(_frame(np.random.default_rng([seed, 100 + index, k]), setup, geo,
                                   name, kind, cam))
    return setup


def _protos(rng: np.random.Generator, game: str, geo: BackgammonGeometry | MaednGeometry,
            players: int) -> dict:
    """The piece prototypes of a set-up: two checker colours, or one pawn per colour, and a
    die."""
    atlas_seed = int(rng.integers(1 << 30))
    protos: dict = {"die": {"kind": "die", "size": layout.DIE_MM, "bevel": 1.8,
                            "atlas_seed": atlas_seed,
                            "material": {"roughness": float(rng.uniform(0.15, 0.35)),
                                         "bump": 0.6, "coat": 0.3}}}
    if isinstance(geo, BackgammonGeometry):
        d = geo.checker_diameter * rng.uniform(0.93, 0.975)
        t = float(np.clip(rng.uniform(6.0, 9.0), 5.0, geo.checker_thickness - 0.4))
        bevel, groove = rng.uniform(0.6, 1.6), bool(rng.random() < 0.6)
        light, dark = parts.CHECKER_SETS[int(rng.integers(len(parts.CHECKER_SETS)))]
        for name, colour in (("checker_white", light), ("checker_black", dark)):
            protos[name] = {"kind": "lathe", "diameter": d, "thickness": t,
                            "profile": parts.checker_profile(d, t, bevel, groove),
                            "material": parts.piece_material(rng, colour)}
        return protos
    height = rng.uniform(22.0, 40.0)
    base = geo.piece_diameter * rng.uniform(0.92, 1.0)
    profile = parts.pawn_profile(rng, base, height)
    finish = parts.piece_material(rng, (128, 128, 128))  # colour set from the print's tints
    for colour in range(4):
        protos[f"pawn_{colour}"] = {"kind": "lathe", "profile": profile, "tint_of": colour,
                                    "material": dict(finish)}
    return protos


def _frame(rng: np.random.Generator, setup: Setup, geo: BackgammonGeometry | MaednGeometry,
           name: str, kind: str, camera: Camera) -> FramePlan:
    board: dict | None = None
    if setup.game == "backgammon":
        assert isinstance(geo, BackgammonGeometry)
        if kind == "start":
            board = positions.backgammon_start()
        elif kind in ("play", "hand"):
            board = positions.random_backgammon(rng, 5 if setup.stacking == "rows" else 10,
                                                has_bar=geo.bar_rect is not None)
    else:
        assert isinstance(geo, MaednGeometry)
        if kind == "start":
            board = positions.maedn_start(setup.players)
        elif kind in ("play", "hand"):
            board = positions.random_maedn(rng, geo.seat_colours(setup.players))
    objects: list[dict] = []
    if board is not None and isinstance(geo, BackgammonGeometry):
        proto = setup.protos["checker_white"]
        pieces = layout.Checkers(proto["diameter"], proto["thickness"])
        bar_z = next((p["height"] for p in parts.raised_parts(setup.print, geo)
                      if geo.bar_rect is not None and p["rect"] == list(geo.bar_rect)), 0.0)
        table_z = -float(parts.BUILDS[setup.print][0])
        objects = layout.backgammon_pieces(geo, board, setup.stacking, pieces, bar_z, table_z,
                                           rng)
    elif board is not None and isinstance(geo, MaednGeometry):
        objects = layout.maedn_pieces(geo, board, setup.players, rng)
    dice: list[tuple[int, np.ndarray]] = []
    chance = {"play": 0.5, "hand": 0.3}.get(kind, 0.0)
    if rng.random() < chance:
        count = 2 if setup.game == "backgammon" else 1
        for value, place, corners in layout.dice(geo.dice_area, count, rng):
            objects.append(place)
            dice.append((value, corners))
    hand = hand_mod.hand(rng, (geo.width, geo.height)) if kind == "hand" else None
    n = len(setup.rig["lights"])
    scale = [float(np.clip(rng.normal(1.0, 0.04), 0.9, 1.1)) for _ in range(n)]
    shift = [[round(float(v), 1) for v in rng.normal(0, 15, 3)] for _ in range(n)]
    return FramePlan(name, kind, board, objects, dice, hand, camera, scale, shift,
                     int(rng.integers(1 << 30)), post.draw_params(rng, kind == "hand"))


def corners_world(geo: BackgammonGeometry | MaednGeometry) -> np.ndarray:
    """The board's outer corners on the playing surface: top-left, top-right, bottom-right,
    bottom-left."""
    return board_to_world(np.array([(0, 0), (geo.width, 0), (geo.width, geo.height),
                                    (0, geo.height)], np.float64))
