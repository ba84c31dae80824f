"""Seat colours: the name a player reads and the RGB value the seat LED shows.

Names follow `controller.config` (`seats.backgammon`, `seats.maedn`). An RGB LED cannot show
black, so black seats light blue (the LED must still say "your turn").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

RGB = tuple[float, float, float]


class SeatColour(NamedTuple):
    key: str
    de: str
    en: str
    led: RGB


COLOURS: dict[str, SeatColour] = {
    "white": SeatColour("white", "Weiß", "White", (1.0, 1.0, 1.0)),
    "black": SeatColour("black", "Schwarz", "Black", (0.0, 0.0, 1.0)),
    "yellow": SeatColour("yellow", "Gelb", "Yellow", (1.0, 0.6, 0.0)),
    "green": SeatColour("green", "Grün", "Green", (0.0, 1.0, 0.0)),
    "red": SeatColour("red", "Rot", "Red", (1.0, 0.0, 0.0)),
    "blue": SeatColour("blue", "Blau", "Blue", (0.0, 0.0, 1.0)),
}

DEFAULT_SEATS = {
    "backgammon": ("white", "black"),
    "maedn": ("yellow", "green", "red", "black"),
}


@dataclass(frozen=True, slots=True)
class SeatColours:
    """The colour of every seat at the table, seat 0 first."""

    colours: tuple[SeatColour, ...]

    @classmethod
    def for_game(cls, game: str, names: tuple[str, ...] | None = None) -> SeatColours:
        """Colours for `game` ("backgammon" | "maedn"), optionally as configured."""
        if names is None:
            if game not in DEFAULT_SEATS:
                raise ValueError(f"unknown game {game!r}; known: {', '.join(DEFAULT_SEATS)}")
            names = DEFAULT_SEATS[game]
        unknown = [n for n in names if n not in COLOURS]
        if unknown:
            raise ValueError(f"unknown seat colour {unknown[0]!r}; known: {', '.join(COLOURS)}")
        return cls(tuple(COLOURS[n] for n in names))

    def name(self, seat: int, lang: str = "de") -> str:
        """The seat's colour name in `lang` ("Spieler 5" / "Player 5" beyond the known seats)."""
        if 0 <= seat < len(self.colours):
            colour = self.colours[seat]
            return colour.de if lang == "de" else colour.en
        return f"Spieler {seat + 1}" if lang == "de" else f"Player {seat + 1}"

    def led(self, seat: int) -> RGB:
        return self.colours[seat].led if 0 <= seat < len(self.colours) else (1.0, 1.0, 1.0)
