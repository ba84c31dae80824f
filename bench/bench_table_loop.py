"""The whole table loop: frames through vision and the referee to the seat LEDs and the display.

Tables for docs/table-benchmarks.md:

* latency from the last frame of a move (the board has just held for the settle time) to the
  seat LED's pin and to the display frame on the serial line (goal: settle time + at most
  50 ms); the player pressed done while the hand was still over the board, so the play is
  judged the moment the board is stable;
* frames per second the loop sustains at 1280×720 on one core (goal >= 30), and the CPU share it
  uses at the camera's 15 frames per second;
* simulated evenings through rendered frames: injected illegal moves flagged, legal moves
  flagged, games lost, rolls read wrong (`SPIELTISCH_BENCH_GAMES` games per game; default 1,
  because a four-player Mensch game through rendered frames takes minutes; the issue's 20 per
  game is a long run: `SPIELTISCH_BENCH_GAMES=20 python -m bench bench_table_loop`).

Rendering is not part of the loop (a camera delivers frames): frames are rendered beforehand.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import cv2

from bench.timing import print_table, summary
from controller import config as table_config
from controller.config import SimulatedGame
from controller.referee import Referee
from controller.rules import maedn
from controller.sim.camera import Scene, SceneRenderer, measured_camera_heights
from controller.sim.session import SessionStats, SimulatedSession
from controller.sim.table import Habits, SimulatedTable
from controller.table.app import TableApp
from controller.table.camera_frames import Frame
from controller.table.display_board import EmulatedDisplayBoard
from controller.table.game_vision import FrameCalibration, GameVision
from controller.table.outputs import TableOutputs
from controller.table.pipeline import TablePipeline
from controller.table.wiring import pin_factory
from controller.words.buttons import Button
from controller.words.events import ButtonPressed, ElectronicRoll, NewGame
from controller.words.signals import PlayAccepted, Turn
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink
from hardware.pinmap import load_pinmap

SIZE = (1280, 720)
FPS = 30.0
SETTLE_S = 0.3
LATENCY_SAMPLES = 40


def _calibration(seed: int, size: tuple[int, int] = SIZE) -> FrameCalibration:
    """Calibration as the simulated table makes it: its mount's height, measured."""
    return FrameCalibration(measured_camera_heights(seed, size))


@contextlib.contextmanager
def _table(game: str, seed: int, skip_still: bool = False) -> Any:
    """Referee, real vision (calibrated for the simulated mount of `seed`), mock-pin LEDs and
    the display link to the emulated board.

    `skip_still` turns on the table's change gate (frames in which nothing moved keep the last
    reading); off, every frame is read: the worst case, a board that never holds still.
    """
    config = dataclasses.replace(
        table_config.Config(), game=table_config.GameConfig(game, "vegas", 2)
    )
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        board = EmulatedDisplayBoard(Path(folder))
        stack.callback(board.close)
        link = DisplayLink(str(board.port))
        link.start()
        stack.callback(link.close)
        devices = stack.enter_context(TableDevices(load_pinmap(None), pin_factory("mock")))
        outputs = TableOutputs(config, devices, link)
        pipeline = TablePipeline(
            Referee(), GameVision(SETTLE_S, _calibration(seed), skip_still),
            listeners=[outputs],
        )
        if not link.wait_synced(5.0):
            raise RuntimeError("the emulated display board did not answer")
        yield pipeline, outputs, link, devices


