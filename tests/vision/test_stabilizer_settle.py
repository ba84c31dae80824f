"""Stabilizer: an Observation only after the reading held for the settle time, never while the
view is blocked; driven by real rendered and read frames where it matters."""

from __future__ import annotations

import math

import pytest

from controller.words import MaednBoard
from vision.calibrate import calibrate
from vision.calibration import maedn_start
from vision.frame_reader import FrameReader
from vision.observation import BLOCKED, Observation
from vision.renderer import Scene, render
from vision.stabilizer import DEFAULT_SETTLE_S, Stabilizer

FPS = 30
A = MaednBoard(((-1, -1, -1, -1), (-1, -1, -1, -1)))
B = MaednBoard(((-1, -1, -1, 0), (-1, -1, -1, -1)))


def seen(board: MaednBoard | None, blocked: bool = False) -> Observation:
    return Observation(board, (), blocked, 0.0 if board is None else 0.9, (),
                       BLOCKED if blocked else "")


def feed_all(stab: Stabilizer, frames: list[Observation]) -> list[int]:
    """Feed frames at 30 per second; the indices of frames that were emitted."""
    return [i for i, obs in enumerate(frames) if stab.feed(obs, i / FPS) is not None]


def test_default_settle_is_300_ms_and_emits_once_after_it() -> None:
    assert DEFAULT_SETTLE_S == 0.3
    emitted = feed_all(Stabilizer(), [seen(A)] * 30)
    # The first frame at or after 300 ms from the first sighting, then never again.
    assert emitted == [math.ceil(0.3 * FPS - 1e-9)]


def test_settle_time_is_configurable() -> None:
    assert feed_all(Stabilizer(settle_s=1.0), [seen(A)] * 40) == [30]
    assert feed_all(Stabilizer(settle_s=0.0), [seen(A)] * 3) == [0]


def test_a_change_restarts_the_settle_time() -> None:
    frames = [seen(A)] * 5 + [seen(B)] * 20
    assert feed_all(Stabilizer(), frames) == [5 + 9]


def test_never_emits_while_blocked() -> None:
    frames = [seen(None, blocked=True)] * 40
    stab = Stabilizer()
    assert feed_all(stab, frames) == []
    assert stab.blocked


def test_blocked_frames_restart_the_settle_time_and_allow_the_same_reading_again() -> None:
    frames = [seen(A)] * 12 + [seen(None, blocked=True)] * 5 + [seen(A)] * 12
    assert feed_all(Stabilizer(), frames) == [9, 17 + 9]


def test_unreadable_frames_do_not_count_towards_settling() -> None:
    frames = [seen(A), seen(None)] * 20
    assert feed_all(Stabilizer(), frames) == []


def test_a_flicker_does_not_emit_the_same_reading_twice() -> None:
    frames = [seen(A)] * 12 + [seen(B)] + [seen(A)] * 20
    assert feed_all(Stabilizer(), frames) == [9]


def test_time_going_backwards_is_an_error() -> None:
    stab = Stabilizer()
    stab.feed(seen(A), 1.0)
    with pytest.raises(ValueError, match="backwards"):
        stab.feed(seen(A), 0.5)


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf")])
def test_bad_settle_time_is_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="settle time"):
        Stabilizer(settle_s=bad)


def test_rendered_hand_passing_over_the_board() -> None:
    """A hand comes and goes over a real rendered board: one emission before, one after."""
    start = maedn_start(2)
    calib_frame = render(Scene(maedn_start(4)), seed=31)
    reader = FrameReader(calibrate(calib_frame.image, "maedn"), players=2, dice_reader=None)
    camera = calib_frame.camera
    plan = [False] * 12 + [True] * 6 + [False] * 12
    stab = Stabilizer()
    out = []
    for i, hand in enumerate(plan):
        obs = reader.read(render(Scene(start, hand=hand), seed=i, camera=camera).image)
        emitted = stab.feed(obs, i / FPS)
        if emitted is not None:
            out.append((i, emitted.board))
    assert out == [(9, start), (18 + 9, start)]
