"""MicroPython firmware for the display board (Raspberry Pi Pico, RP2040).

`protocol`, `charset`, `display_buffer`, `debounce` and `board_logic` are plain Python that runs
both in MicroPython and in CPython (the host tests and `hardware.board_emulator` import them);
only `main` and the driver module `hd44780` touch `machine`. On the board this folder is copied
as the package `/firmware` and `firmware/main.py` also becomes the board's `/main.py`.
"""
