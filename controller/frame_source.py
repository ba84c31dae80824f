"""Where the table's frames come from: a real camera, or bots whose game is rendered.

`CameraFrames` wraps `hardware.camera` and reports a lost camera instead of raising, so the
table keeps playing with buttons. `SimulatedTable` is hardware in the loop without a table: bots
play by reacting to the referee's signals exactly as people would (throw when the LED says so,
move, press done, put the pieces back after an illegal move), now and then on purpose
illegally, with a hand over the board or a cocked die; each state of their game is drawn by the
vision renderer into camera frames, which the real vision pipeline then reads.
"""

from __future__ import annotations

import logging
import os
import random
import signal as os_signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from controller.config import GAMES, SimulatedGame
from controller.words.buttons import Button
from controller.words.events import (
    BackgammonBoard,
    Board,
    ButtonPressed,
    DieThrown,
    Event,
    MaednBoard,
    NewGame,
)
from controller.words.signals import (
    EXPECT_CORRECT,
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_ROLL_AGAIN,
    EXPECT_SETUP,
    BoardDiffers,
    DiceAccepted,
    GameOver,
    Illegal,
    PlayAccepted,
    Reroll,
    Signal,
    Turn,
)

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)


def electronic_die_game(event: NewGame) -> bool:
    """Mensch `vegas` plays with the electronic die: dice lying on the board are not a roll."""
    return event.game == "maedn" and event.variant == "vegas"


@dataclass(frozen=True, slots=True)
class Frame:
    """One camera frame and the table time it was taken at (seconds)."""

    t: float
    image: np.ndarray


@dataclass(frozen=True, slots=True)
class Scene:
    """What the camera would see: the board, the dice lying on it, a hand over it or not."""

    board: Board
    dice: tuple[int, ...] = ()
    cocked: tuple[bool, ...] = ()
    hand: bool = False
    throw: int = 0  # which throw the dice come from: each throw lands them somewhere else


Renderer = Callable[[Scene], "np.ndarray"]


class CameraFrames:
    """Frames from `hardware.camera` with table-time stamps; `read()` returns None when lost.

    Opening is retried on every read after a loss, at most once a second, so a camera plugged
    back in is found again without a restart.
    """

    def __init__(self, opener: Callable[[], Any], clock: Callable[[], float] = time.time):
        self._opener = opener
        self._clock = clock
        self._camera: Any | None = None
        self._next_try = 0.0
        self._last_t = 0.0
        self.lost = False

    def read(self) -> Frame | None:
        if self._camera is None:
            now = self._clock()
            if now < self._next_try:
                return None
            self._next_try = now + 1.0
            try:
                self._camera = self._opener()
            except Exception as exc:  # any driver error means: no camera now
                self._mark_lost(f"cannot open the camera: {exc}")
                return None
        try:
            image = self._camera.read()
        except Exception as exc:  # a pulled USB cable surfaces as many exception types
            image = None
            log.debug("camera read failed: %s", exc)
        if image is None or getattr(image, "size", 0) == 0:
            self._mark_lost("the camera delivered no frame")
            self.close()
            return None
        if self.lost:
            log.warning("camera is back")
        self.lost = False
        # Table time never runs backwards for vision, even when the wall clock is corrected.
        self._last_t = max(self._last_t, self._clock())
        return Frame(self._last_t, image)

    def _mark_lost(self, why: str) -> None:
        if not self.lost:
            log.warning("%s", why)
        self.lost = True

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.close()
            except Exception as exc:  # closing a vanished device may fail; nothing to save
                log.debug("closing the camera: %s", exc)


@dataclass
class SimulationStats:
    """What a simulated evening proved: every injected illegal move flagged, nothing else."""

    games: int = 0
    finished: int = 0
    lost: int = 0
    plays: int = 0
    illegal_injected: int = 0
    illegal_flagged: int = 0
    illegal_missed: int = 0
    legal_flagged: int = 0
    hands: int = 0
    cocked: int = 0
    rolls: int = 0  # throws of physical dice
    dice_misread: int = 0  # rolls the table accepted with other values than those thrown
    rerolls: int = 0  # throws the table asked to be made again
    needless_rerolls: int = 0  # of those, throws with no die cocked (a face read as unsure)
    frames: int = 0
    lost_games: list[str] = field(default_factory=list)
    illegal_kinds: dict[str, int] = field(default_factory=dict)

    def merge(self, other: SimulationStats) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, int):
                setattr(self, name, value + getattr(other, name))
        self.lost_games += other.lost_games
        for kind, n in other.illegal_kinds.items():
            self.illegal_kinds[kind] = self.illegal_kinds.get(kind, 0) + n


