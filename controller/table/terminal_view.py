"""The table as a person watching it sees it, drawn in a terminal: the board as last read, the
seat LEDs, the display's four lines and what the table said, all in the table's language.

On a terminal the screen is redrawn in place at most `fps` times a second; without one (a
pipe, CI, systemd) every signal is printed on its own line instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from controller.table.pipeline import SOURCE_JOURNAL
from controller.words.boards import BackgammonBoard, Board, MaednBoard
from controller.words.catalogue import text
from controller.words.events import BoardObserved, Event, NewGame
from controller.words.signals import Signal
from hardware.display_text import message_for
from hardware.seat_colours import SeatColours
from hardware.signal_outputs import Light

CELL = 4  # a backgammon point's column: a colour letter and up to 15 checkers, right-aligned
GOAL_FIRST = 40


def backgammon_lines(board: BackgammonBoard, seats: SeatColours, lang: str) -> list[str]:
    """Points 13..24 above, 12..1 below (White's numbering), each a column of `CELL` that
    stays aligned however many checkers stand on it."""
    first, second = (seats.name(seat, lang)[0] for seat in (0, 1))

    def cell(n: int) -> str:
        return (f"{first if n > 0 else second}{abs(n)}" if n else ".").rjust(CELL)

    def row(points: range) -> str:
        return "".join(cell(board.points[p - 1]) for p in points)

    def numbers(points: range) -> str:
        return "".join(str(p).rjust(CELL) for p in points)

    top, bottom = range(13, 25), range(12, 0, -1)
    return [
        numbers(top),
        row(top),
        row(bottom),
        numbers(bottom),
        f" {text('view.bar', lang)} {first}{board.bar_white} {second}{board.bar_black}   "
        f"{text('view.off', lang)} {first}{board.off_white} {second}{board.off_black}",
    ]


def maedn_lines(board: MaednBoard, seats: SeatColours, lang: str) -> list[str]:
    """Each seat's pieces: how many in the house, where on the track, which goal fields."""
    house, track, goal = (text(f"view.{word}", lang) for word in ("house", "track", "goal"))
    lines = []
    for seat, pieces in enumerate(board.pieces):
        home = sum(1 for p in pieces if p < 0)
        on_track = [p for p in pieces if 0 <= p < GOAL_FIRST]
        in_goal = [p - GOAL_FIRST + 1 for p in pieces if p >= GOAL_FIRST]
        lines.append(f" {seats.name(seat, lang):<8} {house} {home}  {track} {on_track}  "
                     f"{goal} {in_goal}")
    return lines


def board_lines(board: Board | None, seats: SeatColours, lang: str) -> list[str]:
    """The board as a few lines of text (what the table last read)."""
    if isinstance(board, BackgammonBoard):
        return backgammon_lines(board, seats, lang)
    if isinstance(board, MaednBoard):
        return maedn_lines(board, seats, lang)
    return [f" {text('view.no_board', lang)}"]


def light_words(lights: dict[int, Light], seats: SeatColours, count: int, lang: str) -> str:
    """Each seat LED in words: "Gelb: an (Gelb)   Grün: aus"."""
    cells = []
    for seat in range(count):
        light = lights.get(seat)
        state = (text("led.off", lang) if light is None else
                 text(f"led.{light.pattern}", lang, colour=text(f"colour.{light.colour}", lang)))
        cells.append(f"{seats.name(seat, lang)}: {state}")
    return "   ".join(cells)


def signal_text(signal: Signal, lang: str, seats: SeatColours | None = None) -> str:
    """One line saying what a signal means: the display's words (`hardware.display_text`),
    whole, however many display pages they fill."""
    message = message_for(signal, lang, seats)
    if message is None:
        fields = {k: v for k, v in signal.to_json().items() if k != "type"}
        return f"{signal.type} {fields}"
    return message.text()


class TerminalView:
    """What a person at the table would see, in the terminal (see the module docstring).

    `colours(game)` names the seat colours of a game, `lights()` what each seat LED shows,
    `screen()` the display's four lines as the board is told to show them.
    """

    def __init__(
        self,
        stream: TextIO,
        language: str,
        colours: Callable[[str], tuple[str, ...]],
        lights: Callable[[], dict[int, Light]] | None = None,
        screen: Callable[[], Sequence[str]] | None = None,
        live: bool | None = None,
        fps: float = 10.0,
    ) -> None:
        self.stream = stream
        self.language = language
        self.colours = colours
        self.lights = lights
        self.screen = screen
        self.live = stream.isatty() if live is None else live
        self.period = 1.0 / fps
        self.seats = SeatColours.for_game("maedn")
        self.players = 0
        self.board: Board | None = None
        self.game = ""
        self.frames = 0
        self.recent: list[str] = []
        self._lit: dict[int, Light] = {}  # the seat LEDs after the last step shown
        self._drawn = 0.0

    def on_frame(self, t: float, image: np.ndarray) -> None:
        self.frames += 1
        self._tick()  # the display's pages turn between the steps

    def on_event(self, event: Event, source: str) -> None:
        if isinstance(event, BoardObserved):
            self.board = event.board
        elif isinstance(event, NewGame):
            name = text(f"game.{event.game}", self.language)
            self.game = f"{name} ({event.variant}), {event.players}"
            self.board = None
            self.players = event.players
            self.seats = SeatColours.for_game(event.game, self.colours(event.game))
            if not self.live:
                self._print(f"== {self.game}")

    def on_signals(self, signals: list[Signal], origin: str) -> None:
        if origin == SOURCE_JOURNAL:
            return  # the resumed game's past; the table shows where it stands
        for signal in signals:
            line = signal_text(signal, self.language, self.seats)
            self.recent = [*self.recent[-7:], line]
            if not self.live:
                self._print(f"[{origin}] {line}")

    def show(self, signals: list[Signal]) -> None:
        """Called after the outputs showed `signals`: the screen shows what they show now."""
        if self.lights is not None:
            self._lit = self.lights()
        self._tick()

    def _tick(self) -> None:
        now = time.monotonic()
        if self.live and now - self._drawn >= self.period:
            self._drawn = now
            self.redraw()

    def redraw(self) -> None:
        lang = self.language
        title = text("view.title", lang, game=self.game)
        if self.frames:
            title += "  " + text("view.frames", lang, frame=self.frames)
        lines = [title, "", *board_lines(self.board, self.seats, lang)]
        if self.lights is not None:
            words = light_words(self._lit, self.seats, self.players, lang)
            lines += ["", f"{text('view.leds', lang)}: {words}"]
        if self.screen is not None:
            lines += ["", "+" + "-" * 20 + "+"]
            lines += ["|" + row.ljust(20)[:20] + "|" for row in self.screen()]
            lines += ["+" + "-" * 20 + "+"]
        lines += ["", *self.recent]
        self.stream.write("\x1b[H\x1b[J" + "\n".join(lines) + "\n")
        self.stream.flush()

    def _print(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """The last screen: the LEDs as the last step left them, the display as it stays."""
        if self.live:
            self.redraw()

