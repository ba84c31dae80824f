"""The display turns through everything one referee step said, on the emulated board (real
firmware logic behind a pseudo-terminal) and gpiozero's mock pins."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.referee.turns import IMPOSSIBLE_BOARD
from controller.words import signals as s
from hardware.devices import TableDevices
from hardware.display_link import DisplayLink
from hardware.display_pager import DisplayPager
from hardware.display_text import pages_for
from hardware.seat_colours import SeatColours
from hardware.signal_outputs import SignalOutputs
from tests.hardware.emulated_board import EmulatedBoard, emulated_board
from tests.hardware.mock_table import mock_table

PAGE_S = 0.4
SEATS = SeatColours.for_game("maedn")
LONG = s.Illegal(1, IMPOSSIBLE_BOARD, ("5",), ("5", "11"))


def _rows(page: tuple[str, ...]) -> list[str]:
    return [row.ljust(20) for row in page]


def _shown_in_order(board: EmulatedBoard, pages: list[tuple[str, ...]], timeout: float) -> None:
    """The board shows each page of `pages` in that order (each within `timeout`)."""
    for page in pages:
        want = _rows(page)
        board.wait_for(lambda state, want=want: state["lines"] == want, timeout=timeout)


@contextlib.contextmanager
def _outputs_on_emulated_display(
    tmp_path: Path,
) -> Iterator[tuple[TableDevices, EmulatedBoard, SignalOutputs]]:
    """SignalOutputs on mock pins and a display link to the emulated board, pages of PAGE_S."""
    with (
        mock_table() as (devices, _),
        emulated_board(tmp_path) as board,
        DisplayLink(str(board.port)) as link,
    ):
        outputs = SignalOutputs(devices, SEATS, link, lang="de", page_s=PAGE_S)
        try:
            yield devices, board, outputs
        finally:
            outputs.close()


def test_an_illegal_move_shows_its_reason_page_by_page_then_what_to_do(tmp_path: Path) -> None:
    step = [LONG, s.Turn(1, s.EXPECT_CORRECT)]
    reason = pages_for(LONG, "de", SEATS)
    turn = pages_for(step[1], "de", SEATS)
    assert reason is not None and turn is not None and len(reason) == 2
    with _outputs_on_emulated_display(tmp_path) as (devices, board, outputs):
        outputs.apply_all(step)
        # round and round: reason, its second page, what to do, and the reason again
        _shown_in_order(board, [*reason, *turn, reason[0], reason[1]], timeout=5 * PAGE_S + 2)
        # the LEDs were set signal by signal, as before: the seat to correct blinks fast in red
        # (sampled over 0.5 s, a few blinks: one look may fall on the dark half)
        seen = set()
        for _ in range(25):
            seen.add(tuple(devices.seat_leds[1].value))
            time.sleep(0.02)
        assert seen == {(1.0, 0.0, 0.0), (0.0, 0.0, 0.0)}, seen


def test_the_next_step_replaces_the_pages_and_a_single_page_stays(tmp_path: Path) -> None:
    with _outputs_on_emulated_display(tmp_path) as (_, board, outputs):
        outputs.apply_all([s.PlayAccepted(0, "3/9"), s.Turn(1, s.EXPECT_ROLL)])
        played = pages_for(s.PlayAccepted(0, "3/9"), "de", SEATS)
        assert played is not None
        _shown_in_order(board, [played[0]], timeout=5)
        outputs.apply_all([s.Turn(1, s.EXPECT_MOVE)])
        (move,) = pages_for(s.Turn(1, s.EXPECT_MOVE), "de", SEATS) or ()
        _shown_in_order(board, [move], timeout=5)
        time.sleep(3 * PAGE_S)
        assert board.state()["lines"] == _rows(move)


def test_closed_outputs_leave_the_steps_last_page_shown(tmp_path: Path) -> None:
    """Stopped, the display turns no more pages and keeps the step's last one (what to do
    now, or how the game ended), never a blank screen."""
    with _outputs_on_emulated_display(tmp_path) as (_, board, outputs):
        outputs.apply_all([LONG])
        pages = pages_for(LONG, "de", SEATS) or ()
        assert len(pages) > 1
        _shown_in_order(board, [pages[0]], timeout=5)
        outputs.close()
        _shown_in_order(board, [pages[-1]], timeout=5)
        time.sleep(3 * PAGE_S)
        assert board.state()["lines"] == _rows(pages[-1])


def test_a_pager_refuses_nothing_to_show_and_a_period_of_zero(tmp_path: Path) -> None:
    with emulated_board(tmp_path) as board, DisplayLink(str(board.port)) as link:
        with pytest.raises(ValueError, match="period must be positive"):
            DisplayPager(link, 0)
        pager = DisplayPager(link, PAGE_S)
        with pytest.raises(ValueError, match="no pages"):
            pager.show([])
        pager.stop()
        with pytest.raises(RuntimeError, match="stopped"):
            pager.show([("a",)])
