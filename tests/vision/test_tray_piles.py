"""A tray full of borne-off checkers standing on their edge is no hand: their sides show, not
the faces their colour was learned from. Through the user's route (`calibrate`, then `vision
board`) on the development photoreal set-up bg02 (tournament board with two trays), whose
`play6` has eleven black checkers in a tray."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.cli import spieltisch
from vision.board_regions import coarse_grid, piece_zones
from vision.camera_pose import CameraPose
from vision.geometry import load_geometry
from vision.lens import WARP_PX_PER_MM

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "tests" / "data" / "photoreal" / "images"


def test_the_tray_zone_holds_the_trays_and_not_the_points() -> None:
    geo = load_geometry(ROOT / "vision" / "boards" / "tournament.toml").board("backgammon")
    grid = coarse_grid(geo.width, geo.height)
    pose = CameraPose((geo.width / 2, geo.height / 2), 700.0, 1000.0)
    trays = piece_zones(geo, pose, grid, trays_only=True)
    xs = grid.xs.reshape(grid.shape) / WARP_PX_PER_MM
    ys = grid.ys.reshape(grid.shape) / WARP_PX_PER_MM

    def at(name: str) -> bool:
        lane = geo.lane(name)
        x, y = lane.at(lane.stack_length / 2)
        return bool(trays.flat[np.argmin(np.hypot(xs - x, ys - y))])

    assert at("off_white") and at("off_black")
    assert not at("p6") and not at("p19")
    assert trays.mean() < piece_zones(geo, pose, grid).mean()


def test_a_full_tray_is_read_and_a_hand_is_still_blocked(tmp_path: Path) -> None:
    labels = json.loads((ROOT / "tests" / "data" / "photoreal" / "labels.json").read_text())
    setup = next(s for s in labels["setups"] if s["id"] == "bg02")
    out = tmp_path / "bg02.json"
    done = spieltisch("calibrate", str(IMAGES / "bg02_start.jpg"), "--game", "backgammon",
                      "--geometry", str(ROOT / setup["geometry"]),
                      "--empty", str(IMAGES / "bg02_empty.jpg"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    frames = ("bg02_play6.jpg", "bg02_hand1.jpg", "bg02_hand2.jpg")
    read = spieltisch("vision", "board", *(str(IMAGES / f) for f in frames),
                      "--calibration", str(out), "--json")
    assert read.returncode == 0, read.stderr
    play, *hands = [json.loads(line) for line in read.stdout.splitlines()]
    truth = next(f for f in setup["frames"] if f["image"].endswith(frames[0]))["board"]
    assert truth["off"]["black"] == 11
    assert "hand" not in play.get("blocked", "")  # read, or unsure of a count: not a hand
    assert "board" not in play or play["board"] == truth
    for hand in hands:
        assert set(hand) == {"image", "blocked"}
