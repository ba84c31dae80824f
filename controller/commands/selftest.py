"""`spieltisch selftest`: light every LED, beep, draw a test pattern, ask for every button.

On a Raspberry Pi it tests the real table; elsewhere (or with `--simulate`) it runs against
gpiozero mock pins and the emulated display board. Prints a pass/fail table; exit status 0 when
everything passed, 1 when something failed, 2 when the pin map cannot be used.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from typing import Any

from controller.words.catalogue import LANGUAGES
from hardware import selftest
from hardware.pinmap import PinMapError, load_pinmap


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "selftest", help="test LEDs, buzzer, display, buttons and camera of the table"
    )
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="mock pins and the emulated display board (automatic when no Pi is detected)",
    )
    parser.add_argument("--pins", default="", help="pin map TOML (default: the shipped map)")
    parser.add_argument("--port", default="/dev/serial0", help="display board serial port")
    parser.add_argument(
        "--camera", choices=("opencv", "picamera2", "none"), default="opencv",
        help="camera source to probe (opencv)",
    )
    parser.add_argument("--device", type=int, default=0, help="OpenCV camera index (0)")
    parser.add_argument(
        "--button-timeout", type=float, default=15.0, help="seconds to wait for each press (15)"
    )
    parser.add_argument("--lang", choices=LANGUAGES, default="de", help="language (de)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        pinmap = load_pinmap(args.pins or None)
    except PinMapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    simulate = args.simulate or not selftest.on_raspberry_pi()
    with contextlib.ExitStack() as stack:
        if simulate:
            if not args.simulate:
                print("No Raspberry Pi detected: running against the simulator.", file=sys.stderr)
            options = stack.enter_context(selftest.simulated_table())
            timeout, step = min(args.button_timeout, 5.0), 0.05
        else:
            camera = None if args.camera == "none" else {"source": args.camera}
            if camera is not None and args.camera == "opencv":
                camera["device"] = args.device
            options = {"display_port": args.port, "camera": camera}
            timeout, step = args.button_timeout, 0.4
        report = selftest.run_selftest(
            pinmap,
            lang=args.lang,
            step_s=step,
            button_timeout_s=timeout,
            ask=lambda text: print(text, flush=True) if not args.json else None,
            **options,
        )
    if args.json:
        rows = [{"check": r.name, "ok": r.ok, "detail": r.detail} for r in report.results]
        print(json.dumps({"ok": report.ok, "simulated": simulate, "results": rows},
                         ensure_ascii=False))
    else:
        print(report.table())
        print("\nAlles in Ordnung / all passed." if report.ok else "\nFEHLER / FAILED.")
    return 0 if report.ok else 1
