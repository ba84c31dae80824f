"""Host codec and firmware codec (under CPython) against the same golden frames."""

from __future__ import annotations

import binascii
import random

import pytest

from firmware import charset
from firmware import protocol as fw
from hardware import frame_codec as host
from tests.firmware import golden_frames

GOLDEN = golden_frames.load()


def _host_frame(entry: dict[str, object]) -> host.Frame:
    seq = int(entry["seq"])
    if "text" in entry:
        return host.text_line(seq, int(entry["row"]), str(entry["text"]))
    if "lines" in entry:
        return host.screen(seq, list(entry["lines"]))
    return host.Frame(seq, host.MessageType(entry["type"]), bytes.fromhex(str(entry["body"])))


@pytest.mark.parametrize("entry", GOLDEN, ids=lambda e: e["name"])
def test_host_codec_builds_and_parses_golden_frame(entry: dict[str, object]) -> None:
    frame = _host_frame(entry)
    assert host.encode(frame) == entry["wire"]
    assert host.decode(entry["wire"][:-1]) == frame


@pytest.mark.parametrize("entry", GOLDEN, ids=lambda e: e["name"])
def test_firmware_codec_builds_and_parses_golden_frame(entry: dict[str, object]) -> None:
    body = bytes.fromhex(str(entry["body"]))
    assert fw.encode_frame(int(entry["seq"]), int(entry["type"]), body) == entry["wire"]
    assert fw.decode_frame(entry["wire"][:-1]) == (entry["seq"], entry["type"], body)


def test_golden_frames_end_with_the_only_zero_byte() -> None:
    for entry in GOLDEN:
        wire = entry["wire"]
        assert wire.endswith(b"\x00") and wire.count(0) == 1, entry["name"]


def test_crc_matches_published_check_value_and_binascii() -> None:
    assert fw.crc16(b"123456789") == 0x29B1
    assert host.crc16(b"123456789") == 0x29B1
    rng = random.Random(7)
    for _ in range(500):
        data = rng.randbytes(rng.randrange(0, 300))
        assert fw.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_cobs_codecs_agree_on_long_zero_free_runs_and_zero_heavy_data() -> None:
    rng = random.Random(8)
    cases = [bytes(range(1, 255)), bytes(range(1, 256)), b"\x00" * 5, b"", b"\x00" + bytes(254)]
    for _ in range(300):
        cases.append(bytes(rng.choice((0, 1, 255, 7)) for _ in range(rng.randrange(600))))
    for data in cases:
        assert host.cobs_encode(data) == fw.cobs_encode(data)
        assert fw.cobs_decode(host.cobs_encode(data)) == data
        assert 0 not in host.cobs_encode(data)


def test_umlauts_and_degree_use_the_a00_rom_codes() -> None:
    # Codes from the Hitachi HD44780U data sheet, ROM code A00 table.
    assert charset.encode_text("äöüß°", 5) == bytes((0xE1, 0xEF, 0xF5, 0xE2, 0xDF))
    assert charset.encode_text("Ä\\", 3) == bytes((0xE1, 0x3F, 0x20))


def test_host_codec_refuses_to_build_a_frame_the_board_would_reject() -> None:
    with pytest.raises(ValueError, match="DIE"):
        host.encode(host.die(1, 7))
    with pytest.raises(ValueError, match="row 4"):
        host.text_line(1, 4, "x")