def _latency(skip_still: bool) -> list[list[Any]]:
    """Mensch `vegas` (the electronic die), so every sample is a judged move."""
    seed = 3
    render = SceneRenderer(*SIZE, seed=seed)
    opts = maedn.Options.preset("vegas")
    samples_led: list[float] = []
    samples_display: list[float] = []
    frame_ms: list[float] = []
    with _table("maedn", seed, skip_still) as (pipeline, outputs, link, devices):
        pos = maedn.Position.initial(opts, players=2)
        t = 0.0
        pipeline.handle(NewGame("maedn", "vegas", 2, t=t), "table")
        frames: dict[Scene, Any] = {}

        def feed(scene: Scene, count: int) -> list[Any]:
            nonlocal t
            image = frames.get(scene)
            if image is None:
                image = frames.setdefault(scene, render(scene))
            out: list[Any] = []
            for _ in range(count):
                t += 1.0 / FPS
                signals = pipeline.feed_frame(t, image)
                outputs.show(signals)
                out += signals
            return out

        feed(Scene(pos.to_board()), 12)
        rng = random.Random(5)
        while len(samples_led) < LATENCY_SAMPLES:
            if pos.is_over():
                pos = maedn.Position.initial(opts, players=2)
                pipeline.handle(NewGame("maedn", "vegas", 2, t=t), "table")
                feed(Scene(pos.to_board()), 12)
            seat = pos.turn
            die = rng.randint(1, 6)
            outputs.show(pipeline.handle(ButtonPressed(Button.ROLL, seat, t=t)))
            outputs.show(pipeline.handle(_roll(die, t)))
            moves = pos.legal_plays(die)
            if not moves:
                pos = pos.apply(None, die)
                continue
            after = pos.apply(moves[0], die)
            feed(Scene(pos.to_board(), hand=True), 3)
            outputs.show(pipeline.handle(ButtonPressed(Button.DONE, seat, t=t)))
            board = Scene(after.to_board())
            image = frames.get(board)
            if image is None:
                image = frames.setdefault(board, render(board))
            link.wait_synced(1.0)
            led = devices.seat_leds[after.turn]
            for _ in range(round(2 * SETTLE_S * FPS)):
                sent = link.stats.frames_sent
                start = time.perf_counter()
                t += 1.0 / FPS
                signals = pipeline.feed_frame(t, image)
                outputs.show(signals)
                led_at = time.perf_counter()
                lit = led.is_lit
                if any(isinstance(s, PlayAccepted) for s in signals):
                    break
            else:
                raise RuntimeError("the move was not judged once the board was stable")
            frame_ms.append((led_at - start) * 1000)
            while link.stats.frames_sent == sent and time.perf_counter() - start < 1.0:
                time.sleep(0.0002)
            samples_display.append((time.perf_counter() - start) * 1000)
            if after.turn != seat and lit and Turn(after.turn, "roll") in signals:
                samples_led.append((led_at - start) * 1000)
            pos = after
            feed(board, 2)
    rows = []
    for name, samples in (("frame read, judged, LEDs set (every move)", frame_ms),
                          ("next seat's LED pin lit", samples_led),
                          ("display frame on the serial line", samples_display)):
        median, p99 = summary(samples)
        how = "still frames skipped" if skip_still else "every frame read"
        rows.append([f"{name}, {how}", len(samples), median, p99, SETTLE_S * 1000 + p99])
    return rows


def _roll(value: int, t: float) -> Any:
    return ElectronicRoll(value=value, t=t)


def _players(game: SimulatedGame, seed: int, illegal: float, hand: float,
             cocked: float) -> SimulatedTable:
    habits = Habits(illegal_rate=illegal, hand_rate=hand, cocked_rate=cocked,
                    stray_dice_rate=0.0, purposeful=True)
    return SimulatedTable(game.game, game.variant, game.players, seed, habits)


def _rendered_game(game: SimulatedGame, count: int, seed: int) -> list[Frame]:
    """The first `count` frames of a simulated game at 1280×720 (rendered here, read in the
    loop)."""
    frames: list[Frame] = []
    sim = SimulatedSession([_players(game, seed, 0.1, 0.3, 0.0)],
                           SceneRenderer(*SIZE, seed=seed), fps=15)
    pipeline = TablePipeline(Referee(), GameVision(SETTLE_S, _calibration(seed)))
    for item in sim.items():
        if isinstance(item, Frame):
            frames.append(item)
            signals = pipeline.feed_frame(item.t, item.image)
            if len(frames) >= count:
                break
        else:
            signals = pipeline.handle(item)
        sim.on_signals(signals)
    return frames


def _throughput(game: SimulatedGame, skip_still: bool) -> tuple[list[Any], list[Any]]:
    seed = 7
    frames = _rendered_game(game, 300, seed=seed)
    name = f"{game}, {'still frames skipped' if skip_still else 'every frame read'}"
    with _table(game.game, seed, skip_still) as (pipeline, outputs, _link, _devices):
        pipeline.handle(NewGame(game.game, game.variant, game.players, t=0.0), "table")
        times = []
        for frame in frames:
            start = time.perf_counter()
            outputs.show(pipeline.feed_frame(frame.t, frame.image))
            times.append((time.perf_counter() - start) * 1000)
        median, p99 = summary(times)
        fps = 1000.0 / statistics.fmean(times)
        loop = [name, len(times), median, p99, fps]
        pipeline.handle(NewGame(game.game, game.variant, game.players, t=0.0), "table")
        period = 1.0 / 15
        cpu0, wall0 = time.process_time(), time.perf_counter()
        due = wall0
        for frame in frames[:150]:
            outputs.show(pipeline.feed_frame(frame.t, frame.image))
            due += period
            time.sleep(max(0.0, due - time.perf_counter()))
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        share = [name, 150, wall, cpu, 100.0 * cpu / wall]
    return loop, share


