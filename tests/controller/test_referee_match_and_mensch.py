"""Backgammon match score across games, and the Mensch turn cycle (000 Hofer, 003 Vegas)."""

from __future__ import annotations

from controller.referee import Referee
from controller.sim.evening import play_game
from controller.sim.table import Habits
from controller.words.events import (
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    MaednBoard,
    NewGame,
    OpeningRoll,
)
from controller.words.signals import (
    BoardDiffers,
    DiceAccepted,
    GameOver,
    Illegal,
    Notice,
    Reroll,
    ThreeTries,
    Turn,
)

HOUSE4 = (-1, -1, -1, -1)


def _mensch(variant: str = "hofer", players: int = 4) -> Referee:
    referee = Referee()
    referee.handle(NewGame("maedn", variant, players=players))
    return referee


def _board(*seats: tuple[int, ...]) -> BoardObserved:
    return BoardObserved(MaednBoard(tuple(tuple(sorted(s)) for s in seats)))


def test_match_score_carries_over_to_the_next_game_until_decided() -> None:
    events: list = []
    over: list[GameOver] = []
    habits = Habits(double_rate=0.0)  # no cube: the same game is worth the same each time
    play_game("backgammon", "standard", 21, habits=habits, listener=lambda e, s: events.append(e))
    game = events[1:]  # the same game, played again after each new-game press
    referee = Referee()
    referee.handle(NewGame("backgammon", "standard", match_length=5))
    for _ in range(3):
        for event in game:
            over += [s for s in referee.handle(event) if isinstance(s, GameOver)]
        out = referee.handle(ButtonPressed("new_game"))
        if isinstance(out[0], Notice):
            break
    winner, points = over[0].order[0], over[0].points
    scores = [o.match_score[winner] for o in over]
    assert scores[:2] == [points, 2 * points]
    decided = next(i for i, s in enumerate(scores) if s >= 5)
    assert len(over) == decided + 1
    assert out[0].key == "referee.match_over"


def test_single_game_new_game_button_starts_afresh() -> None:
    referee = Referee()
    referee.handle(NewGame("backgammon", "standard"))
    referee.handle(DiceObserved((3, 1)))
    assert referee.handle(ButtonPressed("new_game")) == [Turn(0, "roll")]
    assert referee.handle(DiceObserved((6, 5)))[0] == DiceAccepted(0, (6, 5))


def test_mensch_highest_opening_roll_begins_ties_roll_again() -> None:
    referee = _mensch()
    assert isinstance(referee.handle(OpeningRoll((3, 6, 2, 6)))[0], Reroll)
    assert referee.handle(OpeningRoll((3, 6, 2, 5))) == [Turn(1, "roll")]
    assert referee.handle(DiceObserved((6,)))[0] == DiceAccepted(1, (6,))


def test_hofer_three_tries_while_all_pieces_are_in_the_house() -> None:
    referee = _mensch()
    out = referee.handle(DiceObserved((2,)))
    assert out[1:] == [ThreeTries(0, 2), Turn(0, "roll_again")]
    out = referee.handle(DiceObserved((5,)))
    assert out[1:] == [ThreeTries(0, 3), Turn(0, "roll_again")]
    assert referee.handle(DiceObserved((1,)))[1:] == [Turn(1, "roll")]


def test_vegas_has_no_three_tries() -> None:
    referee = _mensch("vegas")
    assert referee.handle(DiceObserved((2,)))[1:] == [Turn(1, "roll")]


