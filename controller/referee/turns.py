"""The turn cycle both games share: roll, move, judge at a quiet moment, correct, go on.

A game-specific subclass (`referee_backgammon`, `referee_maedn`) says how dice are read, how a
board is judged and what follows an accepted play; this module owns when judging happens:

* intermediate boards are never judged; a turn is judged when the board is stable and the
  player presses done, when the next roll arrives, or (no done button) after the settle time;
* dice seen while a hand is over the board belong to the player still moving and are ignored;
* after an illegal play the table waits until the board is back at the position before the
  play (or shows a legal result), listing the fields that still differ;
* a board read unsurely that two or three legal results fit about equally (`BoardCandidates`)
  is offered to the seat on turn: its done button shows the next, a long press takes the one
  shown; a board read surely ends the choice (the players fixed the board);
* a board no legal result fits clearly (`BoardUnsure`) is no board: done and the next roll
  wait, and the players are asked to check the pieces, until a board is read.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Generic, TypeVar

from controller.rules.errors import RulesError
from controller.rules.games import Game
from controller.words.buttons import Button
from controller.words.events import (
    Board,
    BoardCandidates,
    BoardObserved,
    BoardUnsure,
    ButtonPressed,
    DiceObserved,
    ElectronicRoll,
    Event,
    NewGame,
    OpeningRoll,
    PlayUnseen,
    Tick,
    ViewBlocked,
)
from controller.words.reasons import Reason, reason
from controller.words.signals import (
    EXPECT_CORRECT,
    EXPECT_MOVE,
    EXPECT_ROLL,
    EXPECT_SETUP,
    BoardChoice,
    BoardDiffers,
    DiceAccepted,
    Illegal,
    Notice,
    Reroll,
    Signal,
    Turn,
)

log = logging.getLogger(__name__)

COCKED = reason("referee.cocked_die")
OUTSIDE = reason("referee.die_outside")
DICE_COUNT = reason("referee.dice_count")
NOT_ALLOWED = reason("referee.not_allowed")
IMPOSSIBLE_BOARD = reason("referee.impossible_board")
HAND_OVER_BOARD = reason("referee.view_blocked")
PLAY_UNSEEN = reason("referee.play_unseen")
BOARD_TAKEN = reason("referee.board_taken")
NOT_YOUR_TURN = reason("referee.not_your_turn")
UNDONE = reason("referee.undone")
NOTHING_TO_UNDO = reason("referee.nothing_to_undo")
FOREIGN_BOARD = reason("referee.foreign_board")
GAME_IS_OVER = reason("referee.game_over")
CHOOSE_FIRST = reason("referee.choose_first")
BOARD_UNSURE = reason("referee.board_unsure")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """How this table is built and set up (not rules): buttons, settle time, strictness."""

    done_button: bool = True
    settle_time: float = 3.0  # seconds of a stable board before judging, without done button
    must_correct: bool = False  # backgammon: an illegal play never stands, even after a roll

    KEYS: ClassVar[tuple[str, ...]] = ("done_button", "settle_time", "must_correct")


class Phase(enum.Enum):
    SETUP = "setup"
    ROLL = "roll"
    MOVE = "move"
    CORRECT = "correct"
    OVER = "over"


PosT = TypeVar("PosT")


@dataclass(frozen=True, slots=True)
class TurnState(Generic[PosT]):
    """Everything the referee knows, as one immutable value (undo restores an older one)."""

    pos: PosT
    phase: Phase
    dice: tuple[int, ...] = ()
    board: Board | None = None  # last stable reading
    stable: bool = True  # False while a hand is over the board
    unsure: bool = False  # the board is read, but not surely enough to judge
    board_t: float = 0.0  # when `board` was read
    done_pending: bool = False
    differs: bool = False  # the last reading differed from what must stand
    first_roll_done: bool = False
    unseen: bool = False  # plays were passed without the camera: the position is not known
    match: Any = None  # game-level state (backgammon: the Match with cube and score)
    choice: tuple[Board, ...] = ()  # legal results an unsure reading fits alike, to choose from
    shown: int = 0  # the one of `choice` on the display


class TurnReferee(Generic[PosT]):
    """Shared turn cycle; subclasses name their `game` and implement the hooks marked below."""

    game: ClassVar[Game]

    def __init__(self, pos: PosT, settings: TableSettings) -> None:
        self.settings = settings
        self.state: TurnState[PosT] = TurnState(pos=pos, phase=Phase.ROLL)
        self.history: list[TurnState[PosT]] = []
        self._results: tuple[PosT, tuple[int, ...], tuple[Board, ...]] | None = None

    @classmethod
    def start(
        cls, options: Any, settings: TableSettings, event: NewGame, carry: Any
    ) -> TurnReferee[PosT]:
        """The game `event` starts, with its rule options; `carry` is what `carry()` of the
        previous game of the match returned (None: a fresh game)."""
        raise NotImplementedError

    # ---- hooks for the game -------------------------------------------------------------

    def seat(self) -> int:
        raise NotImplementedError

    def board_of(self, pos: PosT) -> Board:
        raise NotImplementedError

    def accept_dice(self, values: tuple[int, ...]) -> list[Signal]:
        """Dice are valid for the seat on roll: store them and say what comes next."""
        raise NotImplementedError

    def judge(self, board: Board) -> tuple[bool, Any, Reason | None]:
        """(legal, play, reason) for the observed board after the stored dice."""
        raise NotImplementedError

    def accept_play(self, play: Any) -> list[Signal]:
        """Apply a legal play, announce it and whoever rolls next (or the end)."""
        raise NotImplementedError

    def results(self) -> list[Board]:
        """The boards the legal plays of the stored dice leave; the unchanged board only when
        nothing can move."""
        raise NotImplementedError

    def notation(self, play: Any) -> str:
        """A legal play as `PlayAccepted` writes it."""
        raise NotImplementedError

    def illegal_stands(self, board: Board) -> list[Signal] | None:
        """The next roll came on an illegal board: let it stand (signals) or None (correct it)."""
        return None

    def diff(self, expected: Board, observed: Board) -> tuple[list[str], list[str]]:
        """(fields that differ, what each must show) between two boards."""
        raise NotImplementedError

    def opening(self, values: tuple[int, ...]) -> list[Signal]:
        raise NotImplementedError

    def roll_button(self) -> list[Signal]:
        return []

    def carry(self) -> Any:
        """What the next game of the same match starts from; None: the next game is fresh."""
        return None

    def match_over(self) -> bool:
        return False

    def roll_blocked(self) -> list[Signal] | None:
        """Signals refusing a roll now (a double waiting for an answer), or None."""
        return None

    def other_button(self, event: ButtonPressed) -> list[Signal]:
        """Buttons the shared cycle does not know (the doubling cube)."""
        return []

    def cocked_rerolls(self) -> bool:
        """A cocked die or one outside the tray is rolled again (004)."""
        return True

    def pass_unseen(self) -> list[Signal]:
        """A play nobody could see ends: who rolls next, from the dice alone."""
        raise NotImplementedError

    def adopt(self, board: Board) -> list[Signal]:
        """Take `board` as the position, the seat on turn to roll (raises RulesError)."""
        raise NotImplementedError

    def candidate_boards(self) -> tuple[Board, ...]:
        """The distinct boards a legal play of the open turn leaves, for holding an unsure
        reading against (`controller/table/board_scoring.py`); () when no play is open."""
        s = self.state
        if s.phase not in (Phase.MOVE, Phase.CORRECT) or s.unseen or not s.dice:
            return ()
        cached = self._results
        if cached is None or cached[0] is not s.pos or cached[1] != s.dice:
            cached = self._results = (s.pos, s.dice, tuple(dict.fromkeys(self.results())))
        return cached[2]

    # ---- the cycle ------------------------------------------------------------------------

    def handle(self, event: Event) -> list[Signal]:
        out: list[Signal] = []
        t = event.t
        if not self.settings.done_button and not isinstance(event, ButtonPressed):
            out += self._settle(t)
        match event:
            case DiceObserved():
                out += self._dice(event)
            case ElectronicRoll():
                out += self._dice(DiceObserved(values=(event.value,), t=event.t))
            case OpeningRoll():
                out += self._opening(event)
            case BoardObserved():
                out += self._board(event)
            case BoardCandidates():
                out += self._candidates(event)
            case BoardUnsure():
                out += self._unsure()
            case ViewBlocked():
                self.state = replace(self.state, stable=False)
            case ButtonPressed():
                out += self._button(event)
            case PlayUnseen():
                out += self._play_unseen(event)
            case Tick():
                pass
            case _:
                log.debug("event %r has no effect on a running game", event)
        return out

    def _settle(self, t: float) -> list[Signal]:
        s = self.state
        if (
            s.phase is Phase.MOVE
            and s.stable
            and not s.unsure
            and s.board is not None
            and t - s.board_t >= self.settings.settle_time
            and not s.choice
            and s.board != self.board_of(s.pos)
        ):
            return self._judge_now()
        return []

    def _dice(self, event: DiceObserved) -> list[Signal]:
        s = self.state
        if s.phase is Phase.OVER:
            return [notice(GAME_IS_OVER)]
        if s.phase is Phase.SETUP:
            return self._setup_differs()
        if s.phase in (Phase.MOVE, Phase.CORRECT):
            if not s.stable:
                log.info("dice %s ignored: the mover's hand is over the board", event.values)
                return []
            if s.choice:  # the play is not known yet: nothing can be judged
                return [notice(CHOOSE_FIRST), self._choice()]
            if s.unsure:
                return [notice(BOARD_UNSURE)]
            out = self._next_roll_judges()
            if self.state.phase is not Phase.ROLL:
                return out
            return out + self._dice(event)
        seat = self.seat()
        if any(event.cocked) and self.cocked_rerolls():
            return [reroll(seat, COCKED)]
        if any(event.outside) and self.cocked_rerolls():
            return [reroll(seat, OUTSIDE)]
        if len(event.values) != self.game.dice:
            return [reroll(seat, DICE_COUNT)]
        blocked = self.roll_blocked()
        if blocked is not None:
            return blocked
        self.state = replace(self.state, first_roll_done=True, done_pending=False)
        if self.state.unseen:  # whether a move is possible cannot be known: wait for done
            self.state = replace(self.state, phase=Phase.MOVE, dice=event.values)
            return [DiceAccepted(seat, event.values), Turn(seat, EXPECT_MOVE)]
        return self.accept_dice(event.values)

    def _next_roll_judges(self) -> list[Signal]:
        """The next roll arrived while a play is open: judge it; an illegal play may stand."""
        out = self._judge_now() if self.state.phase is Phase.MOVE else []
        if self.state.phase is not Phase.CORRECT:
            return out
        s = self.state
        board = s.board if s.board is not None else self.board_of(s.pos)
        stands = self.illegal_stands(board)
        if stands is None:
            return out or self._correct_differs(board)
        return out + stands

    def _opening(self, event: OpeningRoll) -> list[Signal]:
        s = self.state
        if s.phase not in (Phase.ROLL, Phase.SETUP) or s.first_roll_done:
            log.info("opening roll %s ignored: the game has begun", event.values)
            return []
        if s.phase is Phase.SETUP:
            return self._setup_differs()
        return self.opening(event.values)

    def _board(self, event: BoardObserved) -> list[Signal]:
        s = self.state
        self.state = s = replace(s, board=event.board, stable=True, board_t=event.t, choice=(),
                                 shown=0, unsure=False)
        if s.phase is Phase.OVER:
            return []
        if s.unseen:
            if s.phase is Phase.ROLL:
                return self._adopt(event.board)
            return self._judge_now() if s.done_pending else []
        if s.phase in (Phase.SETUP, Phase.ROLL):
            return self._check_standing(event.board)
        if s.phase is Phase.MOVE:
            return self._judge_now() if s.done_pending else []
        legal, _, _ = self._safe_judge(event.board)
        if legal or event.board == self.board_of(s.pos):
            self.state = replace(s, phase=Phase.MOVE, differs=False)
            if s.done_pending and legal:
                return self._judge_now()
            return [Turn(self.seat(), EXPECT_MOVE)]
        return self._correct_differs(event.board)

    def _candidates(self, event: BoardCandidates) -> list[Signal]:
        """Legal results an unsure reading fits about equally: the seat on turn chooses (one
        legal result left: it is the board read). Boards the rules do not allow are dropped,
        so no choice can make an illegal play legal."""
        s = self.state
        if s.phase not in (Phase.MOVE, Phase.CORRECT) or s.unseen:
            return []
        legal = tuple(b for b in dict.fromkeys(event.boards) if self._safe_judge(b)[0])
        if len(legal) <= 1:
            return self._board(BoardObserved(legal[0], event.t)) if legal else []
        if not self.settings.done_button:  # nothing to choose with: the players fix the board
            return [notice(BOARD_UNSURE)]
        self.state = replace(s, choice=legal, shown=0, stable=True, board_t=event.t,
                             done_pending=False, unsure=False)
        return [self._choice()]

    def _unsure(self) -> list[Signal]:
        """No legal result fits the board read: it is not judged, whatever was read before."""
        s = self.state
        if s.phase not in (Phase.MOVE, Phase.CORRECT) or s.unseen:
            return []
        self.state = replace(s, unsure=True, stable=True, choice=(), shown=0)
        return [notice(BOARD_UNSURE)]

    def _choice(self) -> BoardChoice:
        s = self.state
        plays = tuple(self.notation(self._safe_judge(board)[1]) for board in s.choice)
        return BoardChoice(self.seat(), s.shown, plays)

    def _choose(self, long: bool) -> list[Signal]:
        """Done during a choice: a press shows the next play, a long press takes the shown."""
        s = self.state
        if not long:
            self.state = replace(s, shown=(s.shown + 1) % len(s.choice))
            return [self._choice()]
        board = s.choice[s.shown]
        self.state = replace(s, board=board, choice=(), shown=0, phase=Phase.MOVE, differs=False)
        return self._judge_now()

    def _check_standing(self, board: Board) -> list[Signal]:
        """Before a roll the board must show the position (the start position at set-up)."""
        s = self.state
        expected = self.board_of(s.pos)
        if board == expected:
            if s.phase is Phase.SETUP or s.differs:
                self.state = replace(s, phase=Phase.ROLL, differs=False)
                return [Turn(self.seat(), EXPECT_ROLL)]
            return []
        fields, _ = self._diff_or_all(expected, board)
        if not s.first_roll_done:
            self.state = replace(s, phase=Phase.SETUP, differs=True)
            return [BoardDiffers(self.seat(), tuple(fields)), Turn(self.seat(), EXPECT_SETUP)]
        self.state = replace(s, differs=True)
        return [BoardDiffers(self.seat(), tuple(fields))]

    def _setup_differs(self) -> list[Signal]:
        s = self.state
        board = s.board if s.board is not None else self.board_of(s.pos)
        fields, _ = self._diff_or_all(self.board_of(s.pos), board)
        return [BoardDiffers(self.seat(), tuple(fields)), Turn(self.seat(), EXPECT_SETUP)]

    def _button(self, event: ButtonPressed) -> list[Signal]:
        s = self.state
        if event.name is Button.UNDO and event.long:
            return self._undo(event.t)
        if event.name is Button.ROLL:
            if s.phase is Phase.ROLL:
                return self.roll_button()
            return []
        if event.name is not Button.DONE:
            return self.other_button(event)
        if s.phase not in (Phase.MOVE, Phase.CORRECT):
            return []
        if event.seat is not None and event.seat != self.seat():
            return [notice(NOT_YOUR_TURN)]
        if not s.stable or s.unsure:
            self.state = replace(s, done_pending=True)
            return [notice(HAND_OVER_BOARD if not s.stable else BOARD_UNSURE)]
        if s.choice:
            return self._choose(event.long)
        return self._judge_now()

    def _play_unseen(self, event: PlayUnseen) -> list[Signal]:
        s = self.state
        if s.phase not in (Phase.MOVE, Phase.CORRECT):
            return []
        if event.seat is not None and event.seat != self.seat():
            return [notice(NOT_YOUR_TURN)]
        self.state = replace(s, unseen=True)
        return self._judge_now()

    def _adopt(self, board: Board) -> list[Signal]:
        """The camera sees again after unseen plays: what it shows is the position now."""
        try:
            out = self.adopt(board)
        except RulesError as exc:
            log.info("board after unseen plays cannot be taken: %s", exc)
            return [notice(IMPOSSIBLE_BOARD)]
        self.history.clear()  # undo cannot go back past plays nobody saw
        self.state = replace(self.state, unseen=False, differs=False)
        return [notice(BOARD_TAKEN), *out]

    def _judge_now(self) -> list[Signal]:
        self.state = s = replace(self.state, unsure=False, choice=(), shown=0)
        if s.unseen:
            self.state = replace(s, done_pending=False, differs=False)
            return [notice(PLAY_UNSEEN), *self.pass_unseen()]
        board = s.board if s.board is not None else self.board_of(s.pos)
        legal, play, why = self._safe_judge(board)
        self.state = replace(self.state, done_pending=False)
        if legal:
            self.history.append(replace(s, board=None, done_pending=False, phase=Phase.MOVE))
            return self.accept_play(play)
        fields, restore = self._diff_or_all(self.board_of(s.pos), board)
        self.state = replace(self.state, phase=Phase.CORRECT, differs=True)
        why = why or NOT_ALLOWED
        return [
            Illegal(self.seat(), why, tuple(fields), tuple(restore)),
            Turn(self.seat(), EXPECT_CORRECT),
        ]

    def _safe_judge(self, board: Board) -> tuple[bool, Any, Reason | None]:
        if not isinstance(board, type(self.board_of(self.state.pos))):
            return False, None, FOREIGN_BOARD
        try:
            return self.judge(board)
        except RulesError as exc:
            log.info("impossible board: %s", exc)
            return False, None, IMPOSSIBLE_BOARD

    def _correct_differs(self, board: Board) -> list[Signal]:
        fields, _ = self._diff_or_all(self.board_of(self.state.pos), board)
        return [BoardDiffers(self.seat(), tuple(fields))]

    def _diff_or_all(self, expected: Board, observed: Board) -> tuple[list[str], list[str]]:
        if not isinstance(observed, type(expected)):
            return ["board"], []
        return self.diff(expected, observed)

    def _undo(self, t: float) -> list[Signal]:
        """Back to just before the last accepted play; its settle time starts again."""
        if not self.history:
            return [notice(NOTHING_TO_UNDO)]
        board, stable = self.state.board, self.state.stable
        self.state = replace(self.history.pop(), board=board, stable=stable, board_t=t)
        return [notice(UNDONE), Turn(self.seat(), EXPECT_MOVE)]


def reroll(seat: int, why: Reason) -> Reroll:
    """A Reroll signal carrying a catalog reason."""
    return Reroll(seat, why)


def notice(why: Reason) -> Notice:
    """A Notice signal carrying a catalog reason."""
    return Notice(why)


def expect_roll(seat: int) -> Turn:
    return Turn(seat, EXPECT_ROLL)


def multiset_diff(a: Sequence[int], b: Sequence[int]) -> tuple[list[int], list[int]]:
    """(items only in a, items only in b), counting repeats."""
    rest = list(b)
    only_a = []
    for x in a:
        if x in rest:
            rest.remove(x)
        else:
            only_a.append(x)
    return only_a, rest
