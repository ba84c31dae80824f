"""The board's protocol behaviour (CPython; the same module runs on the Pico)."""

from __future__ import annotations

from firmware import protocol as fw
from firmware.board_logic import LINK_TIMEOUT_MS, RETRY_MS, Board, die_pips
from firmware.debounce import TICKS_PERIOD, Debouncer, ticks_diff
from hardware import frame_codec as host


def _reply(board: Board, frame: host.Frame, now: int = 0) -> host.Frame:
    out = board.feed(host.encode(frame), now)
    return host.decode(out[:-1])


def test_retransmitted_beep_is_acked_again_but_played_once() -> None:
    board = Board()
    frame = host.beep(12, 2000, 80)
    assert _reply(board, frame) == host.Frame(12, host.MessageType.ACK)
    assert _reply(board, frame) == host.Frame(12, host.MessageType.ACK)
    assert board.beeps == [(2000, 80)]


def test_same_seq_with_new_content_is_applied_not_mistaken_for_a_retransmission() -> None:
    board = Board()
    _reply(board, host.text_line(1, 0, "alt"))
    _reply(board, host.text_line(1, 0, "neu"))
    assert board.display.text_lines()[0].rstrip() == "neu"


def test_leds_beyond_strip_are_refused_with_value_error_naming_seq() -> None:
    board = Board(n_leds=8)
    answer = _reply(board, host.leds(40, 7, [(1, 2, 3), (4, 5, 6)]))
    assert answer == host.Frame(40, host.MessageType.ERROR, bytes((fw.E_VALUE, 1)))
    assert bytes(board.leds) == bytes(24)


def test_leds_set_and_clear() -> None:
    board = Board(n_leds=8)
    _reply(board, host.leds(1, 6, [(9, 8, 7), (6, 5, 4)]))
    assert bytes(board.leds[18:]) == bytes((9, 8, 7, 6, 5, 4))
    _reply(board, host.Frame(2, host.MessageType.LEDS_CLEAR))
    assert bytes(board.leds) == bytes(24)


def test_version_and_screen_queries_answer_with_their_seq() -> None:
    board = Board()
    version = _reply(board, host.Frame(77, host.MessageType.VERSION_QUERY))
    assert version.type is host.MessageType.VERSION and version.seq == 77
    assert version.body[0] == host.PROTOCOL_VERSION
    _reply(board, host.screen(78, ["a", "b", "c", "d"]))
    dump = _reply(board, host.Frame(79, host.MessageType.SCREEN_QUERY))
    assert dump.body == host.screen(0, ["a", "b", "c", "d"]).body


def test_board_only_types_from_the_pi_are_refused() -> None:
    board = Board()
    answer = _reply(board, host.Frame(5, host.MessageType.SCREEN_DUMP, bytes(80)))
    assert answer.body[0] == fw.E_TYPE


def test_sensor_report_is_resent_until_acked() -> None:
    board = Board()
    first = board.report_input(2, 1, now_ms=1000)
    assert board.tick(1000 + RETRY_MS - 1) == b""
    assert board.tick(1000 + RETRY_MS) == first
    seq = host.decode(first[:-1]).seq
    board.feed(host.encode(host.Frame(seq, host.MessageType.ACK)), 1000 + RETRY_MS + 1)
    assert board.pending_reports() == 0
    assert board.tick(1000 + 10 * RETRY_MS) == b""


def test_error_reply_from_pi_triggers_immediate_resend() -> None:
    board = Board()
    first = board.report_input(0, 1, now_ms=0)
    board.feed(host.encode(host.error_reply(host.ErrorCode.CRC, None)), 1)
    assert board.tick(2) == first


def test_silent_pi_shows_no_link_on_the_last_row() -> None:
    board = Board()
    board.tick(0)
    board.tick(LINK_TIMEOUT_MS + 1)
    assert "No link" in board.display.text_lines()[3]


def test_die_pips_count_equals_face_value() -> None:
    for value in range(7):
        assert sum(die_pips(value)) == value


def test_debouncer_ignores_chatter_and_accepts_a_stable_press() -> None:
    deb = Debouncer(stable_ms=20)
    events = [deb.update(raw, t) for t, raw in [(0, 1), (5, 0), (8, 1), (15, 0), (16, 1)]]
    assert events == [None] * 5
    assert deb.update(1, 35) is None
    assert deb.update(1, 36) == 1


def test_debounce_survives_tick_counter_wrap() -> None:
    deb = Debouncer(stable_ms=20)
    start = TICKS_PERIOD - 5
    assert deb.update(1, start) is None
    assert deb.update(1, (start + 25) % TICKS_PERIOD) == 1
    assert ticks_diff(3, TICKS_PERIOD - 2) == 5
