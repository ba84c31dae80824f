"""The display board's behaviour without hardware: frames in, replies out, state for the drivers.

`main.py` feeds received UART bytes to `Board.feed`, writes the returned bytes back, then draws
what changed (dirty display rows, LED strip, die, beeps). The board emulator on the Pi side runs
this very class, so host tests exercise the same logic the board runs.
"""

from firmware import protocol as p
from firmware.debounce import ticks_diff
from firmware.display_buffer import DisplayBuffer

FIRMWARE_VERSION = "1.0.0"
RETRY_MS = 200  # resend an unacknowledged sensor report after this long
MAX_TRIES = 10
LINK_TIMEOUT_MS = 3000  # no valid frame for this long: show "no link" on the display

# Pips of the electronic die: top-left, top-right, middle-left, centre, middle-right,
# bottom-left, bottom-right.
_PIPS = {
    0: (0, 0, 0, 0, 0, 0, 0),
    1: (0, 0, 0, 1, 0, 0, 0),
    2: (1, 0, 0, 0, 0, 0, 1),
    3: (1, 0, 0, 1, 0, 0, 1),
    4: (1, 1, 0, 0, 0, 1, 1),
    5: (1, 1, 0, 1, 0, 1, 1),
    6: (1, 1, 1, 0, 1, 1, 1),
}


def die_pips(value):
    """Which of the seven die LEDs are lit for `value` (0 = blank)."""
    return _PIPS[value]


class Board:
    """State of one display board and its side of the protocol."""

    def __init__(self, n_leds=64, version=FIRMWARE_VERSION):
        self.display = DisplayBuffer()
        self.n_leds = n_leds
        self.version = version
        self.leds = bytearray(3 * n_leds)
        self.leds_dirty = True
        self.die = 0
        self.die_dirty = True
        self.beeps = []
        self.frames_ok = 0
        self.frames_bad = 0
        self.errors_sent = 0
        self.error_codes = {}
        self._splitter = p.FrameSplitter()
        self._last = None
        self._tx_seq = 0
        self._pending = []
        self._last_rx_ms = None
        self._no_link_shown = False
        self.display.set_text(0, "Spieltisch")
        self.display.set_text(1, "Warte auf den Pi")
        self.display.set_text(2, "Waiting for the Pi")

    def feed(self, data, now_ms):
        """Bytes received from the Pi; returns the bytes to send back (never raises)."""
        out = bytearray()
        for frame in self._splitter.feed(data):
            if frame is None:
                out.extend(self._error(p.E_TOO_LONG, None))
                continue
            try:
                seq, mtype, body = p.decode_frame(frame, self.n_leds)
            except p.FrameError as exc:
                out.extend(self._error(exc.code, exc.seq))
                continue
            out.extend(self._handle(seq, mtype, body, frame, now_ms))
        return bytes(out)

    def _error(self, code, seq):
        self.frames_bad += 1
        self.errors_sent += 1
        self.error_codes[code] = self.error_codes.get(code, 0) + 1
        known = 0 if seq is None else 1
        return p.encode_frame(0 if seq is None else seq, p.T_ERROR, bytes((code, known)))

    def _handle(self, seq, mtype, body, frame, now_ms):
        self._last_rx_ms = now_ms
        self._no_link_shown = False
        if mtype == p.T_ACK:
            self.frames_ok += 1
            self._pending = [e for e in self._pending if e[0] != seq]
            return b""
        if mtype == p.T_ERROR:
            self.frames_ok += 1
            for entry in self._pending:
                if body[1] == 0 or entry[0] == seq:
                    entry[2] = None
            return b""
        if mtype >= 0x80:
            return self._error(p.E_TYPE, seq)
        self.frames_ok += 1
        if self._last == frame:
            return p.encode_frame(seq, p.T_ACK)
        self._last = frame
        if mtype == p.T_VERSION_QUERY:
            reply = bytes((p.PROTOCOL_VERSION,)) + self.version.encode()
            return p.encode_frame(seq, p.T_VERSION, reply)
        if mtype == p.T_SCREEN_QUERY:
            return p.encode_frame(seq, p.T_SCREEN_DUMP, self.display.codes())
        self._apply(mtype, body)
        return p.encode_frame(seq, p.T_ACK)

    def _apply(self, mtype, body):
        if mtype == p.T_TEXT_LINE:
            self.display.set_row(body[0], body[1:])
        elif mtype == p.T_SCREEN:
            self.display.set_all(body)
        elif mtype == p.T_LEDS:
            start = 3 * body[0]
            self.leds[start:start + len(body) - 1] = body[1:]
            self.leds_dirty = True
        elif mtype == p.T_LEDS_CLEAR:
            self.leds = bytearray(3 * self.n_leds)
            self.leds_dirty = True
        elif mtype == p.T_DIE:
            self.die = body[0]
            self.die_dirty = True
        elif mtype == p.T_BEEP:
            self.beeps.append(((body[0] << 8) | body[1], (body[2] << 8) | body[3]))

    def report_input(self, input_id, state, now_ms):
        """A debounced button or sensor change: the frame to send now (resent until acked)."""
        seq = self._tx_seq
        self._tx_seq = (self._tx_seq + 1) & 0xFF
        frame = p.encode_frame(seq, p.T_SENSOR, bytes((input_id & 0xFF, 1 if state else 0)))
        self._pending.append([seq, frame, now_ms, 1])
        return frame

    def tick(self, now_ms):
        """Call often: bytes to resend, and the "no link" notice when the Pi went quiet."""
        out = bytearray()
        keep = []
        for entry in self._pending:
            frame, sent, tries = entry[1], entry[2], entry[3]
            if sent is None or ticks_diff(now_ms, sent) >= RETRY_MS:
                if tries >= MAX_TRIES:
                    continue
                out.extend(frame)
                entry[2] = now_ms
                entry[3] = tries + 1
            keep.append(entry)
        self._pending = keep
        if self._last_rx_ms is None:
            self._last_rx_ms = now_ms
        if not self._no_link_shown and ticks_diff(now_ms, self._last_rx_ms) > LINK_TIMEOUT_MS:
            self._no_link_shown = True
            self.display.set_text(3, "Keine Verb./No link")
        return bytes(out)

    def pending_reports(self):
        return len(self._pending)
