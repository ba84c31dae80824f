"""The 20x4 screen as ROM codes, with the rows that changed since the driver last drew them."""

from firmware import charset

ROWS = 4
COLS = 20
BLANK = 0x20


class DisplayBuffer:
    """What the display should show; the driver draws only dirty rows (I2C is slow)."""

    def __init__(self, rows=ROWS, cols=COLS):
        self.rows = rows
        self.cols = cols
        self._codes = bytearray(bytes((BLANK,)) * (rows * cols))
        self._dirty = [True] * rows

    def set_row(self, row, codes):
        """Replace one row (exactly `cols` codes); marks it dirty only if it changed."""
        if not 0 <= row < self.rows or len(codes) != self.cols:
            raise ValueError("bad row")
        start = row * self.cols
        if self._codes[start:start + self.cols] != codes:
            self._codes[start:start + self.cols] = codes
            self._dirty[row] = True

    def set_all(self, codes):
        """Replace the whole screen (rows * cols codes, row by row)."""
        if len(codes) != self.rows * self.cols:
            raise ValueError("bad screen size")
        for row in range(self.rows):
            self.set_row(row, codes[row * self.cols:(row + 1) * self.cols])

    def set_text(self, row, text):
        """Write Unicode text to a row (used by the board's own messages)."""
        self.set_row(row, charset.encode_text(text, self.cols))

    def row_codes(self, row):
        start = row * self.cols
        return bytes(self._codes[start:start + self.cols])

    def codes(self):
        return bytes(self._codes)

    def take_dirty(self):
        """Rows changed since the last call (and forget them)."""
        rows = [r for r in range(self.rows) if self._dirty[r]]
        self._dirty = [False] * self.rows
        return rows

    def text_lines(self):
        """The screen as four Unicode strings, as a person would read it."""
        return [charset.decode_codes(self.row_codes(r)) for r in range(self.rows)]
