"""Framing of the serial protocol between the Pi and the display board (see docs/protocol.md).

A frame on the wire is COBS(seq, type, body..., crc_hi, crc_lo) followed by one 0x00 byte. The
CRC is CRC-16/CCITT-FALSE over seq, type and body. This module is the board's side; the Pi has
its own codec in `hardware.frame_codec`, and the golden frames in tests/firmware/golden keep the
two byte-for-byte equal. MicroPython subset only: no typing, no dataclasses.
"""

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 250  # seq + type + body + crc, before COBS
MAX_ENCODED = MAX_PAYLOAD + 2  # COBS adds at most one byte per 254 plus one

# Pi -> board
T_TEXT_LINE = 0x01
T_SCREEN = 0x02
T_LEDS = 0x03
T_LEDS_CLEAR = 0x04
T_DIE = 0x05
T_BEEP = 0x06
T_HEARTBEAT = 0x07
T_VERSION_QUERY = 0x08
T_SCREEN_QUERY = 0x09
# board -> Pi (replies carry the seq of the frame they answer)
T_ACK = 0x80
T_ERROR = 0x81
T_SENSOR = 0x82
T_VERSION = 0x83
T_SCREEN_DUMP = 0x84

ROWS = 4
COLS = 20

# Error codes in an ERROR reply
E_COBS = 1
E_CRC = 2
E_SHORT = 3
E_TYPE = 4
E_LENGTH = 5
E_VALUE = 6
E_TOO_LONG = 7

ERROR_NAMES = {
    E_COBS: "bad COBS encoding",
    E_CRC: "CRC mismatch",
    E_SHORT: "frame too short",
    E_TYPE: "unknown message type",
    E_LENGTH: "wrong body length",
    E_VALUE: "value out of range",
    E_TOO_LONG: "frame too long",
}


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); check value for b"123456789" is 0x29B1."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result holds no 0x00 byte."""
    out = bytearray()
    block = bytearray()
    after_full_block = False
    for byte in data:
        after_full_block = False
        if byte == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
                after_full_block = True
    if not after_full_block:
        out.append(len(block) + 1)
        out.extend(block)
    return bytes(out)


class FrameError(Exception):
    """A frame that cannot be accepted; `code` is one of the E_* codes, `seq` is None if unknown."""

    def __init__(self, code, seq=None):
        super().__init__(code, seq)
        self.code = code
        self.seq = seq


def cobs_decode(data):
    """Inverse of `cobs_encode`; raises FrameError(E_COBS) on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            raise FrameError(E_COBS)
        block = data[i + 1:end]
        if 0 in block:
            raise FrameError(E_COBS)
        out.extend(block)
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(seq, mtype, body=b""):
    """The bytes on the wire for one message, delimiter included."""
    payload = bytearray((seq & 0xFF, mtype & 0xFF))
    payload.extend(body)
    crc = crc16(payload)
    payload.append(crc >> 8)
    payload.append(crc & 0xFF)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("message too long")
    return cobs_encode(payload) + b"\x00"


_FIXED_LENGTHS = {
    T_TEXT_LINE: 1 + COLS,
    T_SCREEN: ROWS * COLS,
    T_LEDS_CLEAR: 0,
    T_DIE: 1,
    T_BEEP: 4,
    T_HEARTBEAT: 0,
    T_VERSION_QUERY: 0,
    T_SCREEN_QUERY: 0,
    T_ACK: 0,
    T_ERROR: 2,
    T_SENSOR: 2,
    T_SCREEN_DUMP: ROWS * COLS,
}


def check_body(mtype, body, n_leds=255):
    """0 if the body fits the message type, else the E_* code that says why not."""
    n = len(body)
    if mtype == T_LEDS:
        if n < 4 or (n - 1) % 3:
            return E_LENGTH
        if body[0] + (n - 1) // 3 > n_leds:
            return E_VALUE
        return 0
    if mtype == T_VERSION:
        return E_LENGTH if n < 1 else 0
    if mtype not in _FIXED_LENGTHS:
        return E_TYPE
    if n != _FIXED_LENGTHS[mtype]:
        return E_LENGTH
    if mtype == T_TEXT_LINE and body[0] >= ROWS:
        return E_VALUE
    if mtype == T_DIE and body[0] > 6:
        return E_VALUE
    if mtype == T_BEEP:
        freq = (body[0] << 8) | body[1]
        ms = (body[2] << 8) | body[3]
        if not (50 <= freq <= 10000 and 1 <= ms <= 5000):
            return E_VALUE
    if mtype == T_ERROR and body[0] not in ERROR_NAMES:
        return E_VALUE
    if mtype == T_SENSOR and body[1] > 1:
        return E_VALUE
    return 0


def decode_frame(data, n_leds=255):
    """(seq, type, body) of one frame without its 0x00 delimiter; raises FrameError."""
    if len(data) > MAX_ENCODED:
        raise FrameError(E_TOO_LONG)
    payload = cobs_decode(data)
    if len(payload) < 4:
        raise FrameError(E_SHORT)
    seq = payload[0]
    crc = (payload[-2] << 8) | payload[-1]
    if crc16(payload[:-2]) != crc:
        raise FrameError(E_CRC)
    mtype = payload[1]
    body = payload[2:-2]
    code = check_body(mtype, body, n_leds)
    if code:
        raise FrameError(code, seq)
    return seq, mtype, body


class FrameSplitter:
    """Cuts a byte stream at 0x00 into frames; an overlong run is reported once as E_TOO_LONG."""

    def __init__(self, limit=MAX_ENCODED):
        self._buf = bytearray()
        self._limit = limit
        self._overflow = False

    def feed(self, data):
        """A list of complete frames (bytes, delimiter removed); None marks an overlong frame."""
        frames = []
        for byte in data:
            if byte == 0:
                if self._overflow:
                    frames.append(None)
                elif self._buf:
                    frames.append(bytes(self._buf))
                self._buf = bytearray()
                self._overflow = False
            elif not self._overflow:
                if len(self._buf) >= self._limit:
                    self._overflow = True
                    self._buf = bytearray()
                else:
                    self._buf.append(byte)
        return frames
