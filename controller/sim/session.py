"""The simulated players' games as the table program sees them: straight as events, or filmed.

The players (`controller.sim.table.SimulatedTable`) say what happens as a flawless camera and
the buttons would report it. Without a camera the session hands those events to the table as
they are; with one (`controller.sim.camera`) it turns them back into what lies on the table —
a hand over the board, the board, the dice at rest — and yields rendered camera frames of it
for the real vision to read, and the button presses and tray sensor as input events. Either
way the players see the table's answer (`on_signals`) before they act again, as people do.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from controller.sim.camera import Scene
from controller.sim.table import SimulatedTable, Tally
from controller.table.camera_frames import Frame
from controller.words.buttons import Button
from controller.words.events import (
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    Event,
    NewGame,
    Tick,
    ViewBlocked,
)
from controller.words.signals import EXPECT_ROLL, EXPECT_ROLL_AGAIN, Signal, Turn

log = logging.getLogger(__name__)

MAX_EVENTS = 50_000  # one game never needs as many: the players are stuck
IDLE_NUDGE_S = 5.0  # filmed: the table said nothing this long, the players act again
IDLE_GIVE_UP_S = 30.0  # filmed: ... and after this long the game is lost

Renderer = Callable[[Scene], np.ndarray]


class SimulationStuck(RuntimeError):
    """The simulated table stopped producing events before the game ended."""


@dataclass
class SessionStats:
    """What a session of simulated games proved; `summary()` is what `spieltisch play` prints."""

    games: int = 0
    finished: int = 0
    lost: int = 0
    events: int = 0
    frames: int = 0
    lost_games: list[str] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)

    def summary(self) -> str:
        t = self.tally
        lines = [
            f"games {self.games}: finished {self.finished}, stuck {self.lost}",
            f"plays accepted {t.plays}, frames {self.frames}, hands {t.hands}, "
            f"cocked dice {t.cocked}, rolls {t.rolls} (read wrong {t.dice_misread}; "
            f"asked again {t.rerolls}, {t.needless_rerolls} with no die cocked)",
            f"illegal plays injected {t.injected.total()}: flagged {t.flagged.total()}, "
            f"missed {t.missed.total()}; legal plays flagged {t.wrongly_flagged}",
        ]
        return "\n".join(lines + [f"stuck: {why}" for why in self.lost_games])


class SimulatedSession:
    """The games of `tables`, one after the other; `items()` yields what the table program
    handles (events, or camera frames and input events when filmed by `camera`), and
    `on_signals` must get the table's answer to each item before the next is asked for.

    `patience` is how often the players try again when the table expects nothing they can do
    before the game counts as lost (stuck); `max_turns` and `max_events` end a game that does
    not end (0: no limit on turns). `speed` > 0 paces the items to the players' own time, that
    many times faster.
    """

    def __init__(
        self,
        tables: Iterable[SimulatedTable],
        camera: Renderer | None = None,
        fps: float = 15.0,
        settle_s: float = 0.3,
        patience: int = 6,
        max_turns: int = 0,
        max_events: int = MAX_EVENTS,
        speed: float = 0.0,
    ) -> None:
        self.tables = tables
        self.camera = camera
        self.fps = fps
        self.settle_frames = max(2, round(settle_s * fps) + 2)
        self.patience = patience
        self.max_turns = max_turns
        self.max_events = max_events
        self.speed = speed
        self.stats = SessionStats()
        self.table: SimulatedTable | None = None
        self.t = 0.0  # the camera's clock (filmed sessions)
        self.scene: Scene | None = None
        self._heard: list[Signal] = []
        self._turns = 0
        self._events = 0
        self._paced: float | None = None
        self._image: tuple[Scene, np.ndarray] | None = None

    @property
    def ok(self) -> bool:
        """True when no game got stuck."""
        return self.stats.lost == 0

    def summary(self) -> str:
        """What happened, in the lines `spieltisch play` ends with."""
        return self.stats.summary()

    def items(self) -> Iterator[Frame | Event]:
        for table in self.tables:
            yield from self._play(table)

    def on_signals(self, signals: list[Signal]) -> None:
        """The table's answer to the last item."""
        self._heard += signals
        self._turns += sum(isinstance(s, Turn) and s.expect in (EXPECT_ROLL, EXPECT_ROLL_AGAIN)
                           for s in signals)

    # ---- one game ---------------------------------------------------------------------------

    def _play(self, table: SimulatedTable) -> Iterator[Frame | Event]:
        self.table = table
        self.stats.games += 1
        self._turns = 0
        self._events = 0
        self._heard = []
        batch = table.start()
        nudges = 0
        while True:
            yield from self._show(batch)
            if table.finished:
                self._end(table)
                return
            why = self._too_long()
            if why is not None:
                self._give_up(table, why)
                return
            batch = yield from self._answer(table)
            if batch:
                nudges = 0
                continue
            if table.finished:
                self._end(table)
                return
            if nudges >= self.patience:
                self._give_up(table, f"{table.game}/{table.variant}/{table.players}: "
                                     "the table expects nothing the players can do")
                return
            nudges += 1
            batch = table.nudge()

    def _answer(self, table: SimulatedTable) -> Iterator[Frame]:
        """The players' next events: at once what the table said (straight), or what it says
        while the camera keeps looking (filmed: vision may still be settling)."""
        if self.camera is None:
            heard, self._heard = self._heard, []
            return table.react(heard)
        idle = 0
        while idle < IDLE_NUDGE_S * self.fps:
            if self._heard:
                heard, self._heard = self._heard, []
                batch = table.react(heard)
                if batch or table.finished:
                    return batch
            yield self._frame()
            idle += 1
        return []

    def _too_long(self) -> str | None:
        table = self.table
        assert table is not None
        name = f"{table.game}/{table.variant}/{table.players}"
        if self.max_turns and self._turns > self.max_turns:
            return f"{name}: more than {self.max_turns} turns"
        if self._events > self.max_events:
            return f"{name}: no end after {self._events} events"
        return None

    def _end(self, table: SimulatedTable) -> None:
        self.stats.finished += 1
        self.stats.tally.add(table.tally)

    def _give_up(self, table: SimulatedTable, why: str) -> None:
        log.error("simulated game lost: %s", why)
        self.stats.lost += 1
        self.stats.lost_games.append(why)
        self.stats.tally.add(table.tally)

    # ---- what the table gets ----------------------------------------------------------------

    def _show(self, batch: list[Event]) -> Iterator[Frame | Event]:
        if self.camera is None:
            for event in batch:
                self._count()
                self._pace(event.t)
                yield event
            return
        self._prefetch(batch)
        for event in batch:
            self._count()
            yield from self._film(event)

    def _count(self) -> None:
        self._events += 1
        self.stats.events += 1

    def _film(self, event: Event) -> Iterator[Frame | Event]:
        """What the camera sees of one event, or the event itself (buttons, the tray)."""
        scene = self._scene_after(self.scene, event)
        if isinstance(event, NewGame):  # the game starts: the camera sees its start position
            self.scene = scene
            yield replace(event, t=self.t)
            yield from (self._frame() for _ in range(self.settle_frames))
        elif isinstance(event, ViewBlocked):
            self.scene = scene
            yield from (self._frame() for _ in range(2))
        elif isinstance(event, BoardObserved | DiceObserved | Tick):
            self.scene = scene
            yield from (self._frame() for _ in range(self.settle_frames))
        elif isinstance(event, ButtonPressed) and event.name is Button.DONE:
            yield from self._dim_spell()
            yield replace(event, t=self.t)
        elif isinstance(event, DieThrown) and self.scene is not None:
            # the throwing hand passes over the board as the dice land in the tray
            self.scene, resting = replace(self.scene, hand=True), self.scene
            yield from (self._frame() for _ in range(2))
            self.scene = resting
            yield replace(event, t=self.t)
        else:
            yield replace(event, t=self.t)  # type: ignore[type-var]

    def _dim_spell(self) -> Iterator[Frame]:
        """`Habits.dim_rate`: before done the light dims to a fifth to a third for 2-4 s (someone
        stands in the lamp's light) and comes back: the still board is read unsure, as on a
        real table in the evening (the own set of `spieltisch record` keeps such frames)."""
        table, lit = self.table, self.scene
        if table is None or lit is None or not table.habits.dim_rate:
            return
        if table.rng.random() >= table.habits.dim_rate:
            return
        table.tally.dims += 1
        self.scene = replace(lit, light=round(table.rng.uniform(0.2, 0.33), 2))
        yield from (self._frame() for _ in range(round(table.rng.uniform(2.0, 4.0) * self.fps)))
        self.scene = lit
        yield from (self._frame() for _ in range(self.settle_frames))

    def _scene_after(self, scene: Scene | None, event: Event) -> Scene | None:
        """The scene an event leaves on the table (dice seen through a hand, a misreading no
        camera makes, leave it as it is)."""
        match event:
            case NewGame():
                assert self.table is not None
                return Scene(self.table.board)
            case ViewBlocked() if scene is not None:
                return replace(scene, hand=True)
            case BoardObserved() if scene is not None:
                return replace(scene, board=event.board, hand=False)
            case DiceObserved() if scene is not None and not scene.hand:
                flags = itertools.zip_longest(event.cocked, event.outside, fillvalue=False)
                tilted = tuple(c or o for c, o in flags)[: len(event.values)]
                return replace(scene, dice=event.values, cocked=tilted, throw=scene.throw + 1)
        return scene

    def _prefetch(self, batch: list[Event]) -> None:
        prefetch = getattr(self.camera, "prefetch", None)
        if prefetch is None:
            return
        scenes, scene = [], self.scene
        for event in batch:
            if isinstance(event, DieThrown) and scene is not None:
                scenes.append(replace(scene, hand=True))
            scene = self._scene_after(scene, event)
            if scene is not None and scene not in scenes:
                scenes.append(scene)
        prefetch(scenes)

    def _frame(self) -> Frame:
        assert self.camera is not None and self.scene is not None
        if self._image is None or self._image[0] != self.scene:
            self._image = (self.scene, self.camera(self.scene))
        frame = Frame(self.t, self._image[1])
        self._pace(self.t)
        self.t += 1.0 / self.fps
        self.stats.frames += 1
        return frame

    def _pace(self, t: float) -> None:
        """With `speed`: sleep the players' time since the last item, `speed` times faster
        (at most a second, however long they thought)."""
        last, self._paced = self._paced, t
        if self.speed > 0 and last is not None and t > last:
            time.sleep(min(1.0, (t - last) / self.speed))
