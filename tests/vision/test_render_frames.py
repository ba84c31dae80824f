"""Renderer and dataset writer: determinism, geometry checked with OpenCV's own marker detector,
dice boxes, hands, and labels in the shared dice dataset's format."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.commands import render as render_command
from controller.words.events import BackgammonBoard
from vision.calibration import STANDARD_BACKGAMMON, maedn_start
from vision.geometry import load_geometry
from vision.render_dataset import random_backgammon, random_maedn, write_dataset
from vision.renderer import Scene, render

GEO = load_geometry()
SHARED_LABELS = Path(__file__).resolve().parents[3] / "shared/data/dice-topdown/labels.json"


def test_same_seed_same_frame_other_seed_other_frame() -> None:
    scene = Scene(STANDARD_BACKGAMMON, dice=(3, 5), cocked=(False, True), hand=True)
    a = render(scene, seed=21).image
    assert np.array_equal(a, render(scene, seed=21).image)
    assert not np.array_equal(a, render(scene, seed=22).image)


def test_frame_has_the_camera_size() -> None:
    frame = render(Scene(maedn_start(2)), seed=1, size=(640, 360))
    assert frame.image.shape == (360, 640, 3) and frame.image.dtype == np.uint8


@pytest.mark.parametrize("seed", range(4))
def test_markers_appear_where_the_camera_model_says(seed: int) -> None:
    frame = render(Scene(STANDARD_BACKGAMMON, clean=True), seed=seed)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel()) == [0, 1, 2, 3]
    known = GEO.markers.corners(GEO.backgammon.width, GEO.backgammon.height)
    for marker_id, quad in zip(ids.ravel(), corners, strict=True):
        expected = frame.camera.project(np.array(known[int(marker_id)]))
        assert np.abs(quad.reshape(4, 2) - expected).max() < 2.0


def test_dice_boxes_frame_what_the_dice_changed() -> None:
    board = maedn_start(2)
    with_dice = render(Scene(board, dice=(4, 2), clean=True), seed=5)
    without = render(Scene(board, clean=True), seed=5, camera=with_dice.camera)
    changed = np.abs(with_dice.image.astype(int) - without.image.astype(int)).sum(axis=2) > 40
    assert len(with_dice.dice_boxes) == 2
    inside = np.zeros_like(changed)
    for x0, y0, x1, y1 in with_dice.dice_boxes:
        assert 8 <= x1 - x0 <= 60 and 8 <= y1 - y0 <= 60
        inside[y0:y1 + 1, x0:x1 + 1] = True
        assert changed[y0:y1 + 1, x0:x1 + 1].mean() > 0.5
    # Outside the boxes only the dice's shadows changed the picture.
    assert changed[~inside].sum() < 0.5 * changed[inside].sum()


def test_dice_must_show_one_to_six() -> None:
    with pytest.raises(ValueError, match=r"1\.\.6"):
        render(Scene(maedn_start(2), dice=(7,)), seed=1)


def test_a_hand_covers_a_large_part_of_the_board() -> None:
    scene = Scene(STANDARD_BACKGAMMON)
    clear = render(scene, seed=3)
    hand = render(dataclasses.replace(scene, hand=True), seed=3, camera=clear.camera)
    assert hand.blocked and not clear.blocked
    diff = np.abs(hand.image.astype(int) - clear.image.astype(int)).sum(axis=2) > 60
    assert diff.mean() > 0.03


def test_light_scales_the_brightness() -> None:
    bright = render(Scene(STANDARD_BACKGAMMON, clean=True), seed=4)
    dim = render(Scene(STANDARD_BACKGAMMON, clean=True, light=0.5), seed=4)
    ratio = dim.image.astype(float).mean() / bright.image.astype(float).mean()
    assert 0.45 < ratio < 0.55


def test_random_positions_are_valid() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        bg = random_backgammon(rng)
        assert len(bg.points) == 24
        assert sum(p for p in bg.points if p > 0) + bg.bar_white + bg.off_white == 15
        assert -sum(p for p in bg.points if p < 0) + bg.bar_black + bg.off_black == 15
        mae = random_maedn(rng, players=3)
        assert len(mae.pieces) == 3 and all(len(p) == 4 for p in mae.pieces)
        assert all(-1 <= pos <= 43 for seat in mae.pieces for pos in seat)


def test_dataset_labels_have_the_shared_dice_format(tmp_path: Path) -> None:
    labels_path = write_dataset(tmp_path / "ds", "backgammon", 6, seed=2, hand=0.5, cocked=0.5)
    labels = json.loads(labels_path.read_text("utf-8"))
    assert len(labels) == 6
    if SHARED_LABELS.is_file():
        shared = json.loads(SHARED_LABELS.read_text("utf-8"))[0]
        assert set(shared) <= set(labels[0])
        assert set(shared["dice"][0]) <= set(labels[0]["dice"][0])
    for entry in labels:
        image = cv2.imread(str(tmp_path / "ds" / entry["image"]))
        assert image is not None and image.shape == (720, 1280, 3)
        assert entry["split"] in ("train", "test")
        assert entry["game"] == "backgammon" and isinstance(entry["blocked"], bool)
        assert len(entry["dice"]) == 2
        for die in entry["dice"]:
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 <= 1280 and 0 <= y0 < y1 <= 720
            assert 1 <= die["value"] <= 6 and isinstance(die["cocked"], bool)
        BackgammonBoard(**{k: tuple(v) if isinstance(v, list) else v
                           for k, v in entry["board"].items()})
    # The first frame shows the start position without a hand, ready for calibration.
    assert tuple(labels[0]["board"]["points"]) == STANDARD_BACKGAMMON.points
    assert labels[0]["blocked"] is False


def test_dataset_rejects_unknown_game_and_zero_frames(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown game"):
        write_dataset(tmp_path, "chess", 1, seed=0)
    with pytest.raises(ValueError, match="at least 1"):
        write_dataset(tmp_path, "maedn", 0, seed=0)


def _run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="spieltisch")
    render_command.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_render_command_writes_images_and_labels(tmp_path: Path, capsys) -> None:
    out = tmp_path / "frames"
    assert _run_cli(["render", str(out), "--game", "maedn", "--count", "3", "--seed", "5",
                     "--players", "4", "--size", "640x360"]) == 0
    labels = json.loads((out / "labels.json").read_text("utf-8"))
    assert len(labels) == 3 and len(list((out / "images").glob("*.jpg"))) == 3
    assert len(labels[1]["board"]["pieces"]) == 4
    assert "3 frames written" in capsys.readouterr().out


def test_render_command_rejects_a_bad_size(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        _run_cli(["render", str(tmp_path), "--game", "maedn", "--size", "big"])


def test_frame_reader_scores_a_written_folder(tmp_path: Path) -> None:
    from vision.render_dataset import board_from_json, board_json, score_boards

    write_dataset(tmp_path / "ds", "maedn", 16, seed=8, players=3, hand=0.3)
    score = score_boards(tmp_path / "ds")
    assert score.frames == 15 and score.clear + score.occluded == 15 and score.occluded > 0
    assert score.wrong == 0 and score.clear_right == score.clear
    assert score.occluded_blocked == score.occluded
    board = random_backgammon(np.random.default_rng(3))
    assert board_from_json(json.loads(json.dumps(board_json(board)))) == board
