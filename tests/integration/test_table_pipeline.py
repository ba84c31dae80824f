"""The table pipeline's own rules: which observations become referee events, stuck inputs,
resuming from a real SQLite journal."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from controller import config as table_config
from controller.journal import Journal
from controller.referee import Referee
from controller.rules import backgammon as bg
from controller.rules.match import Match
from controller.sim.camera import Scene, SceneRenderer, measured_camera_heights, simulated_mount
from controller.sim.session import SimulatedSession
from controller.sim.table import Habits, SimulatedTable
from controller.table.app import TableApp
from controller.table.camera_frames import Frame
from controller.table.camera_lost import CameraLostMode
from controller.table.game_vision import FrameCalibration, GameVision
from controller.table.notices import (
    BOARD_FOUND,
    BOARD_MOVED,
    MATCH_SCORE,
    RESUMED,
    SENSOR_STUCK,
    match_notices,
)
from controller.table.observation_events import ObservationEvents
from controller.table.pipeline import TablePipeline
from controller.table.stuck_inputs import TRAY, StuckInputFilter
from controller.words.events import (
    BackgammonBoard,
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    MaednBoard,
    NewGame,
    ViewBlocked,
)
from controller.words.signals import EXPECT_MOVE, EXPECT_ROLL, Notice, Turn
from hardware.display_text import pages_for
from tests.integration.table_harness import Collector
from vision.dice import DieReading
from vision.observation import BLOCKED, MOVED, Observation
from vision.parallax import DEFAULT_CAMERA_HEIGHT_MM

START = bg.Position.initial(bg.Options.preset("standard")).to_board()


def _seen(
    board: BackgammonBoard | None, dice: tuple[int, ...] = (), cocked: int = -1, at: int = 0
) -> Observation:
    """An Observation with 30-pixel dice side by side, starting `at` pixels to the right."""
    readings = tuple(
        DieReading(None if i == cocked else v, (at + 100 * i, 10, at + 100 * i + 30, 40), 0.9,
                   i == cocked)
        for i, v in enumerate(dice)
    )
    return Observation(board=board, dice=readings, blocked=False, confidence=0.9)


HAND = Observation(board=None, dice=(), blocked=True, confidence=0.0, problem=BLOCKED)


def test_first_stable_board_and_dice_become_events_once() -> None:
    conv = ObservationEvents()
    seen = _seen(START, (5, 3))
    assert conv.update(seen, None, 0.0) == []
    events = conv.update(seen, seen, 0.3)
    assert events == [BoardObserved(START, t=0.3), DiceObserved((5, 3), (False, False), t=0.3)]
    assert conv.update(seen, seen, 0.4) == []


def test_hand_sends_view_blocked_once_and_the_board_again_after() -> None:
    conv = ObservationEvents()
    seen = _seen(START, (5, 3))
    conv.update(seen, seen, 0.3)
    assert conv.update(HAND, None, 0.5) == [ViewBlocked(t=0.5)]
    assert conv.update(HAND, None, 0.6) == []
    # The same board after the hand: the referee must learn the hand is gone; the dice that
    # stayed on the board while the player moved are not a new roll.
    assert conv.update(seen, seen, 1.0) == [BoardObserved(START, t=1.0)]


def test_same_dice_thrown_again_after_the_tray_sensor_are_a_new_roll() -> None:
    conv = ObservationEvents()
    seen = _seen(START, (4, 4))
    conv.update(seen, seen, 0.3)
    assert conv.update(seen, seen, 0.5) == []
    conv.forget_dice()
    assert conv.update(seen, seen, 0.9) == [DiceObserved((4, 4), (False, False), t=0.9)]


def test_dice_lying_where_they_lay_are_the_same_throw_whatever_is_read() -> None:
    conv = ObservationEvents()
    seen = _seen(START, (5, 3))
    conv.update(seen, seen, 0.3)
    # Side by side, a pixel's difference in the boxes reverses the left-to-right order; and a
    # die cannot change its face without moving, so a different reading there is a misread.
    for values in ((3, 5), (5, 6)):
        again = _seen(START, values, at=4)
        assert conv.update(again, again, 0.6) == []
    # Thrown again (without a tray sensor): all dice somewhere new, even with the same values.
    thrown = _seen(START, (5, 3), at=500)
    assert conv.update(thrown, thrown, 0.9) == [DiceObserved((5, 3), (False, False), t=0.9)]


def test_cocked_die_is_flagged_not_read() -> None:
    conv = ObservationEvents()
    seen = _seen(START, (6, 2), cocked=1)
    events = conv.update(seen, seen, 0.3)
    assert DiceObserved((6, 0), (False, True), t=0.3) in events


def test_stuck_sensor_is_reported_once_then_ignored() -> None:
    stuck = StuckInputFilter(limit_per_s=5)
    results = [stuck.admit(DieThrown(t=0.05 * i)) for i in range(40)]
    passed = [ok for ok, _ in results]
    notices = [n for _, n in results if n is not None]
    assert passed[:5] == [True] * 5
    assert not any(passed[6:])
    assert len(notices) == 1
    assert notices[0].key == SENSOR_STUCK.key
    # Another input is not affected, and neither are slow presses of a working button.
    assert all(stuck.admit(ButtonPressed("done", 0, t=10.0 + i))[0] for i in range(10))


def test_pipeline_journals_every_event_before_judging(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        pipe = TablePipeline(Referee(), journal=journal)
        signals = pipe.handle(NewGame("backgammon", "standard", 2), "table")
        assert Turn(0, EXPECT_ROLL) in signals
        pipe.handle(BoardObserved(START, t=1.0))
        signals = pipe.handle(DiceObserved((3, 1), t=2.0))
        assert Turn(0, EXPECT_MOVE) in signals
        assert journal.count() == 3


def test_resume_after_restart_continues_and_says_so(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        pipe = TablePipeline(Referee(), journal=journal)
        pipe.handle(NewGame("backgammon", "standard", 2), "table")
        pipe.handle(BoardObserved(START, t=1.0))
        pipe.handle(DiceObserved((3, 1), t=2.0))
        moved = bg.Position.initial(bg.Options.preset("standard"))
        play = next(p for p in moved.legal_plays((3, 1)) if str(p) == "8/5 6/5")
        pipe.handle(BoardObserved(moved.apply(play).with_turn(0).to_board(), t=3.0))
        before = pipe.handle(ButtonPressed("done", 0, t=4.0))
    # A new process: a fresh referee fed from the same journal file.
    with Journal.open(tmp_path) as journal:
        seen = Collector()
        resumed = TablePipeline(Referee(), journal=journal, listeners=[seen])
        shown = resumed.resume(journal.current_game())
        # A recorder or a view learns the resumed game from its journaled events.
        assert seen.events == list(journal.events())
        assert journal.count() == 5  # nothing appended twice
    assert shown is not None
    assert isinstance(shown[-1], Notice) and shown[-1].key == RESUMED.key
    assert shown[-2] == [s for s in before if isinstance(s, Turn)][-1] == Turn(1, EXPECT_ROLL)


def test_nothing_to_resume_after_a_finished_or_empty_journal(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        assert TablePipeline(Referee(), journal=journal).resume(journal.current_game()) is None


@pytest.mark.parametrize("expect", ["roll", "roll_again"])
def test_camera_lost_dice_come_from_the_roll_button_and_done(expect: str) -> None:
    mode = CameraLostMode(dice_count=2)
    events, signals = mode.button(ButtonPressed("roll", 0, t=1.0), expect)
    assert events == [] and len(signals) == 1
    proposed = mode.proposed
    assert len(proposed) == 2 and all(1 <= v <= 6 for v in proposed)
    assert " ".join(map(str, proposed)) in signals[0].reason.text("de")
    events, signals = mode.button(ButtonPressed("done", 0, t=2.0), "roll")
    assert events == [DiceObserved(proposed, t=2.0)]


def test_input_held_far_too_long_is_stuck_once() -> None:
    stuck = StuckInputFilter(stuck_after_s=5.0)
    notices = [stuck.watch(TRAY, True, 0.5 * i) for i in range(30)]
    found = [n for n in notices if n is not None]
    assert len(found) == 1 and found[0].key == SENSOR_STUCK.key
    assert notices.index(found[0]) == 10  # 5 s after it became active
    assert stuck.admit(DieThrown(t=100.0)) == (False, None)
    # A throw that shakes the tray for a second is not stuck.
    normal = StuckInputFilter(stuck_after_s=5.0)
    key = ("ButtonPressed", "undo", None)
    assert all(normal.watch(key, i % 4 != 3, 0.5 * i) is None for i in range(40))


def test_skipping_still_frames_changes_no_signal() -> None:
    """The same players' game read frame by frame and with still frames skipped: the same
    signals in the same order, with far fewer frames read."""

    def run(skip: bool) -> tuple[list[object], GameVision]:
        calibration = FrameCalibration(measured_camera_heights(6, (1280, 720)))
        vision = GameVision(0.3, calibration, skip_still_frames=skip)
        seen = Collector()
        pipeline = TablePipeline(Referee(), vision, listeners=[seen])
        habits = Habits(illegal_rate=0.3, hand_rate=0.5, cocked_rate=0.2, stray_dice_rate=0.0)
        table = SimulatedTable("backgammon", "standard", 2, seed=6, habits=habits)
        session = SimulatedSession([table], SceneRenderer(1280, 720, seed=6))
        for frames, item in enumerate(session.items()):
            if frames >= 400:
                break
            if isinstance(item, Frame):
                signals = pipeline.feed_frame(item.t, item.image)
            else:
                signals = pipeline.handle(item)
            session.on_signals(signals)
        return seen.signals, vision

    every, read_all = run(False)
    skipped, gated = run(True)
    assert len(every) > 20
    assert skipped == every
    assert gated.frames_read < read_all.frames_read / 3


def test_the_simulated_table_is_calibrated_with_its_mounts_measured_height() -> None:
    """As a builder measures the lens's height with a tape (docs/calibration.md), the simulated
    table tells its calibration each mount's height to the centimetre; told nothing, the
    calibration assumes the 650 mm of a table whose builder did not measure."""
    size = (640, 360)
    heights = {seed: measured_camera_heights(seed, size) for seed in (2, 3)}
    for seed, measured in heights.items():
        for game, height in measured.items():
            true_height = simulated_mount(seed, game, size).position[2]
            assert abs(height - true_height) <= 5 and height % 10 == 0
    assert heights[2] != heights[3]
    start = MaednBoard(((-1,) * 4,) * 4)
    image = SceneRenderer(*size, seed=3)(Scene(start))
    event = NewGame("maedn", "hofer", 4)
    assert FrameCalibration(heights[3])(event, image).camera_height_mm == heights[3]["maedn"]
    assert FrameCalibration()(event, image).camera_height_mm == DEFAULT_CAMERA_HEIGHT_MM


def test_a_game_of_a_match_starts_with_the_score_and_the_crawford_game_is_named() -> None:
    """The display says the score when a game of a match starts, and that the Crawford game
    allows no double; outside a match it says nothing of the kind."""
    config = table_config.Config()
    app = TableApp(config, TablePipeline(Referee()), simulation=SimulatedSession([]))
    first = app.handle(NewGame("backgammon", "standard", 2, match_length=3))
    assert [s.key for s in first if isinstance(s, Notice)] == [MATCH_SCORE.key]
    assert first[-1].reason.de == "Stand 0:0 (Match bis 3)"
    single = app.handle(NewGame("backgammon", "standard", 2))
    assert not [s for s in single if isinstance(s, Notice)]
    crawford = Match(length=3, score=(2, 0), crawford_game=True, crawford_done=True)
    said = [n.reason.text("en") for n in match_notices(crawford)]
    assert said == ["Score 2:0 (match to 3)", "Crawford game: no doubling"]
    assert all(len(page) == 4 for n in match_notices(crawford) for page in pages_for(n) or ())


def _mensch_table_with_camera() -> tuple[SceneRenderer, GameVision, TablePipeline, MaednBoard]:
    """A two-seat Mensch game at a 960×540 camera calibrated from its own frames: the renderer,
    the table's vision, its pipeline and the start position."""
    size = (960, 540)
    vision = GameVision(0.2, FrameCalibration(measured_camera_heights(4, size)))
    pipeline = TablePipeline(Referee(), vision=vision)
    pipeline.handle(NewGame("maedn", "hofer", 2))
    return SceneRenderer(*size, seed=4), vision, pipeline, MaednBoard(((-1,) * 4, (-1,) * 4))