def test_mensch_fields_are_named_on_the_shared_track() -> None:
    referee = _mensch()
    referee.handle(DiceObserved((3,)))
    referee.handle(DiceObserved((3,)))
    referee.handle(DiceObserved((3,)))  # seat 0's three tries are used up
    referee.handle(DiceObserved((4,)))  # seat 1: first try fails
    early = referee.handle(_board(HOUSE4, (-1, -1, -1, 0), HOUSE4, HOUSE4))  # out without a 6
    assert early == [BoardDiffers(1, ("house:1", "track:10"))]  # seat 1 starts at field 10
    assert referee.handle(_board(HOUSE4, HOUSE4, HOUSE4, HOUSE4)) == [Turn(1, "roll")]
    referee.handle(DiceObserved((6,)))  # seat 1 rolls a 6
    referee.handle(_board(HOUSE4, (-1, -1, -1, 0), HOUSE4, HOUSE4))
    assert referee.handle(ButtonPressed("done", seat=1))[0].notation == "H/0"
    referee.handle(DiceObserved((2,)))  # the extra roll after the 6
    referee.handle(_board(HOUSE4, (-1, -1, 0, 2), HOUSE4, HOUSE4))  # and one out without a 6
    out = referee.handle(ButtonPressed("done", seat=1))
    assert isinstance(out[0], Illegal) and out[0].seat == 1
    assert set(out[0].fields) == {"house:1", "track:12"}  # seat 1's field 2 is track 12
    assert out[0].reason.de and out[0].reason.en


def test_mensch_illegal_move_must_be_corrected_even_when_the_next_roll_comes() -> None:
    referee = _mensch()
    referee.handle(DiceObserved((6,)))
    referee.handle(_board((-1, -1, -1, 3), HOUSE4, HOUSE4, HOUSE4))  # 6 used to go to 3
    out = referee.handle(DiceObserved((4,)))
    assert [s.type for s in out] == ["illegal", "turn"]
    assert out[1] == Turn(0, "correct_board")
    assert referee.handle(DiceObserved((4,))) == [BoardDiffers(0, ("house:0", "track:3"))]
    assert referee.handle(_board(HOUSE4, HOUSE4, HOUSE4, HOUSE4)) == [Turn(0, "move")]


def _rolled_once(variant: str = "standard", match_length: int = 5) -> Referee:
    """White has played 3-1 (8/5 6/5); Black is on roll."""
    from controller.rules import backgammon as bg

    referee = Referee()
    referee.handle(NewGame("backgammon", variant, match_length=match_length))
    referee.handle(DiceObserved((3, 1)))
    start = bg.Position.initial(bg.Options.preset(variant))
    referee.handle(BoardObserved(start.apply(bg.Play.parse("8/5 6/5")).to_board()))
    referee.handle(ButtonPressed("done", seat=0))
    return referee


def test_double_and_take_doubles_the_cube_and_the_doubler_rolls() -> None:
    referee = _rolled_once()
    out = referee.handle(ButtonPressed("double", seat=1))
    assert [s.type for s in out] == ["double_offered", "turn"]
    assert (out[0].seat, out[0].cube) == (1, 2) and out[1].seat == 0
    assert referee.handle(DiceObserved((6, 5)))[0].key == "double_pending"  # answer first
    out = referee.handle(ButtonPressed("take", seat=0))
    assert [s.type for s in out] == ["double_taken", "turn"]
    assert (out[0].seat, out[0].cube) == (0, 2) and out[1] == Turn(1, "roll")
    assert referee.handle(ButtonPressed("double", seat=1))[0].key == "cube_owned_by_opponent"
    assert referee.handle(DiceObserved((6, 5)))[0] == DiceAccepted(1, (6, 5))


def test_drop_ends_the_game_for_the_cube_value_and_counts_in_the_match() -> None:
    referee = _rolled_once(match_length=5)
    referee.handle(ButtonPressed("double", seat=1))
    out = referee.handle(ButtonPressed("drop", seat=0))
    assert out == [GameOver(order=(1, 0), result="drop", points=1, match_score=(0, 1))]
    assert referee.handle(ButtonPressed("new_game")) == [Turn(0, "roll")]


def test_no_double_in_hofer_or_before_the_first_roll_or_while_moving() -> None:
    assert _rolled_once("hofer").handle(ButtonPressed("double"))[0].key == "cube_off"
    referee = Referee()
    referee.handle(NewGame("backgammon", "standard"))
    assert referee.handle(ButtonPressed("double", seat=0))[0].key == "referee.double_before_roll"
    referee.handle(DiceObserved((3, 1)))
    assert referee.handle(ButtonPressed("double", seat=0))[0].key == "referee.double_before_roll"
