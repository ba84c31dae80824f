"""Whatever a table or an outside check feeds in, the referee answers with signals that serialise
to JSON, or refuses a `new_game` it cannot start; it never crashes."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.referee import Referee, RefereeInputError
from controller.rules import backgammon as bg
from controller.rules import maedn
from controller.words.events import (
    BackgammonBoard,
    BoardObserved,
    ButtonPressed,
    DiceObserved,
    ElectronicRoll,
    MaednBoard,
    NewGame,
    OpeningRoll,
    Tick,
    ViewBlocked,
)

BG_START = bg.Position.initial().to_board()
MD_START = maedn.Position.initial(players=4).to_board()

times = st.floats(0, 1000, allow_nan=False)
new_games = st.one_of(
    st.builds(NewGame, game=st.just("backgammon"), variant=st.sampled_from(["standard", "hofer"])),
    st.builds(
        NewGame,
        game=st.just("maedn"),
        variant=st.sampled_from(["hofer", "vegas", "schmidt", "openspiel", "nonsense"]),
        players=st.integers(2, 4),
    ),
    st.builds(NewGame, game=st.just("backgammon"), options=st.just((("done_button", False),))),
)
bg_boards = st.lists(st.integers(-3, 3), min_size=24, max_size=24).map(
    lambda delta: BackgammonBoard(tuple(p + d for p, d in zip(BG_START.points, delta, strict=True)))
)
md_boards = st.lists(
    st.lists(st.integers(-1, 43), min_size=4, max_size=4).map(tuple), min_size=2, max_size=4
).map(lambda seats: MaednBoard(tuple(seats)))
events = st.one_of(
    new_games,
    st.builds(
        DiceObserved,
        values=st.lists(st.integers(1, 6), min_size=1, max_size=2).map(tuple),
        cocked=st.sampled_from([(), (True,), (False, True)]),
        t=times,
    ),
    st.builds(BoardObserved, board=st.one_of(bg_boards, md_boards, st.just(BG_START),
                                             st.just(MD_START)), t=times),
    st.builds(
        ButtonPressed,
        name=st.sampled_from(["done", "undo", "roll", "new_game", "double", "take", "drop"]),
        seat=st.none() | st.integers(0, 3),
        long=st.booleans(),
        t=times,
    ),
    st.builds(ViewBlocked, t=times),
    st.builds(Tick, t=times),
    st.builds(ElectronicRoll, value=st.integers(1, 6), t=times),
    st.builds(OpeningRoll, values=st.lists(st.integers(1, 6), min_size=2, max_size=4).map(tuple)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events, max_size=40))
def test_any_event_stream_gives_json_signals_or_a_clear_refusal(stream: list) -> None:
    referee = Referee()
    for event in stream:
        try:
            signals = referee.handle(event)
        except RefereeInputError as exc:
            assert isinstance(event, NewGame) and str(exc)
            continue
        for signal in signals:
            out = json.loads(json.dumps(signal.to_json()))
            assert out["type"]
