"""What the 20x4 display says for a Signal, in the table's language (words from the catalogue).

The display explains what the LEDs and the buzzer mean (whose turn, why a move was refused, which
fields to put back), four lines of at most 20 characters, word-wrapped. A text longer than the
display is shown in pages: each page keeps the header (who and what) and the fields to put
back, and a page the next one goes on from ends in "..." (`hardware.display_pager` turns them).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from controller.words import signals as s
from controller.words.catalogue import LANGUAGES, text
from hardware.seat_colours import SeatColours

WIDTH = 20
ROWS = 4


#: Ends the last row of a page that the next page goes on from (the display's ROM has no "…").
CUT = "..."

Lines = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class Message:
    """What the display says for one Signal, before it is fitted to 20x4: a `header` (who and
    what) on every page, the `body` paragraphs flowing over as many pages as they need, and
    the fields to put back (`fields`) in the last row(s) of every page, so the players always
    see them."""

    header: str
    body: tuple[str, ...] = ()
    fields: str = ""

    def text(self) -> str:
        """The whole message on one line (the terminal view and the logs)."""
        return " / ".join(part for part in (self.header, *self.body, self.fields) if part)

    def pages(self) -> tuple[Lines, ...]:
        """The message as display pages; a page the next one goes on from ends in `CUT`."""
        tail = textwrap.wrap(self.fields, WIDTH)
        body = list(self.body)
        if len(tail) > ROWS - 2:  # more fields than two rows hold: they flow like the body
            body, tail = [*body, self.fields], []
        head = textwrap.wrap(self.header, WIDTH)
        head = _cut(head, ROWS - len(tail) - (1 if body else 0))
        bodies = _flow(body, ROWS - len(head) - len(tail)) if body else [[]]
        return tuple(_rows(head + lines + tail) for lines in bodies)


def _rows(lines: list[str]) -> Lines:
    padded = (lines + [""] * ROWS)[:ROWS]
    return (padded[0], padded[1], padded[2], padded[3])


def _flow(paragraphs: list[str], room: int) -> list[list[str]]:
    """The paragraphs word-wrapped into pages of `room` rows, each paragraph from a new row; a
    page that is not the last ends in `CUT`, and the next page goes on with the words cut."""
    pages: list[list[str]] = []
    while paragraphs:
        page: list[str] = []
        split = False
        while paragraphs and len(page) < room:
            lines = textwrap.wrap(paragraphs.pop(0), WIDTH) or [""]
            free = room - len(page)
            page += lines[:free]
            split = len(lines) > free
            if split:
                paragraphs.insert(0, " ".join(lines[free:]))
        if paragraphs:
            carried = _end_in_cut(page)
            if carried and split:
                paragraphs[0] = f"{carried} {paragraphs[0]}"
            elif carried:
                paragraphs.insert(0, carried)
        pages.append(page)
    return pages


def _end_in_cut(page: list[str]) -> str:
    """End the page's last row in `CUT`; the words that make room for it, which go on."""
    carried: list[str] = []
    while len(page) > 1 and " " not in page[-1] and len(page[-1]) + len(CUT) > WIDTH:
        carried.insert(0, page.pop())  # a long word alone in its row goes on whole
    page[-1], lost = _make_room_for_cut(page[-1])
    return " ".join(filter(None, [lost, *carried]))


def _make_room_for_cut(line: str) -> tuple[str, str]:
    """`line` shortened at a word's end and ended in `CUT`, and the words it lost."""
    words = line.split(" ")
    carried: list[str] = []
    while len(words) > 1 and len(" ".join(words)) + len(CUT) > WIDTH:
        carried.insert(0, words.pop())
    kept = " ".join(words)
    if len(kept) + len(CUT) > WIDTH:  # one word longer than a row: go on inside it
        keep = WIDTH - len(CUT)
        carried.insert(0, kept[keep:])
        kept = kept[:keep]
    return kept + CUT, " ".join(carried)


