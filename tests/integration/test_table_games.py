"""Whole games at the simulated table, through rendered camera frames and the real vision.

Bots play one `standard` backgammon game and one four-player `hofer` Mensch game, with illegal
moves of every kind the rule texts name, hands over the board and cocked dice; the real frame
reader, stabilizer and referee must flag every illegal move and nothing else. Frames are rendered
at the table camera's 1280×720 (at 960×540 dice are 20 pixels wide and read wrong far more often).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from controller import config as table_config
from controller.config import SimulatedGame
from controller.frame_source import SceneRenderer, SimulatedTable, measured_camera_heights
from controller.referee import Referee
from controller.table_app import FrameCalibration, GameVision, TableApp, TablePipeline
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


def _play(game: SimulatedGame, size: tuple[int, int], seed: int, illegal: float, hand: float,
          cocked: float) -> tuple[Any, Collector]:
    config = dataclasses.replace(
        table_config.Config(), display=table_config.DisplayConfig(port="none")
    )
    seen = Collector()
    calibration = FrameCalibration(measured_camera_heights(seed, size))
    pipeline = TablePipeline(Referee(), GameVision(0.3, calibration), listeners=[seen])
    table = SimulatedTable(
        (game,), SceneRenderer(*size, seed=seed), fps=15, settle_s=0.3, seed=seed,
        illegal_rate=illegal, hand_rate=hand, cocked_rate=cocked, max_turns=3000,
    )
    app = TableApp(config, pipeline, simulation=table)
    app.run()
    return table.stats, seen


def _check(stats: Any, seen: Collector, cocked_flagged: float) -> None:
    assert stats.finished == 1 and stats.lost == 0, stats.lost_games
    assert stats.illegal_injected >= 3
    assert stats.illegal_flagged == stats.illegal_injected
    assert stats.illegal_missed == 0
    assert stats.legal_flagged == 0
    illegal = [s for s in seen.signals if isinstance(s, Illegal)]
    assert len(illegal) == stats.illegal_injected
    assert all(s.reason_de and s.reason_en and s.reason_de != s.reason_en for s in illegal)
    assert stats.hands > 0 and any(isinstance(e, ViewBlocked) for e in seen.events)
    assert stats.cocked > 0
    # A cocked die the reader takes for a flat one is read with a value (issue 5: the cocked
    # check flags nearly all rendered cocked dice on the backgammon felt and most on the Mensch
    # board; the bounds are the reached levels); a flat die taken for a cocked one, or read with
    # less than the table's 60 %, asks for a needless re-roll now and then: since the dice are
    # drawn as cubes (side faces showing), 9 in the backgammon game's 140 rolls.
    rerolls = sum(isinstance(s, Reroll) for s in seen.signals)
    assert cocked_flagged * stats.cocked <= rerolls <= stats.cocked + 0.08 * stats.rolls
    # The simulation's own count: every re-roll asked for, those of throws with no die cocked.
    assert stats.rerolls == rerolls
    assert stats.rerolls - stats.needless_rerolls <= stats.cocked
    assert stats.needless_rerolls <= 0.08 * stats.rolls
    # Rolls read with other values than thrown: the table judges by what it read.
    assert stats.dice_misread <= 0.05 * stats.rolls
    assert sum(isinstance(s, PlayAccepted) for s in seen.signals) == stats.plays
    assert isinstance([s for s in seen.signals if isinstance(s, GameOver)][-1], GameOver)


def test_standard_backgammon_game_through_rendered_frames() -> None:
    stats, seen = _play(SimulatedGame("backgammon", "standard", 2), (1280, 720), seed=11,
                        illegal=0.15, hand=0.3, cocked=0.15)
    _check(stats, seen, cocked_flagged=0.8)
    over = [s for s in seen.signals if isinstance(s, GameOver)][-1]
    assert over.result in ("single", "gammon", "backgammon")


def test_four_player_hofer_mensch_game_through_rendered_frames() -> None:
    stats, seen = _play(SimulatedGame("maedn", "hofer", 4), (1280, 720), seed=103,
                        illegal=0.1, hand=0.2, cocked=0.05)
    _check(stats, seen, cocked_flagged=0.75)  # measured 28 re-rolls for 29 (14 for 27 before)
    over = [s for s in seen.signals if isinstance(s, GameOver)][-1]
    assert len(over.order) >= 3 and len(set(over.order)) == len(over.order)
    assert set(over.order) <= {0, 1, 2, 3}
