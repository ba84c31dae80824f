"""The facts about each game the rest of the table asks for instead of comparing game names:
how many dice a roll has, how many seats play, which variants exist, which board a reading is.

Both engines share one vocabulary (python-chess style): `Position.initial`, `from_board`,
`to_board`, `legal_plays(dice)`, `apply(play, dice)`, `judge(after, dice)`,
`why_not(play, dice)`, `is_over()`; `Options.preset(name)`, `with_changes(...)`,
`electronic_die`. A Mensch play is one `Move` (or None to pass).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.rules import backgammon, maedn
from controller.rules.backgammon_options import PRESETS as BACKGAMMON_PRESETS
from controller.rules.errors import InvalidOption
from controller.rules.maedn_options import PRESETS as MAEDN_PRESETS
from controller.words.boards import BackgammonBoard, Board, MaednBoard


@dataclass(frozen=True, slots=True)
class Game:
    """One game the table knows. `players` lists the seat counts it is played with."""

    name: str
    players: tuple[int, ...]
    dice: int  # dice in one roll
    cube: bool  # the game knows a doubling cube (a variant may switch it off)
    presets: Mapping[str, Any]  # variant name -> Options, in the order the docs list them
    default_variant: str
    board: type
    position: Any  # the engine's Position class
    options_type: Any  # the engine's Options class

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(self.presets)

    @property
    def default_players(self) -> int:
        """The most seats the game is played with (what a table sets up unless told)."""
        return self.players[-1]

    def options(self, variant: str, changes: Mapping[str, Any] | None = None) -> Any:
        """The variant's rule options with single rules switched; InvalidOption names the
        unknown variant or option."""
        options = self.options_type.preset(variant)
        return options.with_changes(changes) if changes else options


BACKGAMMON = Game(
    name="backgammon",
    players=(2,),
    dice=2,
    cube=True,
    presets=BACKGAMMON_PRESETS,
    default_variant="standard",
    board=BackgammonBoard,
    position=backgammon.Position,
    options_type=backgammon.Options,
)
MAEDN = Game(
    name="maedn",
    players=(2, 3, 4),
    dice=1,
    cube=False,
    presets=MAEDN_PRESETS,
    default_variant="hofer",
    board=MaednBoard,
    position=maedn.Position,
    options_type=maedn.Options,
)
GAMES: dict[str, Game] = {game.name: game for game in (BACKGAMMON, MAEDN)}
NAMES: tuple[str, ...] = tuple(GAMES)


def game_named(name: str) -> Game:
    """The game called `name`; InvalidOption lists the known ones."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise InvalidOption(f"unknown game {name!r}; known: {', '.join(GAMES)}") from None


def game_of(board: Board) -> Game:
    """The game a board reading belongs to."""
    for game in GAMES.values():
        if isinstance(board, game.board):
            return game
    raise InvalidOption(f"not a board of a known game: {board!r}")
