"""Host link to the emulated board over a real pseudo-terminal (issue 4, test 3)."""

from __future__ import annotations

import time
from pathlib import Path

from hardware.display_link import DisplayLink
from tests.hardware.emulated_board import EmulatedBoard, emulated_board, screen_is


def test_screen_die_leds_and_beep_reach_the_emulated_board(tmp_path: Path) -> None:
    with emulated_board(tmp_path) as board, DisplayLink(str(board.port)) as link:
        link.show_lines(["Gelb ist dran", "Bitte würfeln", "Größe 20°"])
        link.show_die(6)
        link.set_leds(2, [(255, 0, 0), (0, 255, 0)])
        link.beep(880, 120)
        state = board.wait_for(
            lambda s: screen_is(["Gelb ist dran", "Bitte würfeln", "Größe 20°"])(s)
            and s["die"] == 6
            and s["beeps"] == [[880, 120]],
            timeout=5,
        )
        assert bytes.fromhex(state["leds"])[6:12] == bytes((255, 0, 0, 0, 255, 0))
        assert state["frames_bad"] == 0
        assert link.wait_synced(2)


def test_only_changed_rows_are_sent_and_all_rows_stay_right(tmp_path: Path) -> None:
    with emulated_board(tmp_path) as board, DisplayLink(str(board.port)) as link:
        link.show_lines(["a", "b", "c", "d"])
        assert link.wait_synced(5)
        sent = link.stats.bytes_sent
        link.show_lines(["a", "B", "c", "d"])
        board.wait_for(screen_is(["a", "B", "c", "d"]), timeout=5)
        assert link.wait_synced(5)
        assert link.stats.bytes_sent - sent < 60  # one TEXT_LINE frame, not a whole screen


def test_pulled_cable_screen_shows_current_state_within_2s_of_reconnect(tmp_path: Path) -> None:
    with emulated_board(tmp_path, unplug_seconds=0.7) as board:
        link = DisplayLink(str(board.port))
        link.start()
        try:
            _pull_and_replug(board, link)
        finally:
            link.close()


def _pull_and_replug(board: EmulatedBoard, link: DisplayLink) -> None:
    link.show_lines(["Rot ist dran"])
    link.show_die(3)
    board.wait_for(screen_is(["Rot ist dran"]), timeout=5)
    board.pull_cable()
    deadline = time.monotonic() + 5
    while board.port.is_symlink() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not board.port.is_symlink(), "the emulator did not pull the cable"
    link.show_lines(["Grün ist dran", "Zug ungültig"])  # changed while unplugged
    link.beep(2000, 80)
    board.wait_for(lambda s: s["boots"] == 2, timeout=5)  # plugged back, blank board
    state = board.wait_for(
        lambda s: screen_is(["Grün ist dran", "Zug ungültig"])(s) and s["die"] == 3,
        timeout=5,
    )
    board.wait_for(lambda s: s["beeps"] == [[2000, 80]], timeout=2)
    assert time.monotonic() - float(state["plugged_at"]) < 2.0
    assert link.stats.reconnects >= 2


def test_link_started_before_the_board_exists_keeps_trying_and_then_shows_state(
    tmp_path: Path,
) -> None:
    port = tmp_path / "board-port"
    link = DisplayLink(str(port), reconnect_interval=0.05)
    link.start()
    try:
        link.show_lines(["Warte", "auf Board"])  # must not raise nor block without a port
        assert not link.connected
        with emulated_board(tmp_path) as board:
            assert board.port == port
            board.wait_for(screen_is(["Warte", "auf Board"]), timeout=5)
    finally:
        link.close()


def test_screen_reports_what_the_board_reads_back(tmp_path: Path) -> None:
    with emulated_board(tmp_path) as board, DisplayLink(str(board.port)) as link:
        link.show_lines(["Ärger über 20°", "x" * 25])
        assert link.wait_synced(5)
        state = board.wait_for(lambda s: s["lines"][1] == "x" * 20, timeout=5)
        assert list(link.screen()) == state["lines"]
        assert link.screen()[0] == "ärger über 20°".ljust(20)
