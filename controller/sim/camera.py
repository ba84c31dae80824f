"""The simulated table's camera: a scene (board, dice, hand) drawn by the vision renderer as
the table's camera would see it, one camera mount per game, as on a real table."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal as os_signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np

from controller.rules.games import GAMES, game_of
from controller.words.boards import Board
from vision import renderer
from vision.geometry import load_geometry

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Scene:
    """What the camera would see: the board, the dice lying on it, a hand over it or not, and
    how bright the room is."""

    board: Board
    dice: tuple[int, ...] = ()
    cocked: tuple[bool, ...] = ()
    hand: bool = False
    throw: int = 0  # which throw the dice come from: each throw lands them somewhere else
    light: float = 1.0  # the room's light (`vision.renderer.Scene.light`; 0.2 is dim)


def simulated_mount(seed: int, game: str, size: tuple[int, int]) -> renderer.Camera:
    """The camera mount (`vision.renderer.Camera`) of a simulated table's game: a pure function
    of the seed, so the table's render workers and its calibration agree on it."""
    rng = np.random.default_rng([seed, len(game)])
    return renderer.Camera.random(rng, load_geometry().board_size(game), size)


def measured_camera_heights(seed: int, size: tuple[int, int]) -> dict[str, float]:
    """Each game's lens height above the board as a builder measures it with a tape (to the
    centimetre, docs/calibration.md), for the simulated table's mounts."""
    return {game: round(simulated_mount(seed, game, size).position[2], -1) for game in GAMES}


class SceneRenderer:
    """Draws a Scene as the table's camera would see it (`vision.renderer`), one camera mount
    per game, so every frame of a game comes from the same place as on a real table."""

    def __init__(self, width: int = 1280, height: int = 720, seed: int = 1) -> None:
        self.size = (width, height)
        self.seed = seed
        self.geometry = load_geometry()
        self._cameras: dict[str, renderer.Camera] = {}

    def __call__(self, scene: Scene) -> np.ndarray:
        game = game_of(scene.board).name
        camera = self._cameras.get(game)
        if camera is None:
            camera = self._cameras[game] = simulated_mount(self.seed, game, self.size)
        drawn = renderer.Scene(
            board=scene.board,
            dice=scene.dice,
            cocked=scene.cocked,
            throw=scene.throw,
            hand=scene.hand,
            light=scene.light,
        )
        frame = renderer.render(
            drawn, seed=self.seed, camera=camera, geometry=self.geometry, size=self.size
        )
        return frame.image


_worker_renderer: SceneRenderer | None = None


def _start_worker(width: int, height: int, seed: int) -> None:
    global _worker_renderer
    # Ctrl-C in a terminal (and systemd's stop) signals every process of the table program: the
    # table decides when its render workers end, a worker that died of the signal mid-frame
    # would break the table's last frame with a traceback instead of a clean stop.
    os_signal.signal(os_signal.SIGINT, os_signal.SIG_IGN)
    os_signal.signal(os_signal.SIGTERM, os_signal.SIG_IGN)
    _worker_renderer = SceneRenderer(width, height, seed)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A render worker of a table program that was killed (SIGKILL, power) must not linger."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def _render_in_worker(scene: Scene) -> np.ndarray:
    assert _worker_renderer is not None
    return _worker_renderer(scene)


class RenderAhead:
    """A SceneRenderer that draws the scenes the players have already planned in another
    process, while the table reads the frames of the current one (a real camera costs the Pi
    nothing to draw; the simulation should not make the table look slower than it is). The
    frames are the same as `SceneRenderer`'s: rendering is a pure function of scene and seed."""

    def __init__(self, width: int = 1280, height: int = 720, seed: int = 1) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=max(1, (os.cpu_count() or 2) - 1),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(width, height, seed),
        )
        self._pending: dict[Scene, Future[np.ndarray]] = {}
        self._size = (width, height, seed)
        self._fallback: SceneRenderer | None = None

    def prefetch(self, scenes: list[Scene]) -> None:
        if self._fallback is not None:
            return
        if len(self._pending) >= 8:  # planned scenes that were never shown (a game ended)
            for future in self._pending.values():
                future.cancel()
            self._pending.clear()
        for scene in scenes:
            if scene not in self._pending and len(self._pending) < 8:
                self._pending[scene] = self._pool.submit(_render_in_worker, scene)

    def __call__(self, scene: Scene) -> np.ndarray:
        if self._fallback is not None:
            return self._fallback(scene)
        try:
            future = self._pending.pop(scene, None)
            if future is None:
                future = self._pool.submit(_render_in_worker, scene)
            return future.result()
        except BrokenProcessPool:
            # A worker was killed (out of memory, a stray signal): draw here from now on, the
            # evening goes on a little slower.
            log.warning("render worker lost: drawing frames in the table's own process")
            self._pending.clear()
            self._fallback = SceneRenderer(*self._size)
            return self._fallback(scene)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