@dataclass(frozen=True, slots=True)
class _Show:
    scene: Scene
    frames: int


@dataclass(frozen=True, slots=True)
class _Press:
    event: Event


class GameBots:
    """The players of one game: they only know what the table tells them and what they see."""

    def __init__(self, game: SimulatedGame, rng: random.Random, rates: dict[str, float]):
        self.game = game
        self.rng = rng
        self.rates = rates
        if game.game == "backgammon":
            from controller.rules import backgammon as bg

            self._bg = bg
            self.options = bg.Options.preset(game.variant)
            self.board: Board = bg.Position.initial(self.options).to_board()
        else:
            from controller.rules import maedn

            self._maedn = maedn
            self.options = maedn.Options.preset(game.variant)
            self.board = maedn.Position.initial(self.options, players=game.players).to_board()
        self.dice: tuple[int, ...] = ()  # the dice the table accepted: the bots play these
        self.thrown: tuple[int, ...] = ()  # the dice lying on the table
        self.throws = 0  # physical throws so far: the renderer lands each one elsewhere
        self.before: Board = self.board
        self.injected = False
        self.correcting = False
        self.flagged: Board | None = None  # the board the table last called illegal
        self.over = False

    @property
    def electronic_die(self) -> bool:
        return electronic_die_game(NewGame(self.game.game, self.game.variant))

    def scene(self, hand: bool = False, cocked: tuple[bool, ...] = ()) -> Scene:
        dice = () if self.electronic_die else self.thrown
        tilted = cocked or tuple(False for _ in dice)
        return Scene(self.board, dice, tilted, hand, throw=self.throws)

    def legal_boards(self, seat: int) -> list[Board]:
        """Every board a legal play of `seat` with the accepted dice leaves."""
        if self.game.game == "backgammon":
            pos = self._bg_position(seat)
            return [pos.apply(play).to_board() for play in pos.legal_plays(tuple(self.dice))]
        pos = self._maedn_position(seat)
        die = self.dice[0]
        return [pos.apply(move, die).to_board() for move in pos.legal_plays(die)]

    def choose(self, seat: int, boards: list[Board], rng: random.Random) -> Board:
        """The play a bot makes. Mensch bots play with purpose, as people do (capture, run the
        leading piece home): four random players take several times as many turns to finish,
        which an evening through rendered frames cannot afford. Backgammon bots play at random."""
        if self.game.game == "backgammon":
            return rng.choice(boards)

        def progress(board: Board) -> tuple[int, int]:
            assert isinstance(board, MaednBoard)
            mine = board.pieces[seat]
            theirs = sum(p + 1 for s, pcs in enumerate(board.pieces) if s != seat for p in pcs)
            return sum(p + 1 for p in mine) - theirs, max(mine)

        best = max(progress(b) for b in boards)
        return rng.choice([b for b in boards if progress(b) == best])

    def _bg_position(self, seat: int) -> Any:
        b = self.board
        assert isinstance(b, BackgammonBoard)
        return self._bg.Position.from_board(b, seat, self.options)

    def _maedn_position(self, seat: int) -> Any:
        assert isinstance(self.board, MaednBoard)
        board = self.board
        return self._maedn.Position.from_board(board, seat, self.options, players=self.game.players)

    def illegal_board(self, seat: int) -> tuple[str, Board] | None:
        """(kind, board) of an illegal play a careless player might leave, of any named kind."""
        from controller.sim.illegal import make_illegal

        if self.game.game == "backgammon":
            pos = self._bg_position(seat)
        else:
            pos = self._maedn_position(seat)
        return make_illegal(self.game.game, pos, tuple(self.dice), self.rng)


