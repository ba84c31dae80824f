"""How the referee behaves at the table, event by event, with the real rules engines.

Boards are made with the engines (`Play.parse`, `apply`), never by the referee under test.
"""

from __future__ import annotations

import random

import pytest

from controller.referee import Referee, RefereeInputError
from controller.referee.turns import TableSettings
from controller.rules import backgammon as bg
from controller.sim.evening import play_game, run_evening, run_game
from controller.sim.table import Habits, SimulatedTable
from controller.words.events import (
    BackgammonBoard,
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    ElectronicRoll,
    NewGame,
    OpeningRoll,
    Tick,
    ViewBlocked,
)
from controller.words.signals import (
    BoardDiffers,
    DiceAccepted,
    ExtraRoll,
    GameOver,
    Illegal,
    Notice,
    PlayAccepted,
    Reroll,
    RollElectronicDie,
    Turn,
)

DONE0 = ButtonPressed("done", seat=0)


def _board(pos: bg.Position, notation: str = "-") -> BoardObserved:
    return BoardObserved(pos.apply(bg.Play.parse(notation)).to_board())


def _accepted(signals: list, seat: int, notation: str) -> bool:
    """The first signal accepts `notation` for `seat` (the order of the moves does not matter)."""
    first = signals[0]
    return (
        isinstance(first, PlayAccepted)
        and first.seat == seat
        and sorted(bg.Play.parse(first.notation).moves) == sorted(bg.Play.parse(notation).moves)
    )


def _types(signals: list) -> list[str]:
    return [s.type for s in signals]


def _started(variant: str = "standard", settings: TableSettings | None = None) -> Referee:
    referee = Referee(settings)
    assert referee.handle(NewGame("backgammon", variant)) == [Turn(0, "roll")]
    return referee


START = bg.Position.initial()


def test_any_order_of_checker_moves_reaching_a_legal_position_is_accepted() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    assert referee.handle(_board(START, "6/5")) == []  # half a play: not judged
    assert referee.handle(_board(START, "6/5 8/5")) == []
    assert _accepted(referee.handle(DONE0), 0, "8/5 6/5")


def test_intermediate_board_that_looks_illegal_is_not_judged() -> None:
    referee = _started()
    referee.handle(DiceObserved((6, 5)))
    assert referee.handle(_board(START, "24/18")) == []
    assert referee.handle(ViewBlocked()) == []
    assert referee.handle(_board(START, "24/13")) == []
    assert isinstance(referee.handle(DONE0)[0], PlayAccepted)


def test_dice_seen_while_the_mover_hand_is_over_the_board_are_ignored() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(ViewBlocked())
    assert referee.handle(DiceObserved((6, 6))) == []
    referee.handle(_board(START, "8/5 6/5"))
    assert _accepted(referee.handle(DONE0), 0, "8/5 6/5")


def test_die_outside_the_tray_or_cocked_is_rolled_again() -> None:
    referee = _started()
    out = referee.handle(DiceObserved((3, 1), outside=(False, True)))
    assert _types(out) == ["reroll"] and "tray" in out[0].reason.en
    out = referee.handle(DiceObserved((3, 1), cocked=(True, False)))
    assert _types(out) == ["reroll"] and out[0].reason.de
    assert referee.handle(DiceObserved((3, 1)))[0] == DiceAccepted(0, (3, 1))


def test_opening_roll_higher_die_begins_with_both_numbers() -> None:
    referee = _started()
    assert isinstance(referee.handle(OpeningRoll((4, 4)))[0], Reroll)
    out = referee.handle(OpeningRoll((2, 5)))
    assert out[0] == DiceAccepted(1, (5, 2)) and out[1] == Turn(1, "move")


def test_hofer_double_earns_another_roll() -> None:
    referee = _started("hofer")
    pos = bg.Position.initial(bg.Options.preset("hofer"))
    referee.handle(DiceObserved((1, 1)))
    play = pos.legal_plays((1, 1))[0]
    referee.handle(BoardObserved(pos.apply(play).to_board()))
    out = referee.handle(DONE0)
    assert _types(out) == ["play_accepted", "extra_roll", "turn"]
    assert out[1] == ExtraRoll(0) and out[2] == Turn(0, "roll_again")


def test_setup_check_lists_wrong_fields_until_start_position_stands() -> None:
    referee = _started()
    short = list(START.to_board().points)
    short[5] -= 1  # one checker missing on White's 6-point
    wrong = BoardObserved(BackgammonBoard(tuple(short)))
    out = referee.handle(wrong)
    assert out == [BoardDiffers(0, ("6",)), Turn(0, "setup")]
    assert referee.handle(DiceObserved((3, 1))) == out
    assert referee.handle(BoardObserved(START.to_board())) == [Turn(0, "roll")]
    assert referee.handle(DiceObserved((3, 1)))[0] == DiceAccepted(0, (3, 1))


def test_after_illegal_the_table_waits_for_before_position_or_a_legal_result() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(_board(START, "13/7"))
    out = referee.handle(DONE0)
    assert isinstance(out[0], Illegal) and out[1] == Turn(0, "correct_board")
    assert set(out[0].fields) == {"7", "13"} and set(out[0].restore) == {"7=0", "13=5"}
    assert referee.handle(_board(START, "13/8")) == [BoardDiffers(0, ("8", "13"))]
    assert referee.handle(_board(START, "24/21 6/5")) == [Turn(0, "move")]
    assert _accepted(referee.handle(DONE0), 0, "24/21 6/5")


def test_illegal_play_stands_once_the_opponent_rolls() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(_board(START, "13/7"))
    out = referee.handle(DiceObserved((5, 2)))
    assert _types(out) == ["illegal", "turn", "notice", "dice_accepted", "turn"]
    assert out[3] == DiceAccepted(1, (5, 2))