def _evening_game(args: tuple[SimulatedGame, int, tuple[int, int]]) -> Any:
    cv2.setNumThreads(1)
    game, seed, size = args
    die = random.Random(seed)
    pipeline = TablePipeline(
        Referee(),
        GameVision(SETTLE_S, _calibration(seed, size)),
        electronic_die=lambda: die.randint(1, 6),
    )
    session = SimulatedSession([_players(game, seed, 0.1, 0.2, 0.05)],
                               SceneRenderer(*size, seed=seed), fps=15, max_turns=3000)
    config = dataclasses.replace(
        table_config.Config(), display=table_config.DisplayConfig(port="none")
    )
    start = time.perf_counter()
    TableApp(config, pipeline, simulation=session).run()
    return session.stats, time.perf_counter() - start


def _evenings(games_per_kind: int) -> list[list[Any]]:
    rows = []
    kinds = (
        (SimulatedGame("backgammon", "standard", 2), SIZE),
        (SimulatedGame("maedn", "hofer", 4), SIZE),
    )
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for game, size in kinds:
            jobs = [(game, 100 + seed, size) for seed in range(games_per_kind)]
            results = []
            # Twenty four-player games take the better part of an hour: say how far it got.
            for done in as_completed([pool.submit(_evening_game, job) for job in jobs]):
                results.append(done.result())
                stats, seconds = results[-1]
                print(f"  {game}: game {len(results)} of {len(jobs)} in {seconds:.0f} s, "
                      f"{stats.tally.flagged.total()} of {stats.tally.injected.total()} "
                      f"illegal flagged, {stats.tally.wrongly_flagged} legal flagged, "
                      f"{stats.lost} lost", file=sys.stderr, flush=True)
            total = SessionStats()
            for stats, _ in results:
                total.games += stats.games
                total.finished += stats.finished
                total.lost += stats.lost
                total.frames += stats.frames
                total.tally.add(stats.tally)
            t = total.tally
            injected, flagged = t.injected.total(), t.flagged.total()
            rows.append([
                f"{game} at {size[0]}×{size[1]}", total.games, total.finished, total.lost,
                injected, flagged, f"{100.0 * flagged / injected:.1f} %" if injected else "-",
                t.wrongly_flagged, f"{t.rolls} ({t.dice_misread})",
                f"{t.rerolls} ({t.needless_rerolls})", total.frames,
                statistics.median(r[1] for r in results),
            ])
    return rows


def main() -> None:
    cv2.setNumThreads(1)
    print(f"one core for vision (cv2.setNumThreads(1)); {threading.active_count()} threads\n")
    print_table(
        "Last frame of a move → seat LED and display frame (Mensch, 1280×720, 30 fps)",
        ["step", "samples", "median ms", "p99 ms", "settle + p99 ms"],
        _latency(False) + _latency(True),
    )
    loops, shares = [], []
    for game in (SimulatedGame("backgammon", "standard", 2), SimulatedGame("maedn", "hofer", 4)):
        for skip_still in (False, True):
            loop, share = _throughput(game, skip_still)
            loops.append(loop)
            shares.append(share)
    print_table(
        "Whole loop per 1280×720 frame (vision, stabilizer, referee, LEDs, display link)",
        ["game", "frames", "median ms", "p99 ms", "frames/s sustained"],
        loops,
    )
    print_table(
        "CPU share of the loop at 15 frames per second (1280×720)",
        ["game", "frames", "wall s", "CPU s", "CPU %"],
        shares,
    )
    games = int(os.environ.get("SPIELTISCH_BENCH_GAMES", "1"))
    if games <= 0:
        print("simulated evenings skipped (SPIELTISCH_BENCH_GAMES=0)")
        return
    print_table(
        f"Simulated evenings through rendered frames ({games} games per game)",
        ["games", "played", "finished", "lost", "illegal injected", "flagged", "flagged %",
         "legal flagged", "rolls (read wrong)", "re-rolls (no die cocked)", "frames",
         "median s per game"],
        _evenings(games),
    )
