"""What the 20x4 display says for a Signal, in German or English.

The display explains what the LEDs and the buzzer mean (whose turn, why a move was refused, which
fields to put back), four lines of at most 20 characters, word-wrapped; a text longer than
the display ends in "..." and the fields to put back always show.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from controller import signals as s
from hardware.seat_colours import SeatColours

WIDTH = 20
ROWS = 4
LANGUAGES = ("de", "en")

_EXPECT = {
    s.EXPECT_SETUP: ("Bitte aufstellen", "Set up the board"),
    s.EXPECT_ROLL: ("Bitte würfeln", "Please roll"),
    s.EXPECT_MOVE: ("Bitte ziehen", "Make your move"),
    s.EXPECT_ROLL_AGAIN: ("Nochmal würfeln", "Roll again"),
    s.EXPECT_CORRECT: ("Brett korrigieren", "Correct the board"),
    s.EXPECT_ANSWER_DOUBLE: ("Annehmen/Aufgeben?", "Take or drop?"),
}
_RESULT = {
    "single": ("einfach", "single"),
    "gammon": ("Gammon", "gammon"),
    "backgammon": ("Backgammon", "backgammon"),
    "drop": ("aufgegeben", "dropped"),
}


#: Ends a line whose paragraph goes on beyond the display (the terminal view and a recording
#: keep the whole text). The display's ROM has no "…".
CUT = "..."


def _wrap(*paragraphs: str, last: str = "") -> tuple[str, str, str, str]:
    """The paragraphs word-wrapped one after the other, then `last` (the fields to put back),
    which always shows: a paragraph that does not fit ends in `CUT` instead of losing its end
    unseen, or a line the players must see."""
    tail = _cut(textwrap.wrap(last, WIDTH), ROWS - 2) if last else []
    lines: list[str] = []
    for paragraph in paragraphs:
        room = ROWS - len(tail) - len(lines)
        if room <= 0:
            lines[-1] = _ellipsis(lines[-1])
            break
        lines += _cut(textwrap.wrap(paragraph, WIDTH) or [""], room)
    lines = (lines + tail + [""] * ROWS)[:ROWS]
    return (lines[0], lines[1], lines[2], lines[3])


def _cut(lines: list[str], rows: int) -> list[str]:
    """At most `rows` lines; the last ends in `CUT` when some were left out."""
    if len(lines) <= rows:
        return lines
    return [*lines[: rows - 1], _ellipsis(lines[rows - 1])]


def _ellipsis(line: str) -> str:
    """The line shortened at a word's end, so that `CUT` fits after it."""
    words = line.split(" ")
    while len(words) > 1 and len(" ".join(words)) + len(CUT) > WIDTH:
        words.pop()
    return " ".join(words)[: WIDTH - len(CUT)] + CUT


def lines_for(
    signal: s.Signal, lang: str = "de", seats: SeatColours | None = None
) -> tuple[str, str, str, str] | None:
    """Four display lines for `signal`, or None when it changes nothing on the display."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    seats = seats or SeatColours.for_game("maedn")
    de = lang == "de"

    def name(seat: int) -> str:
        return seats.name(seat, lang)

    def pick(german: str, english: str) -> str:
        return german if de else english

    if isinstance(signal, s.Turn):
        german, english = _EXPECT.get(signal.expect, (signal.expect, signal.expect))
        return _wrap(pick(f"{name(signal.seat)} ist dran", f"{name(signal.seat)} to play"),
                     pick(german, english))
    if isinstance(signal, s.DiceAccepted):
        values = " ".join(str(v) for v in signal.values)
        return _wrap(pick(f"{name(signal.seat)} würfelt", f"{name(signal.seat)} rolled"),
                     pick(f"Wurf: {values}", f"Dice: {values}"))
    if isinstance(signal, s.PlayAccepted):
        return _wrap(pick(f"{name(signal.seat)}: Zug ok", f"{name(signal.seat)}: move ok"),
                     signal.notation)
    if isinstance(signal, s.Illegal):
        fields = ", ".join(signal.restore or signal.fields)
        return _wrap(pick(f"{name(signal.seat)}: ungültig", f"{name(signal.seat)}: illegal"),
                     pick(signal.reason_de, signal.reason_en),
                     last=pick(f"Felder: {fields}", f"Fields: {fields}") if fields else "")
    if isinstance(signal, s.BoardDiffers):
        fields = ", ".join(signal.fields)
        return _wrap(pick("Brett stimmt nicht", "Board differs"),
                     pick(f"Felder: {fields}", f"Fields: {fields}"))
    if isinstance(signal, s.Reroll):
        return _wrap(pick(f"{name(signal.seat)}: nochmal", f"{name(signal.seat)}: roll again"),
                     pick(signal.reason_de, signal.reason_en))
    if isinstance(signal, s.ThreeTries):
        return _wrap(pick(f"{name(signal.seat)}: Versuch {signal.attempt}/3",
                          f"{name(signal.seat)}: try {signal.attempt}/3"),
                     pick("Würfeln bis zur 6", "Roll for a 6"))
    if isinstance(signal, s.ExtraRoll):
        return _wrap(pick(f"{name(signal.seat)} würfelt nochmal",
                          f"{name(signal.seat)} rolls again"))
    if isinstance(signal, s.RollElectronicDie):
        return _wrap(pick(f"{name(signal.seat)} würfelt", f"{name(signal.seat)} rolls"),
                     pick("Würfel rollt ...", "Die is rolling ..."))
    if isinstance(signal, s.CubeOffered):
        return _wrap(pick(f"{name(signal.seat)} verdoppelt", f"{name(signal.seat)} doubles"),
                     pick(f"auf {signal.cube}", f"to {signal.cube}"))
    if isinstance(signal, s.CubeTaken):
        return _wrap(pick(f"{name(signal.seat)} nimmt an", f"{name(signal.seat)} takes"),
                     pick(f"Doppler: {signal.cube}", f"Cube: {signal.cube}"))
    if isinstance(signal, s.GameOver):
        return _wrap(pick("Spielende!", "Game over!"), *_game_over_lines(signal, de, name))
    if isinstance(signal, s.Notice):
        return _wrap(pick(signal.text_de, signal.text_en))
    return None


def _game_over_lines(signal: s.GameOver, de: bool, name: Callable[[int], str]) -> list[str]:
    lines = []
    if signal.order:
        winner = name(signal.order[0])
        lines.append(f"Sieger: {winner}" if de else f"Winner: {winner}")
    if signal.result:
        german, english = _RESULT.get(signal.result, (signal.result, signal.result))
        points = f"{signal.points} P." if de else f"{signal.points} pt"
        lines.append(f"{german if de else english}, {points}")
    if signal.match_score:
        score = ":".join(str(p) for p in signal.match_score)
        lines.append(f"Stand {score}" if de else f"Score {score}")
    return lines
