"""Host and firmware codecs agree on every valid message (hypothesis), both directions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol as fw
from firmware.board_logic import Board
from hardware import frame_codec as host

T = host.MessageType
seqs = st.integers(0, 255)
texts = st.text(alphabet=st.sampled_from("abcXYZ äöüÄÖÜß°09!?→~\\é"), max_size=25)


@st.composite
def frames(draw: st.DrawFn) -> host.Frame:
    seq = draw(seqs)
    kind = draw(st.sampled_from(list(T)))
    if kind is T.TEXT_LINE:
        return host.text_line(seq, draw(st.integers(0, 3)), draw(texts))
    if kind is T.SCREEN:
        return host.screen(seq, draw(st.lists(texts, min_size=0, max_size=4)))
    if kind is T.LEDS:
        first = draw(st.integers(0, 63))
        colour = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
        return host.leds(seq, first, draw(st.lists(colour, min_size=1, max_size=64 - first)))
    if kind is T.DIE:
        return host.die(seq, draw(st.integers(0, 6)))
    if kind is T.BEEP:
        return host.beep(seq, draw(st.integers(50, 10000)), draw(st.integers(1, 5000)))
    if kind is T.ERROR:
        return host.error_reply(draw(st.sampled_from(list(host.ErrorCode))), draw(st.none() | seqs))
    if kind is T.SENSOR:
        return host.Frame(seq, kind, bytes((draw(st.integers(0, 255)), draw(st.integers(0, 1)))))
    if kind is T.VERSION:
        return host.Frame(seq, kind, b"\x01" + draw(st.binary(min_size=0, max_size=20)))
    if kind is T.SCREEN_DUMP:
        return host.Frame(seq, kind, draw(st.binary(min_size=80, max_size=80)))
    return host.Frame(seq, kind)


@settings(max_examples=400, deadline=None)
@given(frames())
def test_firmware_decodes_what_the_host_encodes_and_encodes_it_back_identically(
    frame: host.Frame,
) -> None:
    wire = host.encode(frame)
    assert fw.decode_frame(wire[:-1]) == (frame.seq, frame.type, frame.body)
    assert fw.encode_frame(frame.seq, frame.type, frame.body) == wire
    assert host.decode(wire[:-1]) == frame


@settings(max_examples=200, deadline=None)
@given(frames())
def test_board_answers_every_valid_pi_message_with_its_seq(frame: host.Frame) -> None:
    board = Board(n_leds=64)
    out = board.feed(host.encode(frame), 0)
    if frame.type in (T.ACK, T.ERROR):  # answers are never answered
        assert out == b""
        return
    reply = host.decode(out[:-1])
    assert reply.seq == frame.seq
    if frame.type < 0x80:
        assert reply.type in (T.ACK, T.VERSION, T.SCREEN_DUMP)
    else:
        assert reply.type is T.ERROR and reply.body[0] == host.ErrorCode.TYPE
