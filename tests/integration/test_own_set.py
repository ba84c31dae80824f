"""The own set `spieltisch record` keeps (`controller.table.own_set`): rendered frames, the real
frame reader, stabilizer and referee; the misreads are injected into the real reader's output,
the unsure readings come from the simulated players' dim light (`Habits.dim_rate`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller import table_log
from controller.referee import Referee
from controller.sim.camera import Scene, SceneRenderer, measured_camera_heights, simulated_mount
from controller.sim.session import SimulatedSession
from controller.sim.table import Habits, SimulatedTable
from controller.table.camera_frames import Frame
from controller.table.game_vision import FrameCalibration, GameVision
from controller.table.own_set import LABELS, OwnSet, accepted_position, empty_board_in_view
from controller.table.pipeline import TablePipeline
from controller.words import BackgammonBoard
from controller.words.events import NewGame
from controller.words.signals import BoardDiffers, Signal
from tests.cli import spieltisch
from vision.board_eval import evaluate_boards, load_setups
from vision.board_finder import board_corners
from vision.calibrate import calibrate
from vision.calibration import STANDARD_BACKGAMMON, Calibration
from vision.geometry import load_geometry
from vision.observation import Observation

ROOT = Path(__file__).resolve().parents[2]
SIZE = (640, 360)
SEED = 3
EMPTY = BackgammonBoard(points=(0,) * 24)
# the start position with one of White's back checkers read one point on
MISREAD = BackgammonBoard(points=(-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5,
                                  0, 0, 0, 1, 1))


def _board(obj: dict[str, Any]) -> Any:
    return table_log.event_from_json({"type": "board", **obj}).board


@pytest.fixture(scope="module")
def camera() -> tuple[SceneRenderer, Calibration]:
    """The simulated table's camera, calibrated as an owner does: with the empty board."""
    render = SceneRenderer(*SIZE, seed=SEED)
    height = measured_camera_heights(SEED, SIZE)["backgammon"]
    calib = calibrate(render(Scene(STANDARD_BACKGAMMON)), "backgammon", camera_height_mm=height,
                      empty=render(Scene(EMPTY)))
    return render, calib


