"""HD44780 character display driven in 4-bit mode through a PCF8574 I2C backpack.

Backpack wiring (the common one): P0=RS, P1=RW, P2=E, P3=backlight, P4..P7=D4..D7.
"""

import time

_RS = 0x01
_EN = 0x04
_BACKLIGHT = 0x08
_ROW_ADDR = (0x00, 0x40, 0x14, 0x54)


class HD44780:
    """Writes whole rows of ROM codes; the caller decides which rows changed."""

    def __init__(self, i2c, addr=0x27, cols=20):
        self.i2c = i2c
        self.addr = addr
        self.cols = cols
        self._buf = bytearray(1)
        self._write_raw(0)
        time.sleep_ms(50)
        for _ in range(3):
            self._nibble(0x30, 0)
            time.sleep_ms(5)
        self._nibble(0x20, 0)
        self.command(0x28)  # 4-bit, two "lines" (rows 0/2 and 1/3), 5x8 font
        self.command(0x0C)  # display on, no cursor
        self.command(0x01)  # clear
        time.sleep_ms(2)
        self.command(0x06)  # cursor moves right

    def _write_raw(self, value):
        self._buf[0] = value | _BACKLIGHT
        self.i2c.writeto(self.addr, self._buf)

    def _nibble(self, high_bits, rs):
        self._write_raw(high_bits | rs | _EN)
        self._write_raw(high_bits | rs)

    def _byte(self, value, rs):
        self._nibble(value & 0xF0, rs)
        self._nibble((value << 4) & 0xF0, rs)
        time.sleep_us(40)

    def command(self, value):
        self._byte(value, 0)

    def write_row(self, row, codes):
        """Show `codes` (ROM codes, one per cell) on `row`."""
        self.command(0x80 | _ROW_ADDR[row])
        for code in codes[:self.cols]:
            self._byte(code, _RS)
