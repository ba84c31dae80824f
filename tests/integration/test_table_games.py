"""Whole games at the simulated table, through rendered camera frames and the real vision.

Simulated players play one `standard` backgammon game and one four-player `hofer` Mensch game,
with illegal moves of every kind the rule texts name, hands over the board and cocked dice; the
real frame reader, stabilizer and referee must flag every illegal move and nothing else. Frames
are rendered at the table camera's 1280×720 (at 960×540 dice are 20 pixels wide and read wrong
far more often).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from controller import config as table_config
from controller.referee import Referee
from controller.sim.camera import SceneRenderer, measured_camera_heights
from controller.sim.session import SimulatedSession
from controller.sim.table import Habits, SimulatedTable
from controller.table.app import TableApp
from controller.table.game_vision import FrameCalibration, GameVision
from controller.table.pipeline import TablePipeline
from controller.words.events import ViewBlocked
from controller.words.signals import GameOver, Illegal, PlayAccepted, Reroll
from tests.integration.table_harness import Collector

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "vision" / "models" / "dice_detector.onnx"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not MODEL.exists(),
        reason=f"needs the dice model {MODEL.relative_to(ROOT)} (vision/dice.py)",
    ),
]


def _play(game: str, variant: str, players: int, size: tuple[int, int], seed: int,
          illegal: float, hand: float, cocked: float) -> tuple[Any, Collector]:
    config = dataclasses.replace(
        table_config.Config(), display=table_config.DisplayConfig(port="none")
    )
    seen = Collector()
    calibration = FrameCalibration(measured_camera_heights(seed, size))
    pipeline = TablePipeline(Referee(), GameVision(0.3, calibration), listeners=[seen])
    # no cube and no undo: every game plays to its end on the board, as many moves as it takes
    habits = Habits(illegal_rate=illegal, hand_rate=hand, cocked_rate=cocked, stray_dice_rate=0.0,
                    double_rate=0.0, undo_rate=0.0, purposeful=True)
    table = SimulatedTable(game, variant, players, seed, habits)
    session = SimulatedSession([table], SceneRenderer(*size, seed=seed), fps=15, settle_s=0.3,
                               max_turns=3000)
    app = TableApp(config, pipeline, simulation=session)
    app.run()
    return session.stats, seen


def _check(stats: Any, seen: Collector, cocked_flagged: float) -> None:
    assert stats.finished == 1 and stats.lost == 0, stats.lost_games
    tally = stats.tally
    injected = tally.injected.total()
    assert injected >= 3
    assert tally.flagged.total() == injected
    assert tally.missed.total() == 0
    assert tally.wrongly_flagged == 0
    illegal = [s for s in seen.signals if isinstance(s, Illegal)]
    assert len(illegal) == injected
    assert all(s.reason.de and s.reason.en and s.reason.de != s.reason.en for s in illegal)
    assert tally.hands > 0 and any(isinstance(e, ViewBlocked) for e in seen.events)
    assert tally.cocked > 0
    # A cocked die the reader takes for a flat one is read with a value (issue 5: the cocked
    # check flags nearly all rendered cocked dice on the backgammon felt and most on the Mensch
    # board; the bounds are the reached levels); a flat die taken for a cocked one, or read with
    # less than the table's 60 %, asks for a needless re-roll now and then: since the dice are
    # drawn as cubes (side faces showing), 9 in the backgammon game's 140 rolls.
    rerolls = sum(isinstance(s, Reroll) for s in seen.signals)
    assert cocked_flagged * tally.cocked <= rerolls <= tally.cocked + 0.08 * tally.rolls
    # The players' own count: every re-roll asked for, those of throws with no die cocked.
    assert tally.rerolls == rerolls
    assert tally.rerolls - tally.needless_rerolls <= tally.cocked
    assert tally.needless_rerolls <= 0.08 * tally.rolls
    # Rolls read with other values than thrown: the table judges by what it read.
    assert tally.dice_misread <= 0.05 * tally.rolls
    assert sum(isinstance(s, PlayAccepted) for s in seen.signals) == tally.plays
    assert isinstance([s for s in seen.signals if isinstance(s, GameOver)][-1], GameOver)


def test_standard_backgammon_game_through_rendered_frames() -> None:
    stats, seen = _play("backgammon", "standard", 2, (1280, 720), seed=11,
                        illegal=0.15, hand=0.3, cocked=0.15)
    _check(stats, seen, cocked_flagged=0.8)
    over = [s for s in seen.signals if isinstance(s, GameOver)][-1]
    assert over.result in ("single", "gammon", "backgammon")


def test_four_player_hofer_mensch_game_through_rendered_frames() -> None:
    # Seed 121: 493 throws played without vision, the shortest of seeds 100-130 (median 653;
    # seed 103, used before, was the longest with 1149 and cost 10 of the suite's 20 minutes).
    stats, seen = _play("maedn", "hofer", 4, (1280, 720), seed=121,
                        illegal=0.1, hand=0.2, cocked=0.05)
    _check(stats, seen, cocked_flagged=0.75)  # seed 103 reached 28 re-rolls for 29 cocked throws
    over = [s for s in seen.signals if isinstance(s, GameOver)][-1]
    assert len(over.order) >= 3 and len(set(over.order)) == len(over.order)
    assert set(over.order) <= {0, 1, 2, 3}
