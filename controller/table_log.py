"""Table log: a recorded stream of events, one JSON object per line (see docs/table-log.md).

The same JSON shape is what the journal stores, so a journal can be exported as a table log and
a table log replayed into a journal. Reading is strict: a line that does not describe an event
raises `TableLogError` naming the field, and nothing is guessed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator
from typing import Any

from controller.rules.games import GAMES
from controller.words.buttons import Button
from controller.words.events import (
    BackgammonBoard,
    Board,
    BoardCandidates,
    BoardObserved,
    BoardUnsure,
    ButtonPressed,
    DiceObserved,
    DieThrown,
    ElectronicRoll,
    Event,
    MaednBoard,
    NewGame,
    OpeningRoll,
    PlayUnseen,
    Tick,
    ViewBlocked,
)

log = logging.getLogger(__name__)



class TableLogError(ValueError):
    """A table-log line that does not describe an event; the message names the problem."""


def parse_line(line: str) -> Event:
    """One JSON line to an Event; raises `TableLogError` with the reason when unreadable."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TableLogError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    return event_from_json(obj)


def read_lines(lines: Iterable[str]) -> Iterator[tuple[int, Event | TableLogError]]:
    """(line number, event or the error) for each non-blank line, so a caller can go on."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield number, parse_line(line)
        except TableLogError as exc:
            yield number, exc


def event_from_json(obj: Any) -> Event:
    """A decoded JSON object to an Event (the inverse of `event_to_json`)."""
    if not isinstance(obj, dict):
        raise TableLogError("a line must be a JSON object")
    kind = obj.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        known = ", ".join(sorted(_PARSERS))
        raise TableLogError(f"unknown or missing 'type' {kind!r}; known: {known}")
    t = _number(obj, "t", 0.0)
    return parser(obj, t)


def event_to_json(event: Event) -> dict[str, Any]:
    """An Event as the JSON object of one table-log line (fields at their defaults left out)."""
    match event:
        case NewGame():
            out: dict[str, Any] = {
                "type": "new_game",
                "game": event.game,
                "variant": event.variant,
                "players": event.players,
            }
            if event.match_length != 1:
                out["match_length"] = event.match_length
            if event.options:
                out["options"] = dict(event.options)
        case DiceObserved():
            out = {"type": "dice", "values": list(event.values)}
            if event.cocked:
                out["cocked"] = list(event.cocked)
            if event.outside:
                out["outside"] = list(event.outside)
        case BoardObserved():
            out = {"type": "board", **board_to_json(event.board)}
        case BoardCandidates():
            out = {"type": "board_candidates",
                   "boards": [board_to_json(board) for board in event.boards]}
        case BoardUnsure():
            out = {"type": "board_unsure"}
        case ViewBlocked():
            out = {"type": "view_blocked"}
        case ButtonPressed():
            out = {"type": "button", "name": event.name}
            if event.seat is not None:
                out["seat"] = event.seat
            if event.long:
                out["long"] = True
        case DieThrown():
            out = {"type": "die_thrown"}
        case Tick():
            out = {"type": "tick"}
        case ElectronicRoll():
            out = {"type": "electronic_roll", "value": event.value}
        case OpeningRoll():
            out = {"type": "opening_roll", "values": list(event.values)}
        case PlayUnseen():
            out = {"type": "play_unseen"}
            if event.seat is not None:
                out["seat"] = event.seat
        case _:
            raise TypeError(f"not an event: {event!r}")
    if event.t:
        out["t"] = event.t
    return out


def board_to_json(board: Board) -> dict[str, Any]:
    """A board as the keys of a `board` line (without its type)."""
    if isinstance(board, BackgammonBoard):
        return {
            "points": list(board.points),
            "bar": {"white": board.bar_white, "black": board.bar_black},
            "off": {"white": board.off_white, "black": board.off_black},
        }
    if isinstance(board, MaednBoard):
        return {"pieces": [list(p) for p in board.pieces]}
    raise TypeError(f"not a board: {board!r}")


def dumps(event: Event) -> str:
    """One table-log line (without newline), compact and with stable key order."""
    return json.dumps(event_to_json(event), separators=(",", ":"), ensure_ascii=False)


def _number(obj: dict[str, Any], key: str, default: float) -> float:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TableLogError(f"'{key}' must be a number, got {value!r}")
    return float(value)


def _int(obj: dict[str, Any], key: str, default: int | None = None, lo: int = 0) -> int:
    if key not in obj and default is not None:
        return default
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TableLogError(f"'{key}' must be an integer, got {value!r}")
    if value < lo:
        raise TableLogError(f"'{key}' must be at least {lo}, got {value}")
    return value


def _int_list(value: Any, what: str, lo: int, hi: int) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise TableLogError(f"'{what}' must be a list of integers, got {value!r}")
    for v in value:
        if not lo <= v <= hi:
            raise TableLogError(f"'{what}' value {v} is outside {lo}..{hi}")
    return tuple(value)


def _flags(obj: dict[str, Any], key: str, n: int) -> tuple[bool, ...]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, bool) for v in value):
        raise TableLogError(f"'{key}' must be a list of true/false, got {value!r}")
    if value and len(value) != n:
        raise TableLogError(f"'{key}' has {len(value)} entries for {n} dice")
    return tuple(value)


def _new_game(obj: dict[str, Any], t: float) -> NewGame:
    name = obj.get("game")
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise TableLogError(f"'game' must be one of {', '.join(GAMES)}, got {name!r}")
    variant = obj.get("variant", game.default_variant)
    if not isinstance(variant, str) or not variant:
        raise TableLogError(f"'variant' must be a name, got {variant!r}")
    players = _int(obj, "players", game.default_players, lo=2)
    if players not in game.players:
        raise TableLogError(f"'players' = {players} is not possible in {game.name}")
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise TableLogError(f"'options' must be an object, got {options!r}")
    return NewGame(
        game=game.name,
        variant=variant,
        players=players,
        match_length=_int(obj, "match_length", 1, lo=1),
        options=tuple(sorted(options.items())),
        t=t,
    )


def _dice(obj: dict[str, Any], t: float) -> DiceObserved:
    values = _int_list(obj.get("values"), "values", 1, 6)
    if not 1 <= len(values) <= 2:
        raise TableLogError(f"'values' must hold one or two dice, got {len(values)}")
    return DiceObserved(
        values=values,
        cocked=_flags(obj, "cocked", len(values)),
        outside=_flags(obj, "outside", len(values)),
        t=t,
    )


def _board(obj: dict[str, Any], t: float) -> BoardObserved:
    return BoardObserved(board=_board_of(obj), t=t)


def _board_candidates(obj: dict[str, Any], t: float) -> BoardCandidates:
    boards = obj.get("boards")
    if not isinstance(boards, list) or not 2 <= len(boards) <= 3:
        raise TableLogError("'boards' must list 2 or 3 boards")
    found = []
    for i, board in enumerate(boards):
        if not isinstance(board, dict):
            raise TableLogError(f"'boards[{i}]' must be an object like a board line")
        try:
            found.append(_board_of(board))
        except TableLogError as exc:
            raise TableLogError(f"'boards[{i}]': {exc}") from None
    if len({type(b) for b in found}) > 1:
        raise TableLogError("'boards' mixes backgammon and Mensch boards")
    return BoardCandidates(boards=tuple(found), t=t)


def _board_of(obj: dict[str, Any]) -> Board:
    if "points" in obj:
        points = _int_list(obj["points"], "points", -15, 15)
        if len(points) != 24:
            raise TableLogError(f"'points' must list 24 points, got {len(points)}")
        bar = _side_counts(obj, "bar")
        off = _side_counts(obj, "off")
        board: BackgammonBoard | MaednBoard = BackgammonBoard(points, *bar, *off)
    elif "pieces" in obj:
        pieces = obj["pieces"]
        if not isinstance(pieces, list) or not 2 <= len(pieces) <= 4:
            raise TableLogError("'pieces' must list the pieces of 2 to 4 seats")
        seats = tuple(
            tuple(sorted(_int_list(p, f"pieces[{i}]", -1, 43))) for i, p in enumerate(pieces)
        )
        for i, seat in enumerate(seats):
            if len(seat) > 4:  # fewer: a captured piece not put back is seen as missing
                raise TableLogError(f"'pieces[{i}]' holds at most 4 pieces, got {len(seat)}")
        board = MaednBoard(seats)
    else:
        raise TableLogError("a board line needs 'points' (backgammon) or 'pieces' (maedn)")
    return board


def _side_counts(obj: dict[str, Any], key: str) -> tuple[int, int]:
    value = obj.get(key, {"white": 0, "black": 0})
    if not isinstance(value, dict) or set(value) - {"white", "black"}:
        raise TableLogError(f"'{key}' must be {{\"white\": n, \"black\": n}}, got {value!r}")
    return _int(value, "white", 0), _int(value, "black", 0)


def _button(obj: dict[str, Any], t: float) -> ButtonPressed:
    name = obj.get("name")
    if name not in tuple(Button):
        raise TableLogError(f"'name' must be one of {', '.join(Button)}, got {name!r}")
    seat = obj.get("seat")
    if seat is not None:
        seat = _int(obj, "seat")
        if seat > 3:
            raise TableLogError(f"'seat' must be 0..3, got {seat}")
    long = obj.get("long", False)
    if not isinstance(long, bool):
        raise TableLogError(f"'long' must be true or false, got {long!r}")
    return ButtonPressed(name=name, seat=seat, long=long, t=t)


def _electronic_roll(obj: dict[str, Any], t: float) -> ElectronicRoll:
    value = _int(obj, "value")
    if not 1 <= value <= 6:
        raise TableLogError(f"'value' must be 1..6, got {value}")
    return ElectronicRoll(value=value, t=t)


def _opening_roll(obj: dict[str, Any], t: float) -> OpeningRoll:
    values = _int_list(obj.get("values"), "values", 1, 6)
    if not 2 <= len(values) <= 4:
        raise TableLogError("'values' of an opening roll must hold one die per seat (2 to 4)")
    return OpeningRoll(values=values, t=t)


def _play_unseen(obj: dict[str, Any], t: float) -> PlayUnseen:
    seat = obj.get("seat")
    if seat is not None:
        seat = _int(obj, "seat")
        if seat > 3:
            raise TableLogError(f"'seat' must be 0..3, got {seat}")
    return PlayUnseen(seat=seat, t=t)


_PARSERS = {
    "new_game": _new_game,
    "dice": _dice,
    "board": _board,
    "board_candidates": _board_candidates,
    "board_unsure": lambda obj, t: BoardUnsure(t=t),
    "view_blocked": lambda obj, t: ViewBlocked(t=t),
    "button": _button,
    "die_thrown": lambda obj, t: DieThrown(t=t),
    "tick": lambda obj, t: Tick(t=t),
    "electronic_roll": _electronic_roll,
    "opening_roll": _opening_roll,
    "play_unseen": _play_unseen,
}
