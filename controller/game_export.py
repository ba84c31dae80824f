"""Export finished or running games from a journal or table log.

Backgammon games and matches become a Jellyfish ``.mat`` file, which GNU Backgammon imports
(``import mat FILE``); Mensch games become JSON with every roll and move. The events are
replayed through the referee, so the export holds exactly what the table accepted (an undone
turn is left out).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.referee import Referee
from controller.words.buttons import Button
from controller.words.events import ButtonPressed, Event, NewGame
from controller.words.signals import (
    EXPECT_ROLL,
    CubeOffered,
    CubeTaken,
    DiceAccepted,
    GameOver,
    Notice,
    PlayAccepted,
    Turn,
)

log = logging.getLogger(__name__)

COLUMN = 34  # where the second player's half of a .mat line starts


class ExportError(ValueError):
    """The games cannot be written in the asked format; the message says why."""


@dataclass
class TurnRecord:
    """A roll and the play made with it, or a cube action ("double", "take", "drop")."""

    seat: int
    dice: tuple[int, ...]
    play: str | None = None  # None: nothing was moved (no legal move)
    action: str = "roll"
    cube: int = 0  # the cube's value after a double is taken


@dataclass
class GameRecord:
    game: str
    variant: str
    players: int
    match_length: int
    turns: list[TurnRecord] = field(default_factory=list)
    over: GameOver | None = None
    irregular: str | None = None  # why the record is not a sequence of legal plays


def records_from_events(events: Iterable[Event]) -> list[GameRecord]:
    """Replay events through a referee and keep one record per game, in order."""
    referee = Referee()
    records: list[GameRecord] = []
    for event in events:
        signals = referee.handle(event)
        pressed = isinstance(event, ButtonPressed) and event.name is Button.NEW_GAME
        if isinstance(event, NewGame) or (pressed and any(_starts_game(s) for s in signals)):
            start = referee.new_game_event
            assert start is not None
            records.append(
                GameRecord(start.game, start.variant, start.players, start.match_length)
            )
        if not records:
            continue
        record = records[-1]
        for signal in signals:
            _note(record, signal)
    return records


def _starts_game(signal: Any) -> bool:
    return isinstance(signal, Turn) and signal.expect == EXPECT_ROLL


def _note(record: GameRecord, signal: Any) -> None:
    if isinstance(signal, DiceAccepted):
        record.turns.append(TurnRecord(signal.seat, signal.values))
    elif isinstance(signal, PlayAccepted):
        turn = next((t for t in reversed(record.turns) if t.seat == signal.seat), None)
        if turn is None:
            record.irregular = "a play was accepted without dice"
        else:
            turn.play = signal.notation
    elif isinstance(signal, CubeOffered):
        record.turns.append(TurnRecord(signal.seat, (), action="double", cube=signal.cube))
    elif isinstance(signal, CubeTaken):
        record.turns.append(TurnRecord(signal.seat, (), action="take", cube=signal.cube))
    elif isinstance(signal, GameOver):
        record.over = signal
        if signal.result == "drop":
            record.turns.append(TurnRecord(signal.order[1], (), action="drop"))
    elif isinstance(signal, Notice) and signal.key == "referee.undone":
        played = [i for i, t in enumerate(record.turns) if t.play is not None]
        if played:
            del record.turns[played[-1] + 1 :]
            record.turns[-1].play = None
    elif isinstance(signal, Notice) and signal.key == "referee.illegal_play_stands":
        record.irregular = "an illegal play was let stand"


def to_mat(records: list[GameRecord], names: tuple[str, str] = ("White", "Black")) -> str:
    """A Jellyfish match file of the backgammon games (seat 0 in the left column)."""
    games = [r for r in records if r.game == "backgammon"]
    if not games:
        raise ExportError("no backgammon game to export")
    for number, record in enumerate(games, start=1):
        if record.variant != "standard":
            raise ExportError(
                f"game {number} uses the {record.variant!r} rules; GNU Backgammon knows the "
                "standard rules only"
            )
        if record.irregular:
            raise ExportError(f"game {number}: {record.irregular}")
    lines = [f" {games[0].match_length} point match", ""]
    score = [0, 0]
    for number, record in enumerate(games, start=1):
        header = _columns(f" {names[0]} : {score[0]}", f"{names[1]} : {score[1]}")
        lines += [f" Game {number}", header]
        lines += _mat_moves(record)
        if record.over is not None:
            winner = record.over.order[0]
            points = record.over.points
            text = f"Wins {points} point{'s' if points != 1 else ''}"
            lines.append(_columns("      " + text, "") if winner == 0 else _columns("", text))
            score[winner] += points
        lines.append("")
    return "\n".join(lines) + "\n"


def _mat_moves(record: GameRecord) -> list[str]:
    cells: list[tuple[str, str]] = []
    for turn in record.turns:
        if turn.action != "roll":
            text = _CUBE_TEXT[turn.action].format(cube=turn.cube)
        elif turn.play is None and turn is not record.turns[-1]:
            text = f"{turn.dice[0]}{turn.dice[1]}:"
        elif turn.play is None:
            continue
        else:
            text = f"{turn.dice[0]}{turn.dice[1]}: {_mat_notation(turn.play)}".rstrip()
        if turn.seat == 0 or not cells or cells[-1][1]:
            cells.append((text, "") if turn.seat == 0 else ("", text))
        else:
            cells[-1] = (cells[-1][0], text)
    return [
        _columns(f"{i:3d}) {left}", right) for i, (left, right) in enumerate(cells, start=1)
    ]


_CUBE_TEXT = {"double": " Doubles => {cube}", "take": " Takes", "drop": " Drops"}


def _mat_notation(play: str) -> str:
    """Engine notation to Jellyfish's: "bar" is 25, "off" is 0, "-" (no move) is empty."""
    if play.strip() == "-":
        return ""
    return play.replace("bar", "25").replace("off", "0")


def _columns(left: str, right: str) -> str:
    """Two columns; a long left half (a double with hits) still keeps two spaces apart."""
    return f"{left:<{COLUMN - 2}}  {right}".rstrip()


def to_maedn_json(record: GameRecord) -> dict[str, Any]:
    """A Mensch game as JSON: every roll, the move made with it (or none), the finishing order."""
    if record.game != "maedn":
        raise ExportError(f"not a Mensch game: {record.game}")
    return {
        "game": "maedn",
        "variant": record.variant,
        "players": record.players,
        "turns": [{"seat": t.seat, "die": t.dice[0], "move": t.play} for t in record.turns],
        "finishing_order": list(record.over.order) if record.over else None,
    }