def test_the_pieces_are_learned_again_from_boards_the_referee_holds_when_the_light_changed(
) -> None:
    """A frame showing the position the referee holds is a labelled frame: the game's first
    one renews what the calibration learned, a later one only when the light has changed, and
    the table reads on with the renewed calibration; a board the referee does not hold (a
    piece moved before any roll) never teaches it."""
    render, vision, pipeline, start = _mensch_table_with_camera()
    t = 0.0

    def show(scene: Scene, frames: int = 4) -> None:
        nonlocal t
        image = render(scene)
        for _ in range(frames):
            pipeline.feed_frame(t, image)
            t += 0.1

    show(Scene(start))
    assert pipeline.observations.board == start and vision.refreshed == 1
    first = vision.reader.calib if vision.reader is not None else None
    show(Scene(start, hand=True))
    show(Scene(start))  # seen again in the same light: nothing to learn
    assert vision.refreshed == 1
    show(Scene(start, hand=True))
    moved = MaednBoard(((-1, -1, -1, 0), (-1,) * 4))
    show(Scene(moved, light=0.6))  # not the position the referee holds
    assert pipeline.observations.board == moved and vision.refreshed == 1
    show(Scene(start, light=0.6))  # the piece put back, in another light
    assert vision.refreshed == 2 and vision.reader is not None
    assert vision.reader.calib is not first
    assert vision.reader.read(render(Scene(start, light=0.6))).board == start


