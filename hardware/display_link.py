"""The Pi's serial link to the display board: never blocks the referee, never drops a write.

Callers set the *desired* state (screen lines, strip LEDs, die) and queue one-shot beeps; one
I/O thread sends what the board has not acknowledged yet (stop-and-wait with retransmission),
answers the board's frames, and reopens the port when the cable was pulled. After every
(re)connect the board is assumed blank, so the whole current state is sent again.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import serial

from firmware import charset
from hardware import frame_codec as codec

log = logging.getLogger(__name__)

Colour = tuple[int, int, int]
SensorCallback = Callable[[int, bool], None]


@dataclass
class LinkStats:
    """Counters for logs, the self-test and benchmarks."""

    frames_sent: int = 0
    acks: int = 0
    retransmits: int = 0
    reconnects: int = 0
    bad_frames: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0


class DisplayLink:
    """Keeps the display board showing the current state; see the module docstring."""

    def __init__(
        self,
        port: str,
        *,
        baudrate: int = 115200,
        n_leds: int = 64,
        ack_timeout: float = 0.1,
        max_tries: int = 5,
        reconnect_interval: float = 0.2,
        heartbeat_interval: float = 1.0,
        on_sensor: SensorCallback | None = None,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.n_leds = n_leds
        self.ack_timeout = ack_timeout
        self.max_tries = max_tries
        self.reconnect_interval = reconnect_interval
        self.heartbeat_interval = heartbeat_interval
        self.on_sensor = on_sensor
        self.stats = LinkStats()
        self.board_version: str | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._screen: tuple[str, ...] = ("",) * codec.ROWS
        self._leds: list[Colour] = [(0, 0, 0)] * n_leds
        self._die = 0
        self._beeps: collections.deque[tuple[int, int]] = collections.deque()
        self._version_wanted = True
        self._acked_screen: tuple[str, ...] | None = None
        self._acked_leds: list[Colour] | None = None
        self._acked_die: int | None = None
        self._seq = 0
        self._serial: serial.Serial | None = None
        self._receiver = codec.Receiver()
        self._last_sensor: codec.Frame | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> DisplayLink:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the I/O thread (it keeps trying to open the port until `close`)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="display-link", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._drop_port()

    @property
    def connected(self) -> bool:
        return self._serial is not None

    # What the referee's side calls: cheap, never blocking on the serial port.

    def show_lines(self, lines: Sequence[str]) -> None:
        """Show up to four lines (cut to 20 characters, umlauts mapped to the display's ROM)."""
        if len(lines) > codec.ROWS:
            raise ValueError(f"{len(lines)} lines given, the display has {codec.ROWS}")
        padded = tuple(lines) + ("",) * (codec.ROWS - len(lines))
        with self._lock:
            self._screen = padded
        self._wake()

    def set_leds(self, first: int, colours: Sequence[Colour]) -> None:
        """Set strip LEDs from index `first` on (RGB 0..255), e.g. to mark from/to fields."""
        if first < 0 or first + len(colours) > self.n_leds:
            last = first + len(colours) - 1
            raise ValueError(f"LEDs {first}..{last} outside the strip 0..{self.n_leds - 1}")
        for colour in colours:
            if len(colour) != 3 or not all(0 <= c <= 255 for c in colour):
                raise ValueError(f"colour {colour!r} is not three values 0..255")
        with self._lock:
            self._leds[first : first + len(colours)] = [tuple(c) for c in colours]
        self._wake()

    def clear_leds(self) -> None:
        with self._lock:
            self._leds = [(0, 0, 0)] * self.n_leds
        self._wake()

    def show_die(self, value: int) -> None:
        """Show a die face on the board's die LEDs (0 = blank)."""
        if not 0 <= value <= 6:
            raise ValueError(f"die value {value} outside 0..6")
        with self._lock:
            self._die = value
        self._wake()

    def beep(self, freq_hz: int = 2000, ms: int = 80) -> None:
        codec.encode(codec.beep(0, freq_hz, ms))  # raises ValueError naming a bad value now
        with self._lock:
            self._beeps.append((freq_hz, ms))
        self._wake()

    def request_version(self) -> None:
        """Ask the board for its firmware version (`board_version`; asked after every connect)."""
        with self._lock:
            self._version_wanted = True
        self._wake()

    def screen(self) -> tuple[str, ...]:
        """The four rows the board should show, exactly as it shows them (20 cells each).

        Cut, padded and mapped through the display's ROM, so this equals what the board (or
        its emulator's dump) reads back.
        """
        with self._lock:
            lines = self._screen
        return tuple(charset.decode_codes(charset.encode_text(t, codec.COLS)) for t in lines)

    def wait_synced(self, timeout: float) -> bool:
        """True once the board acknowledged the whole current state (for tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._synced_locked():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    # The I/O thread.

    def _synced_locked(self) -> bool:
        return (
            self._serial is not None
            and self._acked_screen == self._screen
            and self._acked_leds == self._leds
            and self._acked_die == self._die
            and not self._beeps
            and not self._version_wanted
        )

    def _wake(self) -> None:
        port = self._serial
        if port is not None:
            try:
                port.cancel_read()
            except (OSError, serial.SerialException):
                log.debug("wake-up of the reader failed; it wakes on its own timeout")

    def _run(self) -> None:
        last_tx = 0.0
        while not self._stop.is_set():
            try:
                if self._serial is None and not self._open():
                    self._stop.wait(self.reconnect_interval)
                    continue
                job = self._next_job()
                if job is None and time.monotonic() - last_tx >= self.heartbeat_interval:
                    job = (codec.MessageType.HEARTBEAT, b"", None)
                if job is None:
                    self._poll(None)
                    continue
                self._transact(*job)
                last_tx = time.monotonic()
            except (OSError, serial.SerialException) as exc:
                log.warning("display link %s lost: %s", self.port, exc)
                self._drop_port()
            except Exception:  # a bug must not silence the display for the rest of the evening
                log.exception("display link %s: unexpected error, reconnecting", self.port)
                self._drop_port()
                self._stop.wait(self.reconnect_interval)

    def _open(self) -> bool:
        try:
            port = serial.Serial(self.port, self.baudrate, timeout=0.05, write_timeout=1.0)
        except (OSError, serial.SerialException) as exc:
            log.debug("cannot open %s yet: %s", self.port, exc)
            return False
        port.reset_input_buffer()
        with self._lock:
            self._acked_screen = self._acked_leds = self._acked_die = None
            self._version_wanted = True
            self._receiver = codec.Receiver()
            self._serial = port
        self.stats.reconnects += 1
        log.info("display link open on %s", self.port)
        port.write(codec.DELIMITER)  # ends any half frame the board may hold
        return True

    def _drop_port(self) -> None:
        with self._lock:
            port, self._serial = self._serial, None
        if port is not None:
            try:
                port.close()
            except (OSError, serial.SerialException):
                log.debug("closing %s failed; it is gone anyway", self.port)

    def _next_job(self) -> tuple[codec.MessageType, bytes, Callable[[], None] | None] | None:
        """The next message that brings the board closer to the desired state, and its commit."""
        with self._lock:
            screen, acked = self._screen, self._acked_screen
            if screen != acked:
                changed = [r for r in range(codec.ROWS) if acked is None or screen[r] != acked[r]]
                if len(changed) >= 3:
                    body = codec.screen(0, screen).body

                    def commit_screen() -> None:
                        self._acked_screen = screen

                    return codec.MessageType.SCREEN, body, commit_screen
                row = changed[0]
                body = codec.text_line(0, row, screen[row]).body
                base = acked

                def commit_row() -> None:
                    lines = list(self._acked_screen or base or ("",) * codec.ROWS)
                    lines[row] = screen[row]
                    self._acked_screen = tuple(lines)

                return codec.MessageType.TEXT_LINE, body, commit_row
            if self._leds != self._acked_leds:
                return self._led_job_locked()
            if self._die != self._acked_die:
                die = self._die

                def commit_die() -> None:
                    self._acked_die = die

                return codec.MessageType.DIE, bytes((die,)), commit_die
            if self._beeps:
                freq, ms = self._beeps[0]

                def commit_beep() -> None:
                    self._beeps.popleft()

                return codec.MessageType.BEEP, codec.beep(0, freq, ms).body, commit_beep
            if self._version_wanted:

                def commit_version() -> None:
                    self._version_wanted = False

                return codec.MessageType.VERSION_QUERY, b"", commit_version
        return None

    def _led_job_locked(self) -> tuple[codec.MessageType, bytes, Callable[[], None]]:
        leds = list(self._leds)
        if self._acked_leds is None and not any(any(c) for c in leds):

            def commit_clear() -> None:
                self._acked_leds = leds

            return codec.MessageType.LEDS_CLEAR, b"", commit_clear
        acked = self._acked_leds or [(-1, -1, -1)] * self.n_leds
        diff = [i for i in range(self.n_leds) if leds[i] != acked[i]]
        first, last = diff[0], min(diff[-1], diff[0] + 79)  # 80 LEDs fit one frame
        body = codec.leds(0, first, leds[first : last + 1]).body

        def commit_leds() -> None:
            done = list(self._acked_leds or [(-1, -1, -1)] * self.n_leds)
            done[first : last + 1] = leds[first : last + 1]
            self._acked_leds = done

        return codec.MessageType.LEDS, body, commit_leds

    def _transact(
        self, mtype: codec.MessageType, body: bytes, commit: Callable[[], None] | None
    ) -> None:
        """Send one message until the board acknowledges it; after max_tries, reconnect."""
        seq = self._seq
        self._seq = (self._seq + 1) & 0xFF
        wire = codec.encode(codec.Frame(seq, mtype, body))
        for attempt in range(self.max_tries):
            if attempt:
                self.stats.retransmits += 1
            self._write(wire)
            self.stats.frames_sent += 1
            deadline = time.monotonic() + self.ack_timeout
            while True:
                answer = self._poll(seq)
                if answer is not None and answer.type is not codec.MessageType.ERROR:
                    self.stats.acks += 1
                    with self._lock:
                        if commit is not None:
                            commit()
                        self._changed.notify_all()
                    return
                if answer is not None or time.monotonic() >= deadline:
                    break
        raise serial.SerialException(f"seq {seq} unacknowledged after {self.max_tries} tries")

    def _write(self, data: bytes) -> None:
        port = self._serial
        if port is None:
            raise serial.SerialException("port closed")
        port.write(data)
        self.stats.bytes_sent += len(data)

    def _poll(self, seq: int | None) -> codec.Frame | None:
        """Read what arrived (waiting up to the port timeout); return the answer to `seq`."""
        port = self._serial
        if port is None:
            raise serial.SerialException("port closed")
        data = port.read(1)
        if data:
            data += port.read(port.in_waiting)
        if not data:
            return None
        self.stats.bytes_received += len(data)
        frames, replies = self._receiver.feed(data)
        self.stats.bad_frames = self._receiver.bad
        if replies:
            self._write(replies)
        answer = None
        for frame in frames:
            if frame.type is codec.MessageType.SENSOR:
                self._write(codec.encode(codec.Frame(frame.seq, codec.MessageType.ACK)))
                if frame != self._last_sensor and self.on_sensor is not None:
                    self.on_sensor(frame.body[0], bool(frame.body[1]))
                self._last_sensor = frame
            elif frame.type is codec.MessageType.VERSION:
                self.board_version = frame.body[1:].decode("ascii", "replace")
            if seq is None or frame.type is codec.MessageType.SENSOR:
                continue
            unknown_seq_error = frame.type is codec.MessageType.ERROR and not frame.body[1]
            if frame.seq == seq or unknown_seq_error:
                answer = frame
        return answer
