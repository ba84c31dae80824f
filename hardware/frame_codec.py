"""The Pi's side of the display-board protocol: frames, messages and their validation.

Written independently of `firmware.protocol` (CRC from `binascii.crc_hqx`, COBS by splitting at
zero bytes) so that the golden frames in tests/firmware/golden check one against the other.
Layout and message table: docs/protocol.md.
"""

from __future__ import annotations

import binascii
import enum
from dataclasses import dataclass

from firmware import charset

PROTOCOL_VERSION = 1
ROWS = 4
COLS = 20
MAX_PAYLOAD = 250
MAX_ENCODED = MAX_PAYLOAD + 2
DELIMITER = b"\x00"


class MessageType(enum.IntEnum):
    TEXT_LINE = 0x01
    SCREEN = 0x02
    LEDS = 0x03
    LEDS_CLEAR = 0x04
    DIE = 0x05
    BEEP = 0x06
    HEARTBEAT = 0x07
    VERSION_QUERY = 0x08
    SCREEN_QUERY = 0x09
    ACK = 0x80
    ERROR = 0x81
    SENSOR = 0x82
    VERSION = 0x83
    SCREEN_DUMP = 0x84


class ErrorCode(enum.IntEnum):
    COBS = 1
    CRC = 2
    SHORT = 3
    TYPE = 4
    LENGTH = 5
    VALUE = 6
    TOO_LONG = 7


class FrameError(ValueError):
    """A frame that cannot be accepted; `seq` is known only when the CRC was good."""

    def __init__(self, code: ErrorCode, seq: int | None = None, detail: str = "") -> None:
        super().__init__(f"{code.name.lower()}: {detail}" if detail else code.name.lower())
        self.code = code
        self.seq = seq


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    type: MessageType
    body: bytes = b""


