"""The simulated players of one game: they roll, move (legally, or illegally on purpose), take
their time, put a hand over the board and tilt a die, producing the events a real table does.

They only know what the table shows them (its signals) and the board in front of them; the
referee never tells them the position. `start()` gives the first events, `react(signals)` the
events the players cause after seeing what the table said, until `finished`. The events are
what a flawless camera and the table's buttons would report; `controller.sim.session` shows
them to the table directly or as rendered camera frames.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

from controller.referee import TableSettings
from controller.referee.maedn import move_notation
from controller.rules.games import BACKGAMMON, Game, game_named
from controller.sim.illegal import make_illegal
from controller.words.boards import Board, MaednBoard
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
from controller.words.signals import (
    EXPECT_CORRECT,
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_ROLL_AGAIN,
    EXPECT_SETUP,
    BoardChoice,
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
    # filmed sessions: before done is pressed the room's light dims for a few seconds (someone
    # stands in the lamp's light), and the camera reads the still board unsure
    dim_rate: float = 0.0
    think: tuple[float, float] = (1.0, 4.0)  # seconds before moving
    step: tuple[float, float] = (0.5, 1.5)  # seconds per checker or piece moved
    # Mensch: capture and run the leading piece home, as people do (random players take
    # several times as many turns, which games through rendered frames cannot afford)
    purposeful: bool = False


@dataclass
class Tally:
    """What the players did and what the table made of it."""

    injected: Counter[str] = field(default_factory=Counter)  # illegal plays by kind
    flagged: Counter[str] = field(default_factory=Counter)
    missed: Counter[str] = field(default_factory=Counter)
    legal_plays: int = 0  # legal plays accepted
    wrongly_flagged: int = 0  # legal plays called illegal
    stray_dice: int = 0
    stray_dice_accepted: int = 0
    cocked: int = 0  # throws with a die cocked or outside the tray
    undos: int = 0
    doubles: int = 0
    rolls: int = 0  # throws of physical dice
    hands: int = 0  # moves made with a hand over the board
    plays: int = 0  # plays the table accepted (legal or not)
    dice_misread: int = 0  # throws the table accepted with other values than thrown
    rerolls: int = 0  # throws the table asked to be made again
    needless_rerolls: int = 0  # of those, throws with no die cocked (a face read as unsure)
    dims: int = 0  # spells of dim light (filmed sessions)

    def add(self, other: Tally) -> None:
        for f in fields(self):
            mine = getattr(self, f.name)
            if isinstance(mine, Counter):
                mine.update(getattr(other, f.name))
            else:
                setattr(self, f.name, mine + getattr(other, f.name))


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
        self.rules: Game = game_named(game)
        self.game = game
        self.variant = variant
        self.players = players if len(self.rules.players) > 1 else self.rules.players[0]
        self.rng = random.Random(seed)
        self.habits = habits or Habits()
        self.settings = settings or TableSettings()
        self.t = 0.0
        self.finished = False
        self.tally = Tally()
        self.options = self.rules.options(variant)
        self.board: Board = self._initial().to_board()
        self.dice: tuple[int, ...] = ()  # the dice the table accepted: the players play these
        self.thrown: tuple[int, ...] = ()  # the dice lying on the table
        self.tilted = False  # whether the last throw had a die cocked or outside the tray
        self.before: Board | None = None  # board when the open play began
        self.injected: str | None = None  # kind of the illegal play now on the board
        self.flagged: Board | None = None  # the board the table last called illegal
        self.last_play: tuple[Board, tuple[int, ...]] | None = None  # for undo
        self.last_turn: Turn | None = None
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
                case BoardChoice():
                    return self._pick_play(signal)
                case CubeOffered():
                    self.tally.doubles += 1
                    takes = self.rng.random() < self.habits.take_rate
                    answer = Button.TAKE if takes else Button.DROP
                    return [ButtonPressed(answer, seat=1 - signal.seat, t=self._later(3.0))]
                case DiceAccepted():
                    self._dice_accepted(signal.values)
                case Illegal():
                    self._illegal(signal)
                case PlayAccepted():
                    self._accepted()
                case Reroll():
                    reroll_seat = signal.seat
                    self.tally.rerolls += 1
                    self.tally.needless_rerolls += not self.tilted
                case GameOver():
                    self.result = signal
                    self.finished = True
                case Turn():
                    turn = self.last_turn = signal
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

    def nudge(self) -> list[Event]:
        """The table has said nothing for a while (it saw something else than there is): show
        the board again and press done, as a person would."""
        turn = self.last_turn
        if self.finished or turn is None:
            return []
        log.info("players idle at %s: showing the board again", turn)
        return [
            ViewBlocked(t=self._later(1.0)),
            BoardObserved(self.board, t=self._later(1.0)),
            ButtonPressed(Button.DONE, seat=turn.seat, t=self._later(0.5)),
        ]

    # ---- what the table said --------------------------------------------------------------

    def _dice_accepted(self, values: tuple[int, ...]) -> None:
        if self.stray_pending:
            self.tally.stray_dice_accepted += 1
        elif self.thrown and sorted(values) != sorted(self.thrown):
            self.tally.dice_misread += 1
            log.warning("dice %s read as %s", self.thrown, values)
        self.dice = values

    def _illegal(self, signal: Illegal) -> None:
        if self.injected is not None:
            self.tally.flagged[self.injected] += 1
            self.injected = None
        elif self.before is not None and self.flagged != self.board:
            self.tally.wrongly_flagged += 1  # (not the same wrong board named again)
            log.warning("legal play flagged: %s", signal)
        self.flagged = self.board

    def _accepted(self) -> None:
        self.tally.plays += 1
        if self.injected is not None:
            self.tally.missed[self.injected] += 1
            log.warning("illegal %s play accepted", self.injected)
            self.injected = None
        else:
            self.tally.legal_plays += 1
        if self.before is not None:
            self.last_play = (self.before, self.dice)
        self.before = None

    # ---- what players do ------------------------------------------------------------------

    def _roll(self, seat: int) -> list[Event]:
        if self.options.electronic_die:
            return [ButtonPressed(Button.ROLL, seat=seat, t=self._later(1.0))]
        n = self.rules.dice
        values = tuple(self.rng.randint(1, 6) for _ in range(n))
        self.thrown = values
        self.tally.rolls += 1
        events: list[Event] = [DieThrown(t=self._later(1.0))]
        self.tilted = self.rng.random() < self.habits.cocked_rate
        if self.tilted:
            self.tally.cocked += 1
            flags = tuple(i == 0 for i in range(n))
            if self.rng.random() < 0.5:
                return [*events, DiceObserved(values, cocked=flags, t=self._later(0.5))]
            return [*events, DiceObserved(values, outside=flags, t=self._later(0.5))]
        return [*events, DiceObserved(values, t=self._later(0.5))]

    def _maybe_double(self, seat: int) -> list[Event]:
        # pressed also where the variant has no cube: the table must refuse it
        if not self.rules.cube or self.rng.random() >= self.habits.double_rate:
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
            self.tally.hands += 1
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
        if self.rules is BACKGAMMON:  # players leave out done: the opponent's roll judges
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

    def _pick_play(self, signal: BoardChoice) -> list[Event]:
        """The table read the board unsurely and offers plays: done until the one made is
        shown, then a long press; a play not offered is shown again (or, illegal, the first
        offered is taken: the table must never offer such a choice)."""
        seat = signal.seat
        made = self._notation_of_play(seat)
        if made not in signal.plays and self.injected is None:
            return [ViewBlocked(t=self._later(1.0)), BoardObserved(self.board, t=self._later(1.0))]
        shown = signal.plays[signal.shown]
        long = made == shown or made not in signal.plays
        return [ButtonPressed(Button.DONE, seat=seat, long=long, t=self._later(1.0))]

    def _notation_of_play(self, seat: int) -> str | None:
        """The play on the board as the table writes it; None when it is not legal."""
        if self.before is None:
            return None
        pos = self.rules.position.from_board(self.before, seat, self.options)
        verdict = pos.judge(self.board, self.dice)
        if not verdict.legal:
            return None
        if self.rules is BACKGAMMON:
            return str(verdict.play)
        return move_notation(verdict.play) if verdict.play is not None else ""

    def _put_back(self) -> list[Event]:
        """Back to the board before the play; without a play open (the table misread the
        board), the players show the board they have again."""
        if self.before is not None:
            self.board = self.before
        self.injected = None
        return [ViewBlocked(t=self._later(2.0)), BoardObserved(self.board, t=self._later(1.0))]

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
        return self.rules.position.initial(self.options, players=self.players)

    def _position(self, seat: int) -> Any:
        return self.rules.position.from_board(self.board, seat, self.options)

    def _legal_steps(self, pos: Any) -> list[Board]:
        """The boards a player shows while making a legal play, checker by checker."""
        plays = pos.legal_plays(self.dice)
        if not plays:
            return []
        play = self._choose(plays, pos) if self.habits.purposeful else self.rng.choice(plays)
        return [after.to_board() for after in pos.steps(play, self.dice)]

    def _choose(self, plays: list[Any], pos: Any) -> Any:
        """The play of a purposeful player: capture and bring the leading piece home."""
        seat = pos.turn

        def progress(play: Any) -> tuple[int, int]:
            board = pos.apply(play, self.dice).to_board()
            if not isinstance(board, MaednBoard):
                return 0, 0
            mine = board.pieces[seat]
            theirs = sum(p + 1 for s, pcs in enumerate(board.pieces) if s != seat for p in pcs)
            return sum(p + 1 for p in mine) - theirs, max(mine)

        best = max(progress(p) for p in plays)
        return self.rng.choice([p for p in plays if progress(p) == best])

    def _later(self, seconds: float) -> float:
        self.t = round(self.t + seconds, 3)
        return self.t


def _table_options(settings: TableSettings) -> tuple[tuple[str, object], ...]:
    default = TableSettings()
    return tuple(
        (key, getattr(settings, key))
        for key in TableSettings.KEYS
        if getattr(settings, key) != getattr(default, key)
    )
