"""The simulated table drawn as text: the board, the seat LEDs, the display's four lines and the
referee's latest signals, as a user watching the table would see them.

Colours are ANSI escape codes and only used when asked for (a TTY); without them the same
frame is plain text, so `make run` also works in a log file.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.words.events import BackgammonBoard, Board, MaednBoard
from controller.words.signals import Signal

RESET = "\x1b[0m"
CLEAR = "\x1b[H\x1b[2J"
GOAL_FIRST = 40
TRACK = 40


def rgb_escape(rgb: Sequence[float]) -> str:
    """A 24-bit foreground colour escape for an LED value (0..1 per channel)."""
    r, g, b = (round(255 * max(0.0, min(1.0, c))) for c in rgb)
    return f"\x1b[38;2;{r};{g};{b}m"


def backgammon_lines(board: BackgammonBoard) -> list[str]:
    """Points 13..24 on top, 12..1 below (White's numbering); W = White, B = Black."""

    def cell(i: int) -> str:
        n = board.points[i - 1]
        return " . " if n == 0 else f"{'W' if n > 0 else 'B'}{abs(n):<2d}"

    top = " ".join(cell(i) for i in range(13, 19)) + " | " + " ".join(
        cell(i) for i in range(19, 25)
    )
    bottom = " ".join(cell(i) for i in range(12, 6, -1)) + " | " + " ".join(
        cell(i) for i in range(6, 0, -1)
    )
    numbers_top = " ".join(f"{i:<3d}" for i in range(13, 19)) + " | " + " ".join(
        f"{i:<3d}" for i in range(19, 25)
    )
    numbers_bottom = " ".join(f"{i:<3d}" for i in range(12, 6, -1)) + " | " + " ".join(
        f"{i:<3d}" for i in range(6, 0, -1)
    )
    return [
        numbers_top,
        top,
        "",
        bottom,
        numbers_bottom,
        f"bar W{board.bar_white} B{board.bar_black}   off W{board.off_white} B{board.off_black}",
    ]


def maedn_lines(board: MaednBoard, names: Sequence[str], offsets: Sequence[int]) -> list[str]:
    """The 40-field track as one line of seat initials, then house and goal per seat."""
    track = ["."] * TRACK
    for seat, pieces in enumerate(board.pieces):
        for v in pieces:
            if 0 <= v < GOAL_FIRST:
                track[(v + offsets[seat]) % TRACK] = names[seat][0]
    lines = ["track " + "".join(track)]
    for seat, pieces in enumerate(board.pieces):
        house = sum(1 for v in pieces if v < 0)
        goal = "".join("●" if GOAL_FIRST + k in pieces else "○" for k in range(4))
        lines.append(f"{names[seat]:8s} house {house}  goal {goal}")
    return lines


def frame(
    title: str,
    board: Board,
    leds: Sequence[tuple[str, Sequence[float]]],
    display: Sequence[str],
    signals: Sequence[Signal],
    lang: str,
    colour: bool,
    offsets: Sequence[int] = (0, 10, 20, 30),
) -> str:
    """One whole screen as text."""
    names = [name for name, _ in leds]
    if isinstance(board, BackgammonBoard):
        body = backgammon_lines(board)
    else:
        body = maedn_lines(board, names, offsets)
    led_cells = []
    for name, value in leds:
        lit = any(c > 0.05 for c in value)
        mark = "●" if lit else "○"
        led_cells.append(f"{rgb_escape(value)}{mark}{RESET} {name}" if colour and lit else
                         f"{mark} {name}")
    box = ["+" + "-" * 20 + "+"] + [f"|{line:20s}|" for line in display] + ["+" + "-" * 20 + "+"]
    said = [_describe(s, lang) for s in signals]
    return "\n".join([title, "", *body, "", "LED  " + "   ".join(led_cells), *box, *said, ""])


def _describe(signal: Signal, lang: str) -> str:
    data = signal.to_json()
    kind = data.pop("type")
    for key in ("reason", "text"):
        other = "en" if lang == "de" else "de"
        data.pop(f"{key}_{other}", None)
    data.pop("reason_key", None)
    details = ", ".join(f"{k}={v}" for k, v in data.items())
    return f"  > {kind}: {details}"
