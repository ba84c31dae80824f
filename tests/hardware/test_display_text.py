"""Display text for every Signal: four lines of at most 20 characters, German and English."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import signals as s
from firmware import charset
from hardware.display_link import DisplayLink
from hardware.display_text import lines_for
from hardware.seat_colours import SeatColours
from hardware.signal_outputs import SignalOutputs
from tests.hardware.emulated_board import emulated_board, screen_is
from tests.hardware.mock_table import mock_table

SIGNALS = [
    s.Turn(0, s.EXPECT_ROLL),
    s.Turn(1, s.EXPECT_CORRECT),
    s.DiceAccepted(2, (6, 6)),
    s.PlayAccepted(0, "24/18 13/11"),
    s.Illegal(1, "higher_die", "Die höhere Augenzahl muss gezogen werden",
              "The higher number must be played", ("5",), ("5", "11")),
    s.BoardDiffers(3, ("A1", "B2")),
    s.Reroll(0, "Würfel liegt schief", "A die is cocked"),
    s.ThreeTries(2, 3),
    s.ExtraRoll(1),
    s.GameOver((1, 0), "gammon", 2, (5, 3)),
    s.Notice("camera_lost", "Kamera nicht erreichbar", "Camera lost"),
    s.Turn(1, s.EXPECT_ANSWER_DOUBLE),
    s.RollElectronicDie(2),
    s.CubeOffered(0, 2),
    s.CubeTaken(1, 2),
    s.GameOver((0, 1), "drop", 1, (1, 0)),
]


@pytest.mark.parametrize("signal", SIGNALS, ids=lambda sig: sig.type)
@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_signal_fits_the_display_in_both_languages(signal: s.Signal, lang: str) -> None:
    lines = lines_for(signal, lang)
    assert lines is not None and len(lines) == 4
    assert all(len(line) <= 20 for line in lines)
    assert lines[0]
    for line in lines:  # every character exists in the display's ROM
        assert charset.UNKNOWN not in charset.encode_text(line, 20) or "?" in line


def test_texts_differ_by_language_and_name_the_seat() -> None:
    de = lines_for(s.Turn(2, s.EXPECT_ROLL), "de")
    en = lines_for(s.Turn(2, s.EXPECT_ROLL), "en")
    assert de[0].startswith("Rot") and en[0].startswith("Red")
    assert de != en
    backgammon = SeatColours.for_game("backgammon")
    assert lines_for(s.Turn(0, s.EXPECT_MOVE), "de", backgammon)[0].startswith("Weiß")


def test_illegal_move_shows_reason_and_fields_to_restore() -> None:
    lines = lines_for(SIGNALS[4], "de")
    text = " ".join(lines)
    assert "höhere Augenzahl" in text and "5, 11" in text


def _words(lines: tuple[str, ...]) -> list[str]:
    return " ".join(lines).split()


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_reason_too_long_for_the_display_ends_in_dots_and_the_fields_still_show(
    lang: str,
) -> None:
    """Every reason the table can give, as an illegal move with fields to put back: the fields
    always show, and a reason that does not fit ends in "..." after as many of its words as
    fit (it used to lose its end, and the fields, without a sign)."""
    from controller import referee  # noqa: F401 - the referees declare their reasons
    from controller.rules.reasons import CATALOG

    cut = 0
    for r in CATALOG.values():
        shown_lines = lines_for(s.Illegal(0, r.key, r.de, r.en, ("5",), ("5", "11")), lang)
        lines = tuple(line for line in shown_lines if line)
        assert lines[-1] == ("Felder: 5, 11" if lang == "de" else "Fields: 5, 11")
        shown, text = _words(lines[1:-1]), r.text(lang).split()
        if shown != text:
            cut += 1
            assert shown[-1].endswith("...") and lines[-2].endswith("...")
            kept = [*shown[:-1], shown[-1].removesuffix("...")]
            assert text[: len(kept) - 1] == kept[:-1] and text[len(kept) - 1].startswith(kept[-1])
    assert cut > 0  # some reasons are longer than two lines: the rule above was exercised


@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_reason_to_roll_again_shows_whole(lang: str) -> None:
    from controller import referee_backgammon, referee_maedn, referee_turns

    reasons = [referee_turns.COCKED, referee_turns.OUTSIDE, referee_turns.DICE_COUNT,
               referee_backgammon.OPENING_TIE, referee_maedn.OPENING_TIE]
    for why in reasons:
        lines = lines_for(referee_turns.reroll(1, why), lang)
        assert _words(lines[1:]) == why.text(lang).split(), lines


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        lines_for(SIGNALS[0], "fr")


def test_signal_outputs_put_the_text_on_the_emulated_display(tmp_path: Path) -> None:
    seats = SeatColours.for_game("maedn")
    with (
        mock_table() as (devices, _),
        emulated_board(tmp_path) as board,
        DisplayLink(str(board.port)) as link,
    ):
        outputs = SignalOutputs(devices, seats, link, lang="de")
        outputs.apply_all([s.PlayAccepted(0, "3/9"), s.Turn(1, s.EXPECT_ROLL)])
        expected = [line for line in lines_for(s.Turn(1, s.EXPECT_ROLL), "de", seats) if line]
        board.wait_for(screen_is(expected), timeout=5)
        assert devices.seat_leds[1].value == (0.0, 1.0, 0.0)
