"""Random and mutated frames into both parsers: nothing escapes, every bad frame is answered.

Issue 4, test 4: 100,000 frames into the host parser and 100,000 into the firmware's board logic
(seeded, so a failure reproduces), plus raw streams cut at random places.
"""

from __future__ import annotations

import random

from firmware import protocol as fw
from firmware.board_logic import Board
from hardware import frame_codec as host

N_FRAMES = 100_000


def _mutations(valid: list[bytes], rng: random.Random, n: int):
    """Frames without their delimiter: valid ones, mutated ones, truncated ones, random bytes."""
    for _ in range(n):
        frame = bytearray(rng.choice(valid))
        kind = rng.randrange(8)
        if kind == 0:
            frame = bytearray(rng.randrange(1, 256) for _ in range(rng.randrange(1, 300)))
        elif kind == 1:
            frame = frame[: rng.randrange(1, len(frame))] if len(frame) > 1 else frame
        elif kind == 2:
            frame += bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 5)))
        elif kind > 3:
            for _ in range(rng.randrange(1, 4)):
                frame[rng.randrange(len(frame))] = rng.randrange(1, 256)
        yield bytes(frame)


def _board_frames() -> list[bytes]:
    frames = [
        host.Frame(s, host.MessageType.ACK) for s in range(0, 256, 17)
    ] + [host.Frame(s, host.MessageType.SENSOR, bytes((s % 4, s % 2))) for s in range(20)]
    frames.append(host.Frame(3, host.MessageType.VERSION, b"\x011.0.0"))
    frames.append(host.Frame(4, host.MessageType.SCREEN_DUMP, bytes(range(32, 112))))
    frames.append(host.error_reply(host.ErrorCode.CRC, None))
    return [host.encode(f)[:-1] for f in frames]


def _pi_frames() -> list[bytes]:
    frames = [host.screen(s, ["Gelb ist dran", "Bitte würfeln"]) for s in range(5)]
    frames += [host.text_line(s, s % 4, f"Zeile {s}") for s in range(10)]
    frames += [host.leds(9, 10, [(255, 0, 0), (0, 255, 0)]), host.die(2, 5), host.beep(3, 880, 90)]
    frames.append(host.Frame(7, host.MessageType.HEARTBEAT))
    frames.append(host.Frame(8, host.MessageType.LEDS_CLEAR))
    return [host.encode(f)[:-1] for f in frames]


def test_host_receiver_counts_and_answers_every_bad_frame() -> None:
    rng = random.Random(20261130)
    receiver = host.Receiver()
    bad = good = replies = 0
    for frame in _mutations(_board_frames(), rng, N_FRAMES):
        try:
            fw.decode_frame(frame)  # the other parser is the judge of what is bad
            good += 1
        except fw.FrameError:
            bad += 1
        frames, answer = receiver.feed(frame + b"\x00")
        if answer:
            replies += 1
            assert host.decode(answer[:-1]).type is host.MessageType.ERROR
        assert len(frames) + (1 if answer else 0) == 1
    assert good + bad == N_FRAMES
    assert bad > N_FRAMES // 2
    assert receiver.bad == bad == replies
    assert receiver.good == good


def test_firmware_board_counts_and_answers_every_bad_frame() -> None:
    rng = random.Random(4)
    board = Board()
    bad = errors = 0
    for now, frame in enumerate(_mutations(_pi_frames(), rng, N_FRAMES)):
        try:
            host.decode(frame, board.n_leds)
        except host.FrameError:
            bad += 1
        reply = board.feed(frame + b"\x00", now)
        answer = host.decode(reply[:-1])
        errors += answer.type is host.MessageType.ERROR
    assert bad > N_FRAMES // 2
    assert board.frames_bad == bad == errors
    assert board.frames_ok == N_FRAMES - bad


def test_random_streams_cut_anywhere_never_raise_and_every_frame_is_accounted() -> None:
    rng = random.Random(11)
    pieces = _pi_frames()
    board = Board()
    receiver = host.Receiver()
    segments = 0
    for _ in range(2000):
        stream = bytearray()
        for _ in range(rng.randrange(1, 6)):
            stream += rng.choice(pieces) if rng.random() < 0.5 else rng.randbytes(rng.randrange(40))
            stream.append(0)
        segments += sum(1 for s in bytes(stream).split(b"\x00")[:-1] if s)
        pos = 0
        while pos < len(stream):
            cut = rng.randrange(pos + 1, len(stream) + 1)
            board.feed(bytes(stream[pos:cut]), 0)
            receiver.feed(bytes(stream[pos:cut]))
            pos = cut
    assert board.frames_ok + board.frames_bad == segments
    assert receiver.good + receiver.bad == segments
