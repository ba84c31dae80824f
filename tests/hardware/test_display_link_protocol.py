"""The link's protocol behaviour on a real pty: retransmission, error replies, board inputs."""

from __future__ import annotations

import os
import queue
import select
import threading
import time
import tty
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.words.events import ButtonPressed, DieThrown
from hardware import frame_codec as codec
from hardware.board_emulator import Emulator
from hardware.display_link import DisplayLink
from hardware.input_events import BoardInputs


class RawBoard:
    """The far end of a pty driven by the test itself, to misbehave on purpose."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.receiver = codec.Receiver()

    def frames(self, timeout: float) -> list[codec.Frame]:
        """Frames the Pi sent within `timeout` (after the first one arrives)."""
        got: list[codec.Frame] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.01)
            if ready:
                frames, _ = self.receiver.feed(os.read(self.master, 4096))
                got += frames
        return got

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def test_unanswered_frame_is_resent_with_the_same_bytes_until_acked() -> None:
    board = RawBoard()
    link = DisplayLink(board.path, ack_timeout=0.1, max_tries=10)
    link.show_lines(["Hallo"])  # before start: the first frame sent is this screen
    link.start()
    try:
        first = board.frames(0.35)  # say nothing: the link must retry
        assert len(first) >= 2
        assert {f for f in first} == {first[0]}  # the same frame, same seq, again and again
        assert first[0].type is codec.MessageType.SCREEN
        assert first[0].body[:5] == b"Hallo"
        board.send(codec.encode(codec.Frame(first[0].seq, codec.MessageType.ACK)))
        following = board.frames(0.15)
        assert following and following[0].seq == (first[0].seq + 1) % 256
        assert following[0].type is not codec.MessageType.SCREEN
        assert link.stats.retransmits >= 1
        assert link.stats.acks == 1
    finally:
        link.close()
        board.close()


def test_garbage_from_the_board_is_counted_and_answered_with_error() -> None:
    board = RawBoard()
    link = DisplayLink(board.path, heartbeat_interval=60)
    link.start()
    try:
        board.frames(0.2)
        good = codec.encode(codec.Frame(9, codec.MessageType.SENSOR, b"\x01\x01"))
        corrupt = bytearray(good)
        corrupt[3] ^= 0x40
        board.send(bytes(corrupt) + b"\x07\x07\x00")
        answers = board.frames(0.3)
        errors = [f for f in answers if f.type is codec.MessageType.ERROR]
        assert [e.body[0] for e in errors] == [codec.ErrorCode.CRC, codec.ErrorCode.COBS]
        assert link.stats.bad_frames == 2
    finally:
        link.close()
        board.close()


@contextmanager
def in_process_board(tmp_path: Path) -> Iterator[Emulator]:
    emulator = Emulator(tmp_path / "board", None, 0.2, 16)
    thread = threading.Thread(target=emulator.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 5
        while not emulator.port.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        yield emulator
    finally:
        emulator.stop = True
        thread.join(5)


def test_board_inputs_become_events_and_version_is_known(tmp_path: Path) -> None:
    events: queue.Queue = queue.Queue()
    inputs = BoardInputs(events, {0: "roll", 1: "undo", 3: "dice_tray"}, long_press_s=0.2,
                         quiet_s=1.0)
    with in_process_board(tmp_path) as emulator, DisplayLink(
        str(emulator.port), on_sensor=inputs
    ) as link:
        assert link.wait_synced(5)
        assert link.board_version == "1.0.0"
        emulator.inject(0, True)
        emulator.inject(0, False)
        roll = events.get(timeout=2)
        emulator.inject(1, True)
        time.sleep(0.3)
        emulator.inject(1, False)
        undo = events.get(timeout=2)
        emulator.inject(3, True)
        emulator.inject(3, False)
        emulator.inject(3, True)  # still rattling: the same throw
        throw = events.get(timeout=2)
        time.sleep(0.3)
        assert events.empty()
        assert (roll.name, roll.long) == ("roll", False) and isinstance(roll, ButtonPressed)
        assert (undo.name, undo.long) == ("undo", True)
        assert isinstance(throw, DieThrown)
        assert emulator.board.pending_reports() == 0  # every report was acknowledged
