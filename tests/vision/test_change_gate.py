"""The still-frame gate on rendered frames: sensor noise keeps the reading, anything that moves
(a die, a checker, a hand) forces a new one, and slow drift adds up against the last read frame."""

from __future__ import annotations

import numpy as np
import pytest

from controller.rules import backgammon as bg
from controller.words.events import BackgammonBoard
from vision.change_gate import ChangeGate
from vision.geometry import load_geometry
from vision.renderer import Camera, Scene, render

START = bg.Position.initial(bg.Options.preset("standard")).to_board()


@pytest.fixture(scope="module")
def camera() -> Camera:
    geometry = load_geometry()
    return Camera.random(np.random.default_rng(4), geometry.board_size("backgammon"), (1280, 720))


def _frame(camera: Camera, board: BackgammonBoard = START, dice: tuple[int, ...] = (3, 5),
           hand: bool = False) -> np.ndarray:
    return render(Scene(board, dice, hand=hand), seed=8, camera=camera).image


def _noisy(image: np.ndarray, sigma: float, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0, sigma, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def test_sensor_noise_keeps_the_reading(camera: Camera) -> None:
    gate = ChangeGate()
    still = _frame(camera)
    gate.read_done(still)
    assert all(gate.unchanged(_noisy(still, 4.0, seed)) for seed in range(10))


def test_a_die_a_checker_or_a_hand_forces_a_new_reading(camera: Camera) -> None:
    gate = ChangeGate()
    gate.read_done(_frame(camera))
    moved = bg.Position.initial(bg.Options.preset("standard")).apply(bg.Play.parse("6/5"))
    assert not gate.unchanged(_frame(camera, moved.to_board()))
    assert not gate.unchanged(_frame(camera, dice=(3, 6)))
    assert not gate.unchanged(_frame(camera, hand=True))


def test_slow_drift_adds_up_against_the_last_frame_read(camera: Camera) -> None:
    gate = ChangeGate()
    base = _frame(camera).astype(np.int16)
    gate.read_done(base.astype(np.uint8))
    kept = 0
    for step in range(1, 40):  # the light fades by one level per frame
        frame = np.clip(base - step, 0, 255).astype(np.uint8)
        if not gate.unchanged(frame):
            break
        kept += 1
    assert 5 <= kept < 20  # each frame alone looks still; together they force a reading


def test_a_forgotten_gate_or_another_size_reads_again(camera: Camera) -> None:
    gate = ChangeGate()
    still = _frame(camera)
    gate.read_done(still)
    assert not gate.unchanged(still[:360, :640])
    gate.forget()
    assert not gate.unchanged(still)
