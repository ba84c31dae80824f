"""Display text for every Signal: four lines of at most 20 characters, German and English."""

from __future__ import annotations

import pytest

from controller.referee.turns import COCKED
from controller.rules.backgammon import R_HIGHER
from controller.table.notices import CAMERA_LOST
from controller.words import signals as s
from firmware import charset
from hardware.display_text import CUT, Lines, Message, message_for, pages_for, step_pages
from hardware.seat_colours import SeatColours

SIGNALS = [
    s.Turn(0, s.EXPECT_ROLL),
    s.Turn(1, s.EXPECT_CORRECT),
    s.DiceAccepted(2, (6, 6)),
    s.PlayAccepted(0, "24/18 13/11"),
    s.Illegal(1, R_HIGHER, ("5",), ("5", "11")),
    s.BoardDiffers(3, ("A1", "B2")),
    s.Reroll(0, COCKED),
    s.ThreeTries(2, 3),
    s.ExtraRoll(1),
    s.GameOver((1, 0), "gammon", 2, (5, 3)),
    s.Notice(CAMERA_LOST),
    s.Turn(1, s.EXPECT_ANSWER_DOUBLE),
    s.RollElectronicDie(2),
    s.CubeOffered(0, 2),
    s.CubeTaken(1, 2),
    s.GameOver((0, 1), "drop", 1, (1, 0)),
    s.BoardChoice(0, 1, ("8/5 6/5", "24/21 6/5", "13/10 6/5")),
]


def first_page(signal: s.Signal, lang: str = "de", seats: SeatColours | None = None) -> Lines:
    pages = pages_for(signal, lang, seats)
    assert pages is not None
    return pages[0]


@pytest.mark.parametrize("signal", SIGNALS, ids=lambda sig: sig.type)
@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_signal_fits_the_display_in_both_languages(signal: s.Signal, lang: str) -> None:
    lines = first_page(signal, lang)
    assert lines is not None and len(lines) == 4
    assert all(len(line) <= 20 for line in lines)
    assert lines[0]
    for line in lines:  # every character exists in the display's ROM
        assert charset.UNKNOWN not in charset.encode_text(line, 20) or "?" in line


def test_texts_differ_by_language_and_name_the_seat() -> None:
    de = first_page(s.Turn(2, s.EXPECT_ROLL), "de")
    en = first_page(s.Turn(2, s.EXPECT_ROLL), "en")
    assert de[0].startswith("Rot") and en[0].startswith("Red")
    assert de != en
    backgammon = SeatColours.for_game("backgammon")
    assert first_page(s.Turn(0, s.EXPECT_MOVE), "de", backgammon)[0].startswith("Weiß")


def test_illegal_move_shows_reason_and_fields_to_restore() -> None:
    lines = first_page(SIGNALS[4], "de")
    text = " ".join(lines)
    assert "höhere Zahl" in text and "5, 11" in text


def _words(lines: tuple[str, ...]) -> list[str]:
    return " ".join(lines).split()


def _body_words(pages: tuple[tuple[str, ...], ...], header_rows: int, tail_rows: int) -> list[str]:
    """The words of the pages' bodies read one page after the other, without the "..." that
    ends a page the next goes on from (pages break between words)."""
    text = ""
    for page in pages:
        rows = [row for row in page if row]
        text += " ".join(rows[header_rows: len(rows) - tail_rows]).removesuffix(CUT) + " "
    return text.split()


@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_reason_shows_whole_over_pages_with_the_fields_on_each(lang: str) -> None:
    """Every reason the table can give, as an illegal move with fields to put back: each page
    keeps the header and the fields, a page that goes on ends in "...", and the pages together
    show the reason word for word (the first page alone used to be all the players saw)."""
    from controller.referee import backgammon, maedn  # noqa: F401 - their reasons
    from controller.words.reasons import CATALOG

    fields = "Felder: 5, 11" if lang == "de" else "Fields: 5, 11"
    longer = 0
    for r in CATALOG.values():
        signal = s.Illegal(0, r, ("5",), ("5", "11"))
        pages = pages_for(signal, lang)
        assert pages is not None and step_pages([signal, signal], lang) == [*pages, *pages]
        for page in pages:
            rows = [row for row in page if row]
            assert rows[0] == pages[0][0] and rows[-1] == fields
            assert all(len(row) <= 20 for row in page)
        assert all([row for row in page if row][-2].endswith(CUT) for page in pages[:-1])
        assert not [row for row in pages[-1] if row][-2].endswith(CUT)
        assert _body_words(pages, 1, 1) == r.text(lang).split(), pages
        longer += len(pages) > 1
    assert longer > 0  # some reasons are longer than two rows: the pages were exercised


def test_many_fields_flow_over_pages_and_none_is_lost() -> None:
    fields = tuple(f"{p}" for p in range(1, 25))
    pages = pages_for(s.BoardDiffers(0, fields), "de")
    assert pages is not None and len(pages) > 1
    assert all(page[0] == "Brett stimmt nicht" for page in pages)
    assert " ".join(_body_words(pages, 1, 0)) == "Felder: " + ", ".join(fields)


def test_a_word_longer_than_a_row_goes_on_inside_it() -> None:
    word = "Donaudampfschifffahrtsgesellschaftskapitän"
    pages = Message("", (word,)).pages()
    assert pages is not None
    assert "".join(row.removesuffix(CUT) for page in pages for row in page) == word


def test_the_terminal_gets_the_whole_message_on_one_line() -> None:
    message = message_for(SIGNALS[4], "en")
    assert message is not None
    assert message.text() == "Green: illegal / The higher number must be played / Fields: 5, 11"


@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_reason_to_roll_again_shows_whole(lang: str) -> None:
    from controller.referee import backgammon, maedn, turns

    reasons = [turns.COCKED, turns.OUTSIDE, turns.DICE_COUNT, backgammon.OPENING_TIE,
               maedn.OPENING_TIE]
    for why in reasons:
        lines = first_page(turns.reroll(1, why), lang)
        assert _words(lines[1:]) == why.text(lang).split(), lines


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_choice_lists_every_play_marks_the_shown_one_and_names_the_buttons(lang: str) -> None:
    choice = s.BoardChoice(1, 1, ("8/5 6/5", "24/21 6/5"))
    rows = [row for page in pages_for(choice, lang) or () for row in page]
    assert rows[0] == ("Welcher Zug? 2/2" if lang == "de" else "Which play? 2/2")
    assert "  8/5 6/5" in rows and "> 24/21 6/5" in rows
    assert any(("Fertig" if lang == "de" else "done") in row for row in rows[3:])


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        first_page(SIGNALS[0], "fr")
