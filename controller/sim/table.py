"""A simulated table: players who roll, move (legally, or illegally on request), take their
time, put a hand over the board and tilt a die, producing the same events a real table does.

It is an event source: `start()` gives the first events, `react(signals)` the events the
players cause after seeing the referee's signals (LEDs, display), until `finished`. The
physical board is the truth the players see; the referee never tells them the position.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.referee.turns import TableSettings
from controller.sim.illegal import make_illegal
from controller.words.buttons import Button
from controller.words.events import (
    BackgammonBoard,
    Board,
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    Event,
    NewGame,
    Tick,
    ViewBlocked,
)
from controller.words.signals import (
    EXPECT_CORRECT,
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_ROLL_AGAIN,
    EXPECT_SETUP,
    CubeOffered,
    DiceAccepted,
    GameOver,
    Illegal,
    PlayAccepted,
    Reroll,
    Signal,
    Turn,
)

log = logging.getLogger(__name__)


class EventSource(Protocol):
    """Where a table's events come from (this simulator, later rendered frames and vision)."""

    finished: bool

    def start(self) -> list[Event]: ...

    def react(self, signals: list[Signal]) -> list[Event]: ...


@dataclass(frozen=True, slots=True)
class Habits:
    """How the simulated players behave; rates are chances per turn."""

    illegal_rate: float = 0.0  # a deliberately illegal play
    cocked_rate: float = 0.03  # a die lands cocked or outside the tray
    hand_rate: float = 0.5  # a hand over the board while moving
    stray_dice_rate: float = 0.05  # dice read while the hand is still over the board
    skip_done_rate: float = 0.2  # backgammon: no done press, the opponent's roll judges
    undo_rate: float = 0.01  # a long press on undo after an accepted play
    double_rate: float = 0.02  # backgammon: double before rolling (refused where not allowed)
    take_rate: float = 0.75  # the opponent takes a double
    think: tuple[float, float] = (1.0, 4.0)  # seconds before moving
    step: tuple[float, float] = (0.5, 1.5)  # seconds per checker or piece moved