class _Misreading:
    """The real frame reader, reading every board as `misread` while that is set."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.misread: BackgammonBoard | None = None

    @property
    def calib(self) -> Calibration:
        return self.reader.calib

    def read(self, image: np.ndarray) -> Observation:
        observation = self.reader.read(image)
        if self.misread is not None and observation.board is not None:
            observation = dataclasses.replace(observation, board=self.misread)
        return observation


class _Table:
    """A table whose camera shows what the test says, its own set in `folder`."""

    def __init__(self, folder: Path, calib: Calibration) -> None:
        self.referee = Referee()
        self.own_set = OwnSet(folder, lambda: accepted_position(self.referee))
        # relearn=False: the reader is wrapped to misread (below), not renewed mid-game
        self.vision = GameVision(0.3, lambda _event, _image: calib, skip_still_frames=False,
                                 relearn=False)
        self.pipeline = TablePipeline(self.referee, self.own_set.watch(self.vision),
                                      listeners=[self.own_set])
        self.pipeline.handle(NewGame("backgammon"))
        self.t = 0.0
        self.reader: _Misreading | None = None

    def show(self, image: np.ndarray, frames: int = 10) -> list[Signal]:
        out: list[Signal] = []
        for _ in range(frames):
            self.t += 1 / 15
            out += self.pipeline.feed_frame(self.t, image)
            if self.reader is None:
                self.reader = self.vision.reader = _Misreading(self.vision.reader)
        return out


def _labels(folder: Path) -> dict[str, Any]:
    return json.loads((folder / LABELS).read_text("utf-8"))


def test_a_misread_the_reader_takes_back_with_nothing_moved_is_kept_as_corrected(
    camera: tuple[SceneRenderer, Calibration], tmp_path: Path
) -> None:
    render, calib = camera
    start = render(Scene(STANDARD_BACKGAMMON))
    table = _Table(tmp_path / "own", calib)
    table.show(start)
    assert table.reader is not None
    table.reader.misread = MISREAD
    assert any(isinstance(s, BoardDiffers) for s in table.show(start))  # the players look...
    table.reader.misread = None
    table.show(render(Scene(STANDARD_BACKGAMMON, hand=True)), 4)  # ...touch, move nothing
    table.show(start)
    table.own_set.close()

    setup = _labels(tmp_path / "own")["setups"][0]
    assert (setup["id"], setup["game"], setup["split"]) == ("game001", "backgammon", "own")
    assert setup["calibrate"] == {"camera_height_mm": calib.camera_height_mm}
    kinds = [f["kind"] for f in setup["frames"]]
    assert kinds == ["empty", "start", "play"]
    played = setup["frames"][2]
    assert played["why"] == "corrected" and _board(played["read"]) == MISREAD
    assert _board(played["board"]) == STANDARD_BACKGAMMON == _board(setup["frames"][1]["board"])
    kept = cv2.imread(str(tmp_path / "own" / played["image"]), cv2.IMREAD_COLOR)
    assert np.array_equal(kept, start)  # lossless: the very pixels the table read

    # the empty board the calibration learned, drawn back where the camera saw it
    empty = cv2.imread(str(tmp_path / "own" / setup["frames"][0]["image"]), cv2.IMREAD_COLOR)
    assert np.array_equal(empty, empty_board_in_view(calib, start))
    inside = np.any(empty != start, axis=2)
    truth = render(Scene(EMPTY)).astype(int)
    assert np.abs(empty.astype(int) - truth)[inside].mean() < 8

    result = spieltisch("vision", "eval", str(tmp_path / "own"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["setups"] == report["calibrated"] == 1
    assert report["clear_frames"] == report["clear_right"] == 1


def test_corners_given_by_hand_are_given_again_when_the_set_is_scored(
    camera: tuple[SceneRenderer, Calibration], tmp_path: Path
) -> None:
    render, _ = camera
    start = render(Scene(STANDARD_BACKGAMMON))
    geo = load_geometry().board("backgammon")
    corners = simulated_mount(SEED, "backgammon", SIZE).project(
        board_corners(geo.width, geo.height))
    calib = calibrate(start, "backgammon", corners=corners)
    assert calib.method == "corners" and not calib.height_measured
    table = _Table(tmp_path / "own", calib)
    table.show(start)
    assert table.reader is not None
    table.reader.misread = MISREAD
    table.show(start)
    table.reader.misread = None
    table.show(start)
    table.own_set.close()
    setup = _labels(tmp_path / "own")["setups"][0]
    assert set(setup["calibrate"]) == {"corners_px"}
    # where the calibration placed them (refined to the print), as near as its file tells
    assert np.abs(np.array(setup["calibrate"]["corners_px"]) - corners).max() < 2
    assert [f["kind"] for f in setup["frames"]] == ["start", "play"]  # no empty board learned
    (scored,) = load_setups(tmp_path / "own", _board)
    assert scored.given_corners_px is not None and scored.camera_height_mm is None
    report = evaluate_boards([scored]).as_dict()
    assert report["calibrated"] == 1 and report["clear_right"] == 1


def test_a_flagged_board_the_players_put_right_by_hand_is_not_kept(
    camera: tuple[SceneRenderer, Calibration], tmp_path: Path
) -> None:
    """The reader saw right and the players moved a checker back: no frame of it is a misread."""
    render, calib = camera
    start = render(Scene(STANDARD_BACKGAMMON))
    table = _Table(tmp_path / "own", calib)
    table.show(start)
    assert any(isinstance(s, BoardDiffers) for s in table.show(render(Scene(MISREAD))))
    table.show(render(Scene(MISREAD, hand=True)), 4)
    table.show(start)
    table.own_set.close()
    assert table.own_set.kept == 0 and not (tmp_path / "own" / LABELS).exists()


def test_frames_that_stop_coming_end_the_still_spell(
    camera: tuple[SceneRenderer, Calibration], tmp_path: Path
) -> None:
    """While the camera was lost anything may have moved: the misread before is not kept."""
    render, calib = camera
    start = render(Scene(STANDARD_BACKGAMMON))
    table = _Table(tmp_path / "own", calib)
    table.show(start)
    assert table.reader is not None
    table.reader.misread = MISREAD
    table.show(start)
    table.reader.misread = None
    table.t += 5.0
    assert table.show(start)  # the board stands as it must: the players may roll
    table.own_set.close()
    assert table.own_set.kept == 0


def test_another_evening_adds_to_the_own_set(
    camera: tuple[SceneRenderer, Calibration], tmp_path: Path
) -> None:
    render, calib = camera
    start = render(Scene(STANDARD_BACKGAMMON))
    for _ in range(2):
        table = _Table(tmp_path / "own", calib)
        table.show(start)
        assert table.reader is not None
        table.reader.misread = MISREAD
        table.show(start)
        table.reader.misread = None
        table.show(start)
        table.own_set.close()
    setups = _labels(tmp_path / "own")["setups"]
    assert [s["id"] for s in setups] == ["game001", "game002"]
    assert all((tmp_path / "own" / f["image"]).is_file() for s in setups for f in s["frames"])


class _Truth:
    """The simulated camera, remembering the board of every picture it drew."""

    def __init__(self) -> None:
        self.render = SceneRenderer(*SIZE, seed=SEED)
        self.boards: dict[str, Any] = {}

    def __call__(self, scene: Scene) -> np.ndarray:
        image = self.render(scene)
        self.boards[hashlib.sha1(image.tobytes()).hexdigest()] = scene.board
        return image


class _Positions:
    """Every position the referee held as accepted."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.seen: list[Any] = []

    def on_frame(self, t: float, image: np.ndarray) -> None:
        return None

    def on_event(self, event: Any, source: str) -> None:
        return None

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        self.seen.append(accepted_position(self.referee))