class SimulatedTable:
    """Bots play the configured games; `items()` yields rendered Frames and button Events.

    The table loop must call `on_signals` with the referee's answer to every item before it
    asks for the next one: the bots react to what the table shows, as players do.
    """

    def __init__(
        self,
        games: tuple[SimulatedGame, ...],
        render: Renderer,
        fps: float = 15.0,
        settle_s: float = 0.3,
        seed: int = 1,
        illegal_rate: float = 0.1,
        hand_rate: float = 0.2,
        cocked_rate: float = 0.05,
        max_turns: int = 600,
        speed: float = 0.0,
    ) -> None:
        self.games = games
        self.render = render
        self.fps = fps
        self.settle_frames = max(2, round(settle_s * fps) + 2)
        self.rng = random.Random(seed)
        self.rates = {"illegal": illegal_rate, "hand": hand_rate, "cocked": cocked_rate}
        self.max_turns = max_turns
        self.speed = speed
        self.stats = SimulationStats()
        self.t = 0.0
        self.bots: GameBots | None = None
        self._plan: list[_Show | _Press] = []
        self._cache: tuple[Scene, np.ndarray] | None = None
        self._last_turn: Turn | None = None
        self._turns = 0
        self._idle = 0
        self._cocked_throw = False  # whether the last physical throw had a die cocked
        self._started = time.monotonic()

    def items(self) -> Iterator[Frame | Event]:
        for game in self.games:
            yield from self._play(game)

    def _play(self, game: SimulatedGame) -> Iterator[Frame | Event]:
        self.bots = bots = GameBots(game, self.rng, self.rates)
        self.stats.games += 1
        self._plan = [_Show(bots.scene(), self.settle_frames)]
        self._last_turn = None
        self._turns = 0
        self._idle = 0
        yield NewGame(game=game.game, variant=game.variant, players=game.players, t=self.t)
        while not bots.over:
            if self.max_turns and self._turns > self.max_turns:
                self._give_up(f"{game}: more than {self.max_turns} turns")
                return
            if not self._plan:
                self._idle += 1
                if self._idle > 30 * self.fps:
                    self._give_up(f"{game}: the table expects nothing the bots can do")
                    return
                if self._idle % (5 * round(self.fps)) == 0:
                    self._unstick()
                yield self._frame(bots.scene())
                continue
            action = self._plan.pop(0)
            if isinstance(action, _Press):
                yield replace(action.event, t=self.t)  # type: ignore[type-var]
                continue
            for _ in range(action.frames):
                yield self._frame(action.scene)
        self.stats.finished += 1

    def _give_up(self, why: str) -> None:
        log.error("simulated game lost: %s", why)
        self.stats.lost += 1
        self.stats.lost_games.append(why)

    def _frame(self, scene: Scene) -> Frame:
        if self._cache is None or self._cache[0] != scene:
            self._cache = (scene, self.render(scene))
        frame = Frame(self.t, self._cache[1])
        self.t += 1.0 / self.fps
        self.stats.frames += 1
        if self.speed > 0:
            due = self._started + self.t / self.speed
            time.sleep(max(0.0, due - time.monotonic()))
        return frame

    def _unstick(self) -> None:
        """Nothing happened for a while: show the board again and press done, as a person would."""
        bots = self.bots
        if bots is None or self._last_turn is None:
            return
        log.info("bots idle at %s: showing the board again", self._last_turn)
        self._plan += [_Show(bots.scene(hand=True), 2), _Show(bots.scene(), self.settle_frames)]
        self._plan.append(_Press(ButtonPressed(Button.DONE, seat=self._last_turn.seat)))

    def on_signals(self, signals: list[Signal]) -> None:
        """The referee's answer to the last item: the bots plan what they do next."""
        bots = self.bots
        if bots is None or not signals:
            return
        self._idle = 0
        turn: Turn | None = None
        rethrown = False
        for signal in signals:
            match signal:
                case DiceAccepted():
                    bots.dice = tuple(signal.values)
                    if bots.thrown and sorted(bots.dice) != sorted(bots.thrown):
                        self.stats.dice_misread += 1
                        log.warning("dice %s read as %s", bots.thrown, bots.dice)
                case Illegal():
                    if bots.injected:
                        self.stats.illegal_flagged += 1
                    elif bots.flagged != bots.board:  # not the same wrong board named again
                        self.stats.legal_flagged += 1
                        log.warning("a legal play was flagged: %s", signal.reason_en)
                    bots.injected = False
                    bots.correcting = True
                    bots.flagged = bots.board
                case PlayAccepted():
                    self.stats.plays += 1
                    if bots.injected:
                        self.stats.illegal_missed += 1
                        log.warning("an injected illegal play was accepted: %s", signal)
                    bots.injected = False
                    bots.correcting = False
                case Reroll():
                    rethrown = True
                    self.stats.rerolls += 1
                    self.stats.needless_rerolls += not self._cocked_throw
                    self._throw(signal.seat)
                case GameOver():
                    bots.over = True
                case BoardDiffers() | Turn():
                    if isinstance(signal, Turn):
                        turn = signal
        if turn is not None and not bots.over:
            self._last_turn = turn
            if not (rethrown and turn.expect in (EXPECT_ROLL, EXPECT_ROLL_AGAIN)):
                self._react(turn)
        prefetch = getattr(self.render, "prefetch", None)
        if prefetch is not None:
            prefetch([a.scene for a in self._plan if isinstance(a, _Show)])

    def _react(self, turn: Turn) -> None:
        bots = self.bots
        assert bots is not None
        if turn.expect in (EXPECT_ROLL, EXPECT_ROLL_AGAIN):
            self._turns += 1
            self._throw(turn.seat)
        elif turn.expect == EXPECT_MOVE:
            self._move(turn.seat)
        elif turn.expect in (EXPECT_CORRECT, EXPECT_SETUP):
            bots.board = bots.before
            self._plan += [_Show(bots.scene(hand=True), 2), _Show(bots.scene(), self.settle_frames)]

    def _throw(self, seat: int) -> None:
        bots = self.bots
        assert bots is not None
        bots.before = bots.board
        if bots.electronic_die:
            self._plan.append(_Press(ButtonPressed(Button.ROLL, seat=seat)))
            return
        count = 2 if bots.game.game == "backgammon" else 1
        bots.dice = bots.thrown = tuple(self.rng.randint(1, 6) for _ in range(count))
        bots.throws += 1
        self.stats.rolls += 1
        cocked: tuple[bool, ...] = ()
        if self.rng.random() < self.rates["cocked"]:
            self.stats.cocked += 1
            cocked = tuple(i == 0 for i in range(count))
        self._cocked_throw = bool(cocked)
        self._plan += [_Show(bots.scene(hand=True), 2), _Press(DieThrown())]
        self._plan.append(_Show(bots.scene(cocked=cocked), self.settle_frames))

    def _move(self, seat: int) -> None:
        bots = self.bots
        assert bots is not None
        if not bots.correcting:
            bots.before = bots.board
        legal = bots.legal_boards(seat)
        choice = bots.choose(seat, legal, self.rng) if legal else bots.board
        if not bots.correcting and self.rng.random() < self.rates["illegal"]:
            wrong = bots.illegal_board(seat)
            if wrong is not None:
                kind, choice = wrong
                bots.injected = True
                self.stats.illegal_injected += 1
                self.stats.illegal_kinds[kind] = self.stats.illegal_kinds.get(kind, 0) + 1
        bots.correcting = False
        self._plan.append(_Show(bots.scene(hand=True), 3))
        bots.board = choice
        if self.rng.random() < self.rates["hand"]:
            self.stats.hands += 1
            self._plan += [_Show(bots.scene(), 2), _Show(bots.scene(hand=True), 3)]
        self._plan.append(_Show(bots.scene(), self.settle_frames))
        self._plan.append(_Press(ButtonPressed(Button.DONE, seat=seat)))