@dataclass
class Tally:
    """What happened to the injected illegal plays (by kind) and to the legal ones."""

    injected: Counter[str] = field(default_factory=Counter)
    flagged: Counter[str] = field(default_factory=Counter)
    missed: Counter[str] = field(default_factory=Counter)
    legal_plays: int = 0
    wrongly_flagged: int = 0
    stray_dice: int = 0
    stray_dice_accepted: int = 0
    rerolls: int = 0
    undos: int = 0
    doubles: int = 0

    def add(self, other: Tally) -> None:
        self.injected.update(other.injected)
        self.flagged.update(other.flagged)
        self.missed.update(other.missed)
        for name in (
            "legal_plays",
            "wrongly_flagged",
            "stray_dice",
            "stray_dice_accepted",
            "rerolls",
            "undos",
            "doubles",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class SimulatedTable:
    """One game at a simulated table. Deterministic for a given seed."""

    def __init__(
        self,
        game: str = "backgammon",
        variant: str = "standard",
        players: int = 2,
        seed: int = 0,
        habits: Habits | None = None,
        settings: TableSettings | None = None,
    ) -> None:
        self.game = game
        self.variant = variant
        self.players = 2 if game == "backgammon" else players
        self.rng = random.Random(seed)
        self.habits = habits or Habits()
        self.settings = settings or TableSettings()
        self.t = 0.0
        self.finished = False
        self.tally = Tally()
        self.options = _options(game, variant)
        self.board: Board = self._initial().to_board()
        self.dice: tuple[int, ...] = ()
        self.before: Board | None = None  # board when the open play began
        self.injected: str | None = None  # kind of the illegal play now on the board
        self.last_play: tuple[Board, tuple[int, ...]] | None = None  # for undo
        self.result: GameOver | None = None
        self.stray_pending = False
        self.doubling: int | None = None  # seat whose double awaits an answer or refusal

    # ---- event source ---------------------------------------------------------------------

    def start(self) -> list[Event]:
        return [
            NewGame(
                game=self.game,
                variant=self.variant,
                players=self.players,
                options=_table_options(self.settings),
                t=self._later(0.0),
            )
        ]

    def react(self, signals: list[Signal]) -> list[Event]:
        """The players' answer to what the table just showed."""
        turn: Turn | None = None
        reroll_seat: int | None = None
        doubling, self.doubling = self.doubling, None
        for signal in signals:
            match signal:
                case CubeOffered():
                    self.tally.doubles += 1
                    takes = self.rng.random() < self.habits.take_rate
                    answer = Button.TAKE if takes else Button.DROP
                    return [ButtonPressed(answer, seat=1 - signal.seat, t=self._later(3.0))]
                case DiceAccepted():
                    if self.stray_pending:
                        self.tally.stray_dice_accepted += 1
                    self.dice = signal.values
                case Illegal():
                    if self.injected is not None:
                        self.tally.flagged[self.injected] += 1
                        self.injected = None
                    elif self.before is not None:
                        self.tally.wrongly_flagged += 1
                        log.warning("legal play flagged: %s", signal)
                case PlayAccepted():
                    self._accepted()
                case Reroll():
                    reroll_seat = signal.seat
                case GameOver():
                    self.result = signal
                    self.finished = True
                case Turn():
                    turn = signal
        self.stray_pending = False
        if self.finished:
            return []
        if turn is None:
            if reroll_seat is None and doubling is not None:  # the double was refused
                reroll_seat = doubling
            return self._roll(reroll_seat) if reroll_seat is not None else []
        if turn.expect == EXPECT_ROLL:
            return self._maybe_undo() or self._maybe_double(turn.seat) or self._roll(turn.seat)
        if turn.expect == EXPECT_ROLL_AGAIN:
            return self._maybe_undo() or self._roll(turn.seat)
        if turn.expect == EXPECT_MOVE:
            return self._move(turn.seat)
        if turn.expect == EXPECT_CORRECT:
            return self._put_back()
        if turn.expect == EXPECT_SETUP:
            self.board = self._initial().to_board()
            return [ViewBlocked(t=self._later(2.0)), BoardObserved(self.board, t=self._later(1.0))]
        return []

    # ---- what players do ------------------------------------------------------------------

    def _roll(self, seat: int) -> list[Event]:
        if self.game == "maedn" and self.options.die == "electronic":
            return [ButtonPressed(Button.ROLL, seat=seat, t=self._later(1.0))]
        n = 2 if self.game == "backgammon" else 1
        values = tuple(self.rng.randint(1, 6) for _ in range(n))
        events: list[Event] = [DieThrown(t=self._later(1.0))]
        if self.rng.random() < self.habits.cocked_rate:
            self.tally.rerolls += 1
            flags = tuple(i == 0 for i in range(n))
            if self.rng.random() < 0.5:
                return [*events, DiceObserved(values, cocked=flags, t=self._later(0.5))]
            return [*events, DiceObserved(values, outside=flags, t=self._later(0.5))]
        return [*events, DiceObserved(values, t=self._later(0.5))]

    def _maybe_double(self, seat: int) -> list[Event]:
        if self.game != "backgammon" or self.rng.random() >= self.habits.double_rate:
            return []
        self.doubling = seat
        return [ButtonPressed(Button.DOUBLE, seat=seat, t=self._later(1.0))]

    def _move(self, seat: int) -> list[Event]:
        pos = self._position(seat)
        self.before = self.board
        self.injected = None
        target: Board | None = None
        steps: list[Board] = []
        if self.rng.random() < self.habits.illegal_rate:
            # without a done button an unchanged board is never judged: no "no move" mistake
            exclude = () if self.settings.done_button else ("no_move",)
            made = make_illegal(self.game, pos, self.dice, self.rng, exclude)
            if made is not None:
                kind, target = made
                self.injected = kind
                self.tally.injected[kind] += 1
        if target is None:
            steps = self._legal_steps(pos) or [self.board]
            target = steps[-1]
        else:
            steps = [target]
        events: list[Event] = []
        t_think = self.rng.uniform(*self.habits.think)
        hand = self.rng.random() < self.habits.hand_rate
        if not hand:
            self._later(t_think)
        else:
            events.append(ViewBlocked(t=self._later(t_think)))
            if self.rng.random() < self.habits.stray_dice_rate and self.settings.done_button:
                self.tally.stray_dice += 1
                self.stray_pending = True
                stray = tuple(self.rng.randint(1, 6) for _ in self.dice)
                events.append(DiceObserved(stray, t=self._later(0.3)))
        for board in steps:
            if hand and board is not steps[0]:
                events.append(ViewBlocked(t=self._later(0.2)))
            events.append(BoardObserved(board, t=self._later(self.rng.uniform(*self.habits.step))))
        self.board = target
        return events + self._finish_turn(seat)

    def _finish_turn(self, seat: int) -> list[Event]:
        """Done, or (backgammon) the next roll judges, or (no button) the settle time."""
        if self.game == "backgammon":
            extra = self.dice[0] == self.dice[1] and self.options.extra_roll_after_double
            following = seat if extra else 1 - seat
            if not self.settings.done_button and self.board == self.before:
                return self._roll(following)
            skip = (
                self.injected is None
                and not self.stray_pending
                and self.rng.random() < self.habits.skip_done_rate
            )
            if skip and self.settings.done_button:
                return self._roll(following)
        if not self.settings.done_button:
            return [Tick(t=self._later(self.settings.settle_time + 0.5))]
        return [ButtonPressed(Button.DONE, seat=seat, t=self._later(0.5))]

    def _put_back(self) -> list[Event]:
        assert self.before is not None
        self.board = self.before
        self.injected = None
        return [ViewBlocked(t=self._later(2.0)), BoardObserved(self.board, t=self._later(1.0))]

    def _accepted(self) -> None:
        if self.injected is not None:
            self.tally.missed[self.injected] += 1
            log.warning("illegal %s play accepted", self.injected)
            self.injected = None
        else:
            self.tally.legal_plays += 1
        if self.before is not None:
            self.last_play = (self.before, self.dice)
        self.before = None

    def _maybe_undo(self) -> list[Event]:
        if self.last_play is None or self.rng.random() >= self.habits.undo_rate:
            return []
        self.tally.undos += 1
        board, self.dice = self.last_play
        self.last_play = None
        self.board = board
        return [
            ButtonPressed(Button.UNDO, long=True, t=self._later(1.0)),
            ViewBlocked(t=self._later(1.0)),
            BoardObserved(board, t=self._later(2.0)),
        ]

    # ---- rules knowledge players have -----------------------------------------------------

    def _initial(self) -> Any:
        if self.game == "backgammon":
            from controller.rules import backgammon as bg

            return bg.Position.initial(self.options)
        from controller.rules import maedn

        return maedn.Position.initial(self.options, players=self.players)

    def _position(self, seat: int) -> Any:
        if self.game == "backgammon":
            from controller.rules import backgammon as bg

            assert isinstance(self.board, BackgammonBoard)
            return bg.Position.from_board(self.board, seat, self.options)
        from controller.rules import maedn

        return maedn.Position.from_board(self.board, seat, self.options, players=self.players)

    def _legal_steps(self, pos: Any) -> list[Board]:
        """The boards a player shows while making a random legal play, checker by checker."""
        if self.game == "backgammon":
            from controller.rules import backgammon as bg

            play = self.rng.choice(pos.legal_plays(self.dice))
            moves = play.moves
            return [pos.apply(bg.Play(moves[: k + 1])).to_board() for k in range(len(moves))]
        moves = pos.legal_plays(self.dice[0])
        if not moves:
            return []
        return [pos.apply(self.rng.choice(moves), self.dice[0]).to_board()]

    def _later(self, seconds: float) -> float:
        self.t = round(self.t + seconds, 3)
        return self.t


def _options(game: str, variant: str) -> Any:
    if game == "backgammon":
        from controller.rules import backgammon as bg

        return bg.Options.preset(variant)
    from controller.rules import maedn

    return maedn.Options.preset(variant)


def _table_options(settings: TableSettings) -> tuple[tuple[str, object], ...]:
    default = TableSettings()
    return tuple(
        (key, getattr(settings, key))
        for key in TableSettings.KEYS
        if getattr(settings, key) != getattr(default, key)
    )
