"""The committed photoreal set (tests/data/photoreal, made by tools/photoreal/make_set.py): every
picture exists, the labels have the agreed shape, the boards are real positions, and the
held-out part uses only style families the development part does not contain."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "photoreal"))

import families

from vision.geometry import BackgammonGeometry, MaednGeometry, load_geometry

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "tests" / "data" / "photoreal"
LABELS = json.loads((SET / "labels.json").read_text("utf-8"))
SETUPS = LABELS["setups"]
KINDS = {"empty", "start", "play", "hand"}
START = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]
SIZE = (1280, 720)


def test_the_set_records_its_command_and_its_families() -> None:
    assert LABELS["version"] == 1
    assert LABELS["command"].startswith(".venv/bin/python tools/photoreal/make_set.py ")
    assert LABELS["families"] == families.families_json()
    for kind, split in LABELS["families"].items():
        assert not set(split["dev"]) & set(split["heldout"]), kind


def test_held_out_set_ups_use_only_held_out_families_and_both_games_are_in_both_parts() -> None:
    fams = LABELS["families"]
    for setup in SETUPS:
        for kind in ("table", "print", "light"):
            assert setup[kind] in fams[kind][setup["split"]], (setup["id"], kind)
    parts = {(s["split"], s["game"]) for s in SETUPS}
    assert parts == {(split, game) for split in ("dev", "heldout")
                     for game in ("backgammon", "maedn")}
    dev = sum(s["split"] == "dev" for s in SETUPS)
    assert 0.5 < dev / len(SETUPS) < 0.8


def test_the_folder_stays_small() -> None:
    total = sum(p.stat().st_size for p in SET.rglob("*") if p.is_file())
    assert total <= 40 * 2 ** 20


@pytest.mark.parametrize("setup", SETUPS, ids=[s["id"] for s in SETUPS])
def test_a_set_up_is_labelled_in_the_agreed_shape(setup: dict) -> None:
    assert setup["split"] in ("dev", "heldout")
    assert setup["game"] in ("backgammon", "maedn")
    geo = load_geometry(ROOT / setup["geometry"]).board(setup["game"])
    assert setup["stacking"] in ("rows", "overlap", "layers")
    cam = setup["camera"]
    assert set(cam) >= {"height_mm", "tilt_deg", "focal_px", "k1", "position_mm"}
    assert 500 <= cam["height_mm"] <= 850 and 0 <= cam["tilt_deg"] <= 25.5
    _corners_inside(setup["corners_px"])
    kinds = [f["kind"] for f in setup["frames"]]
    assert kinds.count("empty") == 1 and kinds.count("start") == 1 and set(kinds) <= KINDS
    for frame in setup["frames"]:
        image = cv2.imread(str(SET / frame["image"]), cv2.IMREAD_REDUCED_GRAYSCALE_8)
        assert image is not None, frame["image"]
        assert image.shape == (SIZE[1] // 8, SIZE[0] // 8), frame["image"]
        assert frame["hand"] is (frame["kind"] == "hand")
        _corners_inside(frame["corners_px"])
        for die in frame["dice"]:
            assert die["value"] in range(1, 7) and die["cocked"] is False
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 <= SIZE[0] and 0 <= y0 < y1 <= SIZE[1]
        board = frame["board"]
        if frame["kind"] == "empty":
            assert board is None and not frame["dice"]
        elif isinstance(geo, BackgammonGeometry):
            _check_backgammon(board, setup["stacking"], frame["kind"])
        else:
            _check_maedn(board, geo, setup["players"], frame["kind"])


def _corners_inside(corners: list) -> None:
    assert len(corners) == 4
    for x, y in corners:
        assert 0 <= x < SIZE[0] and 0 <= y < SIZE[1]
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = corners
    assert x1 > x0 and x2 > x3 and y3 > y0 and y2 > y1  # clockwise from the top-left


def _check_backgammon(board: dict, stacking: str, kind: str) -> None:
    assert set(board) == {"points", "bar", "off"} and len(board["points"]) == 24
    for colour, sign in (("white", 1), ("black", -1)):
        on_points = sum(abs(p) for p in board["points"] if p * sign > 0)
        assert on_points + board["bar"][colour] + board["off"][colour] == 15
    if stacking == "rows":
        assert max(abs(p) for p in board["points"]) <= 5
        assert max(board["bar"].values()) <= 5
    if kind == "start":
        assert board["points"] == START


def _check_maedn(board: dict, geo: MaednGeometry, players: int, kind: str) -> None:
    assert set(board) == {"pieces"} and len(board["pieces"]) == players
    taken = []
    for colour, seat in zip(geo.seat_colours(players), board["pieces"], strict=True):
        assert len(seat) <= 4 and all(-1 <= p <= 43 for p in seat)
        taken += [geo.field_name(colour, p) for p in seat if p != -1]
        if kind == "start":
            assert seat == [-1, -1, -1, -1]
    assert len(taken) == len(set(taken))
