"""Table log lines: the exact shapes outside checks write, round trips, and clear errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.table_log import (
    TableLogError,
    dumps,
    event_to_json,
    parse_line,
    read_lines,
)
from controller.words.events import (
    BackgammonBoard,
    BoardCandidates,
    BoardObserved,
    BoardUnsure,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    ElectronicRoll,
    MaednBoard,
    NewGame,
    OpeningRoll,
    Tick,
    ViewBlocked,
)

START = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]


def test_external_new_game_line() -> None:
    line = '{"type": "new_game", "game": "backgammon", "variant": "standard"}'
    assert parse_line(line) == NewGame("backgammon", "standard", players=2)


def test_external_dice_line() -> None:
    assert parse_line('{"type": "dice", "values": [6, 2]}') == DiceObserved((6, 2))


def test_external_board_line() -> None:
    line = json.dumps(
        {"type": "board", "points": START, "bar": {"white": 1, "black": 0},
         "off": {"white": 0, "black": 2}}
    )
    assert parse_line(line) == BoardObserved(BackgammonBoard(tuple(START), 1, 0, 0, 2))


def test_external_done_line() -> None:
    line = '{"type": "button", "name": "done", "seat": 1}'
    assert parse_line(line) == ButtonPressed("done", seat=1)


def test_maedn_lines() -> None:
    line = '{"type": "new_game", "game": "maedn", "variant": "hofer", "players": 4}'
    assert parse_line(line) == NewGame("maedn", "hofer", players=4)
    board = parse_line('{"type": "board", "pieces": [[3, -1, -1, -1], [-1, -1, -1, 40]]}')
    assert board == BoardObserved(MaednBoard(((-1, -1, -1, 3), (-1, -1, -1, 40))))


def test_optional_time_on_every_line() -> None:
    assert parse_line('{"type": "tick", "t": 12.5}') == Tick(t=12.5)
    assert parse_line('{"type": "view_blocked", "t": 3}') == ViewBlocked(t=3.0)


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "teleport"}', "teleport"),
        ('{"type": "dice", "values": [7, 1]}', "outside 1..6"),
        ('{"type": "dice", "values": [1, 2, 3]}', "one or two dice"),
        ('{"type": "dice", "values": [1, 2], "cocked": [true]}', "'cocked'"),
        ('{"type": "board", "points": [0, 0]}', "24 points"),
        ('{"type": "board"}', "'points'"),
        ('{"type": "board", "points": ' + json.dumps(START) + ', "bar": {"red": 1}}', "'bar'"),
        ('{"type": "button", "name": "explode"}', "'name'"),
        ('{"type": "button", "name": "done", "seat": "one"}', "'seat'"),
        ('{"type": "new_game", "game": "chess"}', "'game'"),
        ('{"type": "new_game", "game": "backgammon", "players": 3}', "'players'"),
        ('{"type": "tick", "t": "soon"}', "'t'"),
        ('{"type": "board", "pieces": [[1, 2, 3, 4, 5], [-1, -1, -1, -1]]}', "at most 4 pieces"),
        ('{"type": "board_candidates", "boards": [{"pieces": [[0], [1]]}]}', "2 or 3 boards"),
        ('{"type": "board_candidates", "boards": [{"pieces": [[0], [1]]}, {"points": [0]}]}',
         "'points' must list 24 points, got 1"),
        ('{"type": "board_candidates", "boards": [{"pieces": [[0], [1]]}, {"points": '
         + json.dumps(START) + '}]}', "mixes"),
    ],
)
def test_bad_lines_name_the_problem(line: str, names: str) -> None:
    with pytest.raises(TableLogError, match=names.replace("(", r"\(").replace(".", r"\.")):
        parse_line(line)


def test_unsure_readings_are_lines_of_their_own() -> None:
    line = ('{"type": "board_candidates", "boards": '
            '[{"pieces": [[0], [-1]]}, {"pieces": [[1], [-1]]}]}')
    assert parse_line(line) == BoardCandidates((MaednBoard(((0,), (-1,))),
                                                MaednBoard(((1,), (-1,)))))
    assert parse_line('{"type": "board_unsure", "t": 2.5}') == BoardUnsure(t=2.5)


def test_read_lines_goes_on_after_a_bad_line() -> None:
    got = list(read_lines(['{"type": "tick"}', "", "oops", '{"type": "die_thrown"}']))
    assert [n for n, _ in got] == [1, 3, 4]
    assert isinstance(got[1][1], TableLogError)
    assert got[2][1] == DieThrown()


dice = st.lists(st.integers(1, 6), min_size=1, max_size=2).map(tuple)
times = st.floats(0, 1e6, allow_nan=False).map(lambda x: round(x, 3))
maedn_boards = st.lists(
    st.lists(st.integers(-1, 43), min_size=4, max_size=4).map(lambda p: tuple(sorted(p))),
    min_size=2,
    max_size=4,
).map(lambda seats: MaednBoard(tuple(seats)))
events = st.one_of(
    st.builds(
        NewGame,
        game=st.just("backgammon"),
        variant=st.sampled_from(["standard", "hofer"]),
        players=st.just(2),
        match_length=st.integers(1, 15),
        t=times,
    ),
    st.builds(
        NewGame,
        game=st.just("maedn"),
        variant=st.sampled_from(["hofer", "vegas"]),
        players=st.integers(2, 4),
        options=st.just((("three_tries", False),)),
        t=times,
    ),
    dice.flatmap(
        lambda d: st.builds(
            DiceObserved,
            values=st.just(d),
            cocked=st.lists(st.booleans(), min_size=len(d), max_size=len(d)).map(tuple),
            t=times,
        )
    ),
    st.builds(
        BoardObserved,
        board=st.builds(
            BackgammonBoard,
            points=st.lists(st.integers(-15, 15), min_size=24, max_size=24).map(tuple),
            bar_white=st.integers(0, 15),
            bar_black=st.integers(0, 15),
            off_white=st.integers(0, 15),
            off_black=st.integers(0, 15),
        ),
        t=times,
    ),
    st.builds(BoardObserved, board=maedn_boards, t=times),
    st.builds(
        ButtonPressed,
        name=st.sampled_from(["done", "undo", "roll", "new_game"]),
        seat=st.none() | st.integers(0, 3),
        long=st.booleans(),
        t=times,
    ),
    st.builds(
        BoardCandidates,
        boards=st.lists(maedn_boards, min_size=2, max_size=3, unique=True).map(tuple),
        t=times,
    ),
    st.builds(BoardUnsure, t=times),
    st.builds(ViewBlocked, t=times),
    st.builds(DieThrown, t=times),
    st.builds(Tick, t=times),
    st.builds(ElectronicRoll, value=st.integers(1, 6), t=times),
    st.builds(OpeningRoll, values=st.lists(st.integers(1, 6), min_size=2, max_size=4).map(tuple)),
)


@given(events)
def test_every_event_survives_a_round_trip(event) -> None:
    assert parse_line(dumps(event)) == event
    assert json.loads(dumps(event))["type"] == event_to_json(event)["type"]