def simulated_mount(seed: int, game: str, size: tuple[int, int]) -> Any:
    """The camera mount (`vision.renderer.Camera`) of a simulated table's game: a pure function
    of the seed, so the table's render workers and its calibration agree on it."""
    import numpy as np

    from vision import renderer
    from vision.geometry import load_geometry

    rng = np.random.default_rng([seed, len(game)])
    return renderer.Camera.random(rng, load_geometry().board_size(game), size)


def measured_camera_heights(seed: int, size: tuple[int, int]) -> dict[str, float]:
    """Each game's lens height above the board as a builder measures it with a tape (to the
    centimetre, docs/calibration.md), for the simulated table's mounts."""
    return {game: round(simulated_mount(seed, game, size).position[2], -1)
            for game in GAMES}


class SceneRenderer:
    """Draws a Scene as the table's camera would see it (`vision.renderer`), one camera mount
    per game, so every frame of a game comes from the same place as on a real table."""

    def __init__(self, width: int = 1280, height: int = 720, seed: int = 1) -> None:
        from vision.geometry import load_geometry

        self.size = (width, height)
        self.seed = seed
        self.geometry = load_geometry()
        self._cameras: dict[str, Any] = {}

    def __call__(self, scene: Scene) -> np.ndarray:
        from vision import renderer

        game = "backgammon" if isinstance(scene.board, BackgammonBoard) else "maedn"
        camera = self._cameras.get(game)
        if camera is None:
            camera = self._cameras[game] = simulated_mount(self.seed, game, self.size)
        drawn = renderer.Scene(
            board=scene.board,
            dice=scene.dice,
            cocked=scene.cocked,
            throw=scene.throw,
            hand=scene.hand,
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
    """A SceneRenderer that draws the scenes the bots have already planned in another process,
    while the table reads the frames of the current one (a real camera costs the Pi nothing to
    draw; the simulation should not make the table look slower than it is). The frames are the
    same as `SceneRenderer`'s: rendering is a pure function of the scene and the seed."""

    def __init__(self, width: int = 1280, height: int = 720, seed: int = 1) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(
            max_workers=max(1, (os.cpu_count() or 2) - 1),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(width, height, seed),
        )
        self._pending: dict[Scene, Any] = {}
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