def test_a_bumped_camera_finds_the_board_again_from_the_position_the_referee_holds() -> None:
    """The camera turned by a knock far beyond what the frame aligner straightens: the frames
    say the board moved (blocked, not misread) until the table, once the board stayed lost a
    while, finds it again in a frame showing the position the referee holds and reads on with
    the empty board it learned. A frame of another position (pieces moved meanwhile) does not
    calibrate it."""
    render, vision, pipeline, start = _mensch_table_with_camera()
    t = 0.0

    said: list[str] = []

    def show(scene: Scene, frames: int, step: float = 0.5) -> list[Observation]:
        nonlocal t
        image = render(scene)
        seen = []
        for _ in range(frames):
            said.extend(s.reason.key for s in pipeline.feed_frame(t, image)
                        if isinstance(s, Notice))
            seen.append(vision.last)
            t += step
        return seen

    show(Scene(start), 4)
    assert pipeline.observations.board == start and vision.reader is not None
    first = vision.reader.calib
    camera = render._cameras["maedn"]
    render._cameras["maedn"] = dataclasses.replace(
        camera, yaw=camera.yaw + 0.06, position=(camera.position[0] + 25.0,
                                                 *camera.position[1:]))
    moved_piece = MaednBoard(((-1, -1, -1, 0), (-1,) * 4))
    seen = show(Scene(moved_piece), 8)  # 3.5 s lost, but not the position the referee holds
    assert all(o.blocked and o.problem == MOVED for o in seen)
    assert vision.found_again == 0 and vision.reader.calib is first
    assert said == [BOARD_MOVED.key]  # once, after 2 s: put the pieces back
    seen = show(Scene(start), 30)  # 10 s later the search is tried again
    assert vision.found_again == 1 and vision.reader.calib is not first
    assert said == [BOARD_MOVED.key, BOARD_FOUND.key]
    assert vision.reader.calib.empty is first.empty  # the empty board learned stays
    assert seen[-1].board == start and pipeline.observations.board == start
    assert vision.reader.read(render(Scene(moved_piece))).board == moved_piece
