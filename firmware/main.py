"""Entry point on the Pico: wires UART, LCD, LED strip, die LEDs, buzzer and inputs to `Board`.

Only this module and `hd44780` touch `machine`. The watchdog restarts the board if the loop hangs.
Pins (see docs/firmware.md): UART0 TX GP0 / RX GP1, I2C0 SDA GP4 / SCL GP5, WS2812 data GP6,
buzzer GP7, die pips GP8..GP14, inputs GP16..GP19 (to GND, internal pull-ups).
"""

import time

import machine
import neopixel

from firmware.board_logic import Board, die_pips
from firmware.debounce import Debouncer
from firmware.hd44780 import HD44780

N_LEDS = 64
INPUT_PINS = (16, 17, 18, 19)
DIE_PINS = (8, 9, 10, 11, 12, 13, 14)


def run():
    wdt = machine.WDT(timeout=8000)
    uart = machine.UART(0, baudrate=115200, tx=machine.Pin(0), rx=machine.Pin(1), rxbuf=1024)
    i2c = machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400000)
    lcd = HD44780(i2c)
    strip = neopixel.NeoPixel(machine.Pin(6), N_LEDS)
    buzzer = machine.PWM(machine.Pin(7))
    buzzer.duty_u16(0)
    pips = [machine.Pin(n, machine.Pin.OUT) for n in DIE_PINS]
    inputs = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in INPUT_PINS]
    debouncers = [Debouncer(20, 0) for _ in inputs]
    board = Board(n_leds=N_LEDS)
    beep_until = None
    while True:
        wdt.feed()
        now = time.ticks_ms()
        waiting = uart.any()
        if waiting:
            reply = board.feed(uart.read(waiting), now)
            if reply:
                uart.write(reply)
        for index, pin in enumerate(inputs):
            state = debouncers[index].update(not pin.value(), now)
            if state is not None:
                uart.write(board.report_input(index, state, now))
        resend = board.tick(now)
        if resend:
            uart.write(resend)
        for row in board.display.take_dirty():
            lcd.write_row(row, board.display.row_codes(row))
        if board.leds_dirty:
            board.leds_dirty = False
            for i in range(N_LEDS):
                strip[i] = (board.leds[3 * i], board.leds[3 * i + 1], board.leds[3 * i + 2])
            strip.write()
        if board.die_dirty:
            board.die_dirty = False
            lit = die_pips(board.die)
            for i, pin in enumerate(pips):
                pin.value(lit[i])
        if beep_until is not None and time.ticks_diff(now, beep_until) >= 0:
            buzzer.duty_u16(0)
            beep_until = None
        if beep_until is None and board.beeps:
            freq, ms = board.beeps.pop(0)
            buzzer.freq(freq)
            buzzer.duty_u16(32768)
            beep_until = time.ticks_add(now, ms)
        time.sleep_ms(1)


if __name__ == "__main__":
    run()