def _cut(lines: list[str], rows: int) -> list[str]:
    """At most `rows` lines; the last ends in `CUT` when some were left out."""
    if len(lines) <= rows:
        return lines
    kept, _ = _make_room_for_cut(lines[rows - 1])
    return [*lines[: rows - 1], kept]


def _message(header: str, *body: str, fields: str = "") -> Message:
    return Message(header, body, fields)


def pages_for(
    signal: s.Signal, lang: str = "de", seats: SeatColours | None = None
) -> tuple[Lines, ...] | None:
    """The display pages for `signal` (one unless its text is longer than the display), or
    None when it changes nothing on the display."""
    message = message_for(signal, lang, seats)
    return message.pages() if message is not None else None


def step_pages(
    signals: Iterable[s.Signal], lang: str = "de", seats: SeatColours | None = None
) -> list[Lines]:
    """The pages the display turns through for one referee step: each signal's, in order."""
    return [page for signal in signals for page in pages_for(signal, lang, seats) or ()]


def message_for(
    signal: s.Signal, lang: str = "de", seats: SeatColours | None = None
) -> Message | None:
    """What the display says for `signal`, or None when it changes nothing on the display."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    seats = seats or SeatColours.for_game("maedn")

    def say(key: str, **params: object) -> str:
        return text(key, lang, **params)

    def who(seat: int) -> str:
        return seats.name(seat, lang)

    match signal:
        case s.Turn():
            return _message(say("display.turn", seat=who(signal.seat)),
                            say(f"expect.{signal.expect}"))
        case s.DiceAccepted():
            dice = " ".join(str(v) for v in signal.values)
            return _message(say("display.rolled", seat=who(signal.seat)),
                            say("display.dice", dice=dice))
        case s.PlayAccepted():
            return _message(say("display.play_ok", seat=who(signal.seat)), signal.notation)
        case s.Illegal():
            fields = ", ".join(signal.restore or signal.fields)
            return _message(say("display.illegal", seat=who(signal.seat)),
                            signal.reason.text(lang),
                            fields=say("display.fields", fields=fields) if fields else "")
        case s.BoardChoice():
            plays = [f"{'>' if i == signal.shown else ' '} {play or '-'}"
                     for i, play in enumerate(signal.plays)]
            return _message(say("display.choice", shown=signal.shown + 1,
                                count=len(signal.plays)), *plays, say("display.choice_keys"))
        case s.BoardDiffers():
            return _message(say("display.board_differs"),
                            fields=say("display.fields", fields=", ".join(signal.fields)))
        case s.Reroll():
            return _message(say("display.roll_again", seat=who(signal.seat)),
                            signal.reason.text(lang))
        case s.ThreeTries():
            return _message(say("display.try", seat=who(signal.seat), attempt=signal.attempt),
                            say("display.roll_for_six"))
        case s.ExtraRoll():
            return _message(say("display.extra_roll", seat=who(signal.seat)))
        case s.RollElectronicDie():
            return _message(say("display.electronic_die", seat=who(signal.seat)),
                            say("display.die_rolling"))
        case s.CubeOffered():
            return _message(say("display.doubles", seat=who(signal.seat)),
                            say("display.double_to", cube=signal.cube))
        case s.CubeTaken():
            return _message(say("display.takes", seat=who(signal.seat)),
                            say("display.cube", cube=signal.cube))
        case s.GameOver():
            return Message(say("display.game_over"), tuple(_game_over_lines(signal, say, who)))
        case s.Notice():
            return Message("", (signal.reason.text(lang),))
    return None


def _game_over_lines(
    signal: s.GameOver, say: Callable[..., str], who: Callable[[int], str]
) -> list[str]:
    lines = []
    if signal.order:
        lines.append(say("display.winner", seat=who(signal.order[0])))
    if signal.result:
        lines.append(say("display.result_points", result=say(f"result.{signal.result}"),
                         points=signal.points))
    if signal.match_score:
        lines.append(say("display.score", score=":".join(str(p) for p in signal.match_score)))
    return lines
