"""The terminal view as a person reads it: the table's language, LEDs by colour name, columns
that stay aligned, and the display box showing what the display shows now."""

from __future__ import annotations

import io
from pathlib import Path

from controller import config as table_config
from controller.table.outputs import TableOutputs
from controller.table.terminal_view import TerminalView, backgammon_lines, light_words
from controller.words.boards import BackgammonBoard, MaednBoard
from controller.words.events import BoardObserved, NewGame
from controller.words.signals import EXPECT_ROLL, DiceAccepted, GameOver, PlayAccepted, Turn
from hardware.display_link import DisplayLink
from hardware.seat_colours import SeatColours
from hardware.signal_outputs import Light
from tests.hardware.mock_table import mock_table

BACKGAMMON = SeatColours.for_game("backgammon")
MAEDN = SeatColours.for_game("maedn")


def test_backgammon_columns_stay_aligned_however_many_checkers_stand_on_a_point() -> None:
    points = [0] * 24
    points[0], points[12], points[23] = 10, -15, 2  # White's 1-, 13- and 24-point
    board = BackgammonBoard(tuple(points), bar_white=3, off_black=0)
    numbers_top, top, bottom, numbers_bottom, _ = backgammon_lines(board, BACKGAMMON, "de")
    assert len({len(numbers_top), len(top), len(bottom), len(numbers_bottom)}) == 1
    assert numbers_top.index("13") + 1 == top.index("S15") + 2  # right-aligned under "13"
    assert numbers_top.rindex("24") + 1 == top.rindex("W2") + 1
    assert numbers_bottom.rindex(" 1") + 1 == bottom.rindex("W10") + 2
    assert "W10S" not in bottom.replace(" ", "_").replace("_", "") or "W10 " in bottom + " "


def test_colours_are_named_in_the_tables_language() -> None:
    board = BackgammonBoard(tuple([0] * 23 + [2]))
    assert "W2" in backgammon_lines(board, BACKGAMMON, "de")[1]
    assert backgammon_lines(board, BACKGAMMON, "de")[-1].startswith(" Bar W0 S0")
    assert backgammon_lines(board, BACKGAMMON, "en")[-1].startswith(" bar W0 B0")
    view = TerminalView(io.StringIO(), "de", table_config.SeatsConfig().colours, live=True)
    view.on_event(NewGame("maedn", "hofer", 4), "table")
    view.on_event(BoardObserved(MaednBoard(((-1, -1, 0, 41),) * 4)), "vision")
    view.redraw()
    shown = view.stream.getvalue()
    assert "Mensch ärgere Dich nicht (hofer), 4" in shown
    assert " Gelb     Haus 2  Bahn [0]  Ziel [2]" in shown
    assert "yellow" not in shown


def test_seat_leds_are_said_by_colour_name_and_pattern() -> None:
    lights = {0: Light("on", "yellow"), 2: Light("fast", "red"), 3: Light("slow", "blue")}
    assert light_words(lights, MAEDN, 4, "de") == (
        "Gelb: an (Gelb)   Grün: aus   Rot: blinkt schnell (Rot)   "
        "Schwarz: blinkt langsam (Blau)")
    assert light_words(lights, MAEDN, 1, "en") == "Yellow: on (Yellow)"


def test_the_display_box_shows_the_screen_of_the_step_just_shown(tmp_path: Path) -> None:
    """The box is what the display is told to show after the step (it used to lag one step
    behind, still showing the last move after "Spielende!")."""
    config = table_config.Config()
    with mock_table() as (devices, _factory):
        display = DisplayLink(str(tmp_path / "no-board-needed"))  # not started: state only
        outputs = TableOutputs(config, devices, display)
        stream = io.StringIO()
        view = TerminalView(stream, "de", config.seats.colours, lights=outputs.lights,
                            screen=display.screen, live=True, fps=1e9)
        steps = [
            [Turn(0, EXPECT_ROLL)],
            [DiceAccepted(0, (6, 5)), Turn(0, "move")],
            [PlayAccepted(0, "24/13"), GameOver((0, 1), "single", 1, (1, 0))],
        ]
        for signals in steps:
            outputs.show(signals)
            view.show(signals)
            box = stream.getvalue().rsplit("+--------------------+", 2)[-2]
            assert display.screen()[0].rstrip() in box
        assert "Zug ok" in box  # the step's first page, as on the display now
        outputs.close()  # the table stops: the display keeps how the game ended
        view.close()
        box = stream.getvalue().rsplit("+--------------------+", 2)[-2]
        assert "Spielende!" in box and "Sieger: Weiß" in box and "Zug ok" not in box