def test_must_correct_table_ignores_the_roll_until_corrected() -> None:
    referee = _started(settings=TableSettings(must_correct=True))
    referee.handle(DiceObserved((3, 1)))
    referee.handle(_board(START, "13/7"))
    assert _types(referee.handle(DiceObserved((5, 2)))) == ["illegal", "turn"]
    assert _types(referee.handle(DiceObserved((5, 2)))) == ["board_differs"]


def test_long_press_on_undo_takes_back_the_last_accepted_turn() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(_board(START, "8/5 6/5"))
    referee.handle(DONE0)
    assert referee.handle(ButtonPressed("undo", seat=0)) == []  # a short press does nothing
    out = referee.handle(ButtonPressed("undo", seat=0, long=True))
    assert isinstance(out[0], Notice) and out[1] == Turn(0, "move")
    referee.handle(_board(START, "24/23 13/10"))
    assert _accepted(referee.handle(DONE0), 0, "24/23 13/10")
    out = referee.handle(ButtonPressed("undo", long=True))
    out = referee.handle(ButtonPressed("undo", long=True))
    assert out[0].key == "referee.nothing_to_undo"


def test_without_done_button_a_board_is_judged_after_the_settle_time() -> None:
    referee = _started(settings=TableSettings(done_button=False, settle_time=3.0))
    referee.handle(DiceObserved((3, 1), t=1.0))
    referee.handle(BoardObserved(START.apply(bg.Play.parse("8/5 6/5")).to_board(), t=10.0))
    assert referee.handle(Tick(t=12.9)) == []
    assert _accepted(referee.handle(Tick(t=13.0)), 0, "8/5 6/5")


def test_done_while_hand_is_over_the_board_waits_for_the_board() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(ViewBlocked())
    out = referee.handle(DONE0)
    assert out[0].key == "referee.view_blocked"
    assert _accepted(referee.handle(_board(START, "8/5 6/5")), 0, "8/5 6/5")


def test_done_from_the_wrong_seat_is_refused() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    referee.handle(_board(START, "8/5 6/5"))
    assert referee.handle(ButtonPressed("done", seat=1))[0].key == "referee.not_your_turn"


def test_unknown_variant_is_refused_and_running_game_kept() -> None:
    referee = _started()
    referee.handle(DiceObserved((3, 1)))
    state = referee.game.state
    with pytest.raises(RefereeInputError, match="chouette"):
        referee.handle(NewGame("backgammon", "chouette"))
    with pytest.raises(RefereeInputError, match="no_such_rule"):
        referee.handle(NewGame("maedn", "hofer", 4, options=(("no_such_rule", True),)))
    assert referee.game.state == state


def test_vegas_electronic_die_rolls_on_the_roll_button() -> None:
    referee = Referee()
    referee.handle(NewGame("maedn", "vegas", players=4))
    assert referee.handle(ButtonPressed("roll", seat=0)) == [RollElectronicDie(0)]
    assert referee.handle(ElectronicRoll(6))[0] == DiceAccepted(0, (6,))


def test_events_before_any_game_get_a_notice() -> None:
    out = Referee().handle(DiceObserved((3, 1)))
    assert out[0].key == "referee.no_game" and out[0].reason.de and out[0].reason.en


def test_same_events_give_the_same_signals() -> None:
    events: list = []
    first: list = []

    def listen(event, signals) -> None:
        events.append(event)
        first.append(signals)

    play_game("backgammon", "standard", 11, listener=listen)
    again = Referee()
    assert [again.handle(e) for e in events] == first


@pytest.mark.parametrize("variant", ["standard", "hofer"])
def test_backgammon_game_over_matches_the_engine_result(variant: str) -> None:
    plays: list[PlayAccepted] = []
    over: list[GameOver] = []

    def listen(event, signals) -> None:
        plays.extend(s for s in signals if isinstance(s, PlayAccepted))
        over.extend(s for s in signals if isinstance(s, GameOver))

    no_cube = Habits(undo_rate=0.0, double_rate=0.0)  # GameOver.points = engine multiplier
    play_game("backgammon", variant, 5, habits=no_cube, listener=listen)
    pos = bg.Position.initial(bg.Options.preset(variant))
    for play in plays:
        pos = pos.with_turn(play.seat).apply(bg.Play.parse(play.notation))
    result = pos.result()
    assert result is not None and len(over) == 1
    assert over[0].order[0] == result.winner
    assert (over[0].result, over[0].points) == (result.kind, result.multiplier)


@pytest.mark.parametrize("variant", ["hofer", "vegas", "schmidt"])
def test_maedn_game_over_names_a_seat_with_all_pieces_in_the_goal(variant: str) -> None:
    table = SimulatedTable("maedn", variant, 4, 3)
    run_game(table, die=random.Random(3))
    assert table.result is not None
    winner = table.result.order[0]
    assert all(v >= 40 for v in table.board.pieces[winner])


def test_simulated_evening_flags_every_injected_illegal_play_and_no_legal_one() -> None:
    report = run_evening(12, seed=101, illegal_rate=0.3).to_json()
    assert report["injected"] > 100
    assert report["flagged"] == report["injected"] and report["missed"] == 0
    assert report["wrongly_flagged"] == 0 and report["stray_dice_accepted"] == 0
    assert len(report["by_kind"]) >= 15


def test_simulated_evening_without_done_button() -> None:
    report = run_evening(6, seed=7, settings=TableSettings(done_button=False)).to_json()
    assert report["injected"] > 20 and report["missed"] == 0 and report["wrongly_flagged"] == 0