def test_a_simulated_evening_keeps_the_unsure_frames_labelled_with_what_lay_there(
    tmp_path: Path,
) -> None:
    """Dim light before done makes the reader unsure of a still board; illegal plays, hands
    and plays without a hand (the simulated players' habits) keep nothing they cannot label."""
    logging.disable(logging.WARNING)  # the players' complaints about re-rolls
    try:
        truth = _Truth()
        referee = Referee()
        own_set = OwnSet(tmp_path / "own", lambda: accepted_position(referee))
        positions = _Positions(referee)
        vision = GameVision(0.3, FrameCalibration(measured_camera_heights(SEED, SIZE)))
        pipeline = TablePipeline(referee, own_set.watch(vision), listeners=[own_set, positions])
        habits = Habits(illegal_rate=0.3, hand_rate=0.6, dim_rate=1.0, stray_dice_rate=0.0,
                        purposeful=True)
        table = SimulatedTable("backgammon", "standard", 2, SEED, habits)
        session = SimulatedSession([table], truth, fps=15, settle_s=0.3)
        for frames, item in enumerate(session.items()):
            if frames >= 1500:
                break
            signals = (pipeline.feed_frame(item.t, item.image) if isinstance(item, Frame)
                       else pipeline.handle(item))
            session.on_signals(signals)
        own_set.close()
    finally:
        logging.disable(logging.NOTSET)

    assert table.tally.dims >= 8 and table.tally.injected.total() >= 2
    setups = _labels(tmp_path / "own")["setups"]
    frames = [f for s in setups for f in s["frames"]]
    played = [f for f in frames if f["kind"] == "play"]
    assert len(setups) == 1 and own_set.kept == len(played) >= 4
    assert {f["read"] for f in played if f["why"] == "unsure"} <= {"uncertain", "impossible"}
    for entry in frames:
        image = cv2.imread(str(tmp_path / "own" / entry["image"]), cv2.IMREAD_COLOR)
        shown = truth.boards[hashlib.sha1(image.tobytes()).hexdigest()]
        assert _board(entry["board"]) == shown, entry["image"]
        assert shown in positions.seen  # a position the referee accepted

    folder = tmp_path / "own"
    report = evaluate_boards(load_setups(folder, _board)).as_dict()
    assert report["setups"] == report["calibrated"] == 1
    assert report["clear_frames"] == len(played)


def test_record_keeps_an_own_set_that_vision_eval_reads(tmp_path: Path) -> None:
    """`spieltisch record` on the simulated table with dim light: stopped once it kept frames,
    `spieltisch vision eval FOLDER/own-set` scores the reader on them."""
    config = tmp_path / "sim.toml"
    config.write_text(f"[simulation]\nwidth = {SIZE[0]}\nheight = {SIZE[1]}\nseed = {SEED}\n"
                      "illegal_rate = 0.0\nhand_rate = 1.0\ndim_rate = 1.0\n", "utf-8")
    folder = tmp_path / "evening"
    labels = folder / "own-set" / LABELS
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "record", str(folder), "--config", str(config),
         "--game", "backgammon", "--colour", "never"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 150
        while not labels.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    setups = json.loads(labels.read_text("utf-8"))["setups"]
    played = [f for s in setups for f in s["frames"] if f["kind"] == "play"]
    assert any(f["why"] == "unsure" for f in played)
    result = spieltisch("vision", "eval", str(folder / "own-set"))
    assert result.returncode == 0, result.stderr
    assert "set-ups:             1 (1 calibrated)" in result.stdout
    assert f"of {len(played)} boards right" in result.stdout
