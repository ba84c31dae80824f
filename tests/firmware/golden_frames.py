"""The golden frames: one file per message, and a manifest saying what each one means.

The .bin files are fixed; `python -m tests.firmware.golden_frames` rewrites them only when the
protocol changes on purpose (review the diff). Both the host codec and the firmware (under
CPython and under real MicroPython) must produce and parse them byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

GOLDEN_DIR = Path(__file__).parent / "golden"
MANIFEST = GOLDEN_DIR / "manifest.json"

# name, seq, type, body (hex) or the display text that makes the body
CASES: list[dict[str, object]] = [
    {"name": "ack_seq5", "seq": 5, "type": 0x80, "body": ""},
    {"name": "heartbeat_seq0", "seq": 0, "type": 0x07, "body": ""},
    {"name": "version_query", "seq": 9, "type": 0x08, "body": ""},
    {"name": "screen_query", "seq": 10, "type": 0x09, "body": ""},
    {"name": "text_row2_umlauts", "seq": 17, "type": 0x01, "row": 2, "text": "Grün würfelt: 5°ß Ö"},
    {
        "name": "screen_full_german",
        "seq": 200,
        "type": 0x02,
        "lines": ["Gelb ist dran", "Bitte würfeln", "Rot: Zug ungültig", "Größe 20° ÄÜ"],
    },
    {"name": "screen_blank", "seq": 0, "type": 0x02, "lines": ["", "", "", ""]},
    {"name": "leds_from_to", "seq": 33, "type": 0x03, "body": "0cff000000ff00"},
    {"name": "leds_clear", "seq": 34, "type": 0x04, "body": ""},
    {"name": "die_six", "seq": 35, "type": 0x05, "body": "06"},
    {"name": "die_blank", "seq": 36, "type": 0x05, "body": "00"},
    {"name": "beep_2khz_80ms", "seq": 37, "type": 0x06, "body": "07d00050"},
    {"name": "sensor_input1_on", "seq": 0, "type": 0x82, "body": "0101"},
    {"name": "error_crc_unknown_seq", "seq": 0, "type": 0x81, "body": "0200"},
    {"name": "error_length_seq7", "seq": 7, "type": 0x81, "body": "0501"},
    {"name": "version_reply", "seq": 9, "type": 0x83, "body": "01312e302e30"},
    {"name": "seq_255_zero_bytes", "seq": 255, "type": 0x03, "body": "00000000"},
]


def load() -> list[dict[str, object]]:
    """Manifest entries with the golden bytes added under "wire"."""
    entries = json.loads(MANIFEST.read_text(encoding="utf-8"))
    for entry in entries:
        entry["wire"] = (GOLDEN_DIR / f"{entry['name']}.bin").read_bytes()
    return entries


def main() -> None:
    from hardware import frame_codec as codec

    manifest = []
    for case in CASES:
        seq = int(case["seq"])
        if "text" in case:
            frame = codec.text_line(seq, int(case["row"]), str(case["text"]))
        elif "lines" in case:
            frame = codec.screen(seq, list(case["lines"]))
        else:
            frame = codec.Frame(seq, codec.MessageType(case["type"]), bytes.fromhex(case["body"]))
        (GOLDEN_DIR / f"{case['name']}.bin").write_bytes(codec.encode(frame))
        manifest.append({**case, "body": frame.body.hex()})
    MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
