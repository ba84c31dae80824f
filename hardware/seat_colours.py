"""Seat colours: the name a player reads and the RGB value the seat LED shows.

Names follow `controller.config` (`seats.backgammon`, `seats.maedn`) and are said in the table's
language (catalogue keys `colour.<name>`). An RGB LED cannot show black, so black seats light
blue (the LED must still say "your turn").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from controller.words.catalogue import text

RGB = tuple[float, float, float]


class SeatColour(NamedTuple):
    key: str
    led: RGB
    lamp: str  # the colour the LED lights in, by name
    def name(self, lang: str = "de") -> str:
        return text(f"colour.{self.key}", lang)


COLOURS: dict[str, SeatColour] = {
    "white": SeatColour("white", (1.0, 1.0, 1.0), "white"),
    "black": SeatColour("black", (0.0, 0.0, 1.0), "blue"),
    "yellow": SeatColour("yellow", (1.0, 0.6, 0.0), "yellow"),
    "green": SeatColour("green", (0.0, 1.0, 0.0), "green"),
    "red": SeatColour("red", (1.0, 0.0, 0.0), "red"),
    "blue": SeatColour("blue", (0.0, 0.0, 1.0), "blue"),
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
            return self.colours[seat].name(lang)
        return text("colour.seat", lang, number=seat + 1)

    def lamp(self, seat: int) -> str:
        """The colour the seat's LED lights in, by name ("white" beyond the known seats)."""
        return self.colours[seat].lamp if 0 <= seat < len(self.colours) else "white"

    def led(self, seat: int) -> RGB:
        return self.colours[seat].led if 0 <= seat < len(self.colours) else (1.0, 1.0, 1.0)