_FIXED = {
    MessageType.TEXT_LINE: 1 + COLS,
    MessageType.SCREEN: ROWS * COLS,
    MessageType.LEDS_CLEAR: 0,
    MessageType.DIE: 1,
    MessageType.BEEP: 4,
    MessageType.HEARTBEAT: 0,
    MessageType.VERSION_QUERY: 0,
    MessageType.SCREEN_QUERY: 0,
    MessageType.ACK: 0,
    MessageType.ERROR: 2,
    MessageType.SENSOR: 2,
    MessageType.SCREEN_DUMP: ROWS * COLS,
}


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, the frame checksum."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(data: bytes) -> bytes:
    """COBS: every zero becomes the distance to the next; runs longer than 254 are split."""
    out = bytearray()
    parts = data.split(b"\x00")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        while len(part) >= 254:
            out.append(0xFF)
            out += part[:254]
            part = part[254:]
            if not part and last:
                return bytes(out)
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of `cobs_encode`; FrameError(COBS) names the offset of a bad block."""
    out = bytearray()
    pos = 0
    while pos < len(data):
        code = data[pos]
        end = pos + code
        if code == 0 or end > len(data) or 0 in data[pos + 1 : end]:
            raise FrameError(ErrorCode.COBS, detail=f"bad block at offset {pos}")
        out += data[pos + 1 : end]
        pos = end
        if code < 0xFF and pos < len(data):
            out.append(0)
    return bytes(out)


def encode(frame: Frame) -> bytes:
    """Wire bytes of a frame, delimiter included; ValueError if the body does not fit its type."""
    problem = body_problem(frame.type, frame.body)
    if problem:
        raise ValueError(f"{frame.type.name}: {problem[1]}")
    payload = bytes((frame.seq & 0xFF, frame.type)) + frame.body
    payload += crc16(payload).to_bytes(2, "big")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"{frame.type.name}: payload of {len(payload)} bytes > {MAX_PAYLOAD}")
    return cobs_encode(payload) + DELIMITER


def body_problem(mtype: int, body: bytes, n_leds: int = 255) -> tuple[ErrorCode, str] | None:
    """Why `body` is not a valid body for `mtype`, or None when it is."""
    try:
        kind = MessageType(mtype)
    except ValueError:
        return ErrorCode.TYPE, f"unknown message type 0x{mtype:02x}"
    size = len(body)
    if kind is MessageType.LEDS:
        if size < 4 or (size - 1) % 3:
            return ErrorCode.LENGTH, f"LEDS body of {size} bytes is not 1 + 3*n"
        if body[0] + (size - 1) // 3 > n_leds:
            return ErrorCode.VALUE, f"LEDS beyond the strip of {n_leds}"
        return None
    if kind is MessageType.VERSION:
        return (ErrorCode.LENGTH, "empty VERSION body") if size < 1 else None
    if size != _FIXED[kind]:
        return ErrorCode.LENGTH, f"{kind.name} body of {size} bytes, expected {_FIXED[kind]}"
    value_checks = {
        MessageType.TEXT_LINE: lambda b: b[0] < ROWS,
        MessageType.DIE: lambda b: b[0] <= 6,
        MessageType.BEEP: lambda b: 50 <= int.from_bytes(b[:2], "big") <= 10000
        and 1 <= int.from_bytes(b[2:], "big") <= 5000,
        MessageType.ERROR: lambda b: b[0] in ErrorCode._value2member_map_,
        MessageType.SENSOR: lambda b: b[1] <= 1,
    }
    check = value_checks.get(kind)
    if check is not None and not check(body):
        return ErrorCode.VALUE, f"{kind.name} value out of range: {body.hex()}"
    return None


def decode(data: bytes, n_leds: int = 255) -> Frame:
    """The frame in `data` (without the delimiter); raises FrameError saying what is wrong."""
    if len(data) > MAX_ENCODED:
        raise FrameError(ErrorCode.TOO_LONG, detail=f"{len(data)} bytes")
    payload = cobs_decode(data)
    if len(payload) < 4:
        raise FrameError(ErrorCode.SHORT, detail=f"{len(payload)} bytes")
    if crc16(payload[:-2]) != int.from_bytes(payload[-2:], "big"):
        raise FrameError(ErrorCode.CRC)
    seq, mtype, body = payload[0], payload[1], payload[2:-2]
    problem = body_problem(mtype, body, n_leds)
    if problem:
        raise FrameError(problem[0], seq, problem[1])
    return Frame(seq, MessageType(mtype), body)


def text_line(seq: int, row: int, text: str) -> Frame:
    """One display row; text is cut or padded to 20 cells and mapped to the A00 ROM."""
    if not 0 <= row < ROWS:
        raise ValueError(f"row {row} outside 0..{ROWS - 1}")
    return Frame(seq, MessageType.TEXT_LINE, bytes((row,)) + charset.encode_text(text, COLS))


def screen(seq: int, lines: tuple[str, ...] | list[str]) -> Frame:
    """The whole 20x4 screen in one frame (the cheapest full update)."""
    if len(lines) > ROWS:
        raise ValueError(f"{len(lines)} lines, the display has {ROWS}")
    padded = list(lines) + [""] * (ROWS - len(lines))
    return Frame(seq, MessageType.SCREEN, b"".join(charset.encode_text(t, COLS) for t in padded))


def leds(seq: int, first: int, colours: list[tuple[int, int, int]]) -> Frame:
    """Set strip LEDs `first`, `first+1`, ... to RGB colours (0..255 each)."""
    body = bytearray((first,))
    for colour in colours:
        body += bytes(colour)
    return Frame(seq, MessageType.LEDS, bytes(body))


def die(seq: int, value: int) -> Frame:
    return Frame(seq, MessageType.DIE, bytes((value,)))


def beep(seq: int, freq_hz: int, ms: int) -> Frame:
    return Frame(seq, MessageType.BEEP, freq_hz.to_bytes(2, "big") + ms.to_bytes(2, "big"))


def error_reply(code: ErrorCode, seq: int | None) -> Frame:
    """The answer to a malformed frame (seq 0 and flag 0 when its seq could not be trusted)."""
    return Frame(0 if seq is None else seq, MessageType.ERROR, bytes((code, seq is not None)))


class Receiver:
    """Cuts the board's byte stream into frames; counts bad ones and builds their error replies.

    Pure (no I/O), so the display link and the fuzz tests share it. A run longer than a frame can
    be is dropped up to the next delimiter and counted as one TOO_LONG frame.
    """

    def __init__(self) -> None:
        self.good = 0
        self.bad = 0
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> tuple[list[Frame], bytes]:
        """(good frames in order, error replies to send back) for the bytes received."""
        frames: list[Frame] = []
        replies = bytearray()
        chunks = data.split(DELIMITER)
        for index, chunk in enumerate(chunks):
            if not self._overflow:
                self._buf += chunk
                if len(self._buf) > MAX_ENCODED:
                    self._overflow = True
                    self._buf.clear()
            if index == len(chunks) - 1:
                break
            if self._overflow:
                replies += self._reject(FrameError(ErrorCode.TOO_LONG))
            elif self._buf:
                try:
                    frames.append(decode(bytes(self._buf)))
                    self.good += 1
                except FrameError as exc:
                    replies += self._reject(exc)
            self._buf.clear()
            self._overflow = False
        return frames, bytes(replies)

    def _reject(self, exc: FrameError) -> bytes:
        self.bad += 1
        return encode(error_reply(exc.code, exc.seq))
