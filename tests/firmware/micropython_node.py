"""Run a script in real MicroPython (WebAssembly, under Node.js) with the firmware importable."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).parent / "mpy_runner.mjs"
PACKAGE = REPO / "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs"


def require_micropython() -> str:
    """The node binary, or skip naming what is missing."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) not on PATH: needed to run MicroPython WebAssembly")
    if not PACKAGE.exists():
        pytest.skip(
            "npm package @micropython/micropython-webassembly-pyscript missing: run `npm install`"
        )
    return node


def run_micropython(script: str, tmp_path: Path, timeout: float = 120) -> str:
    """stdout of `script` run by MicroPython; fails the test with MicroPython's traceback."""
    node = require_micropython()
    path = tmp_path / "mpy_script.py"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run(
        [node, str(RUNNER), str(path), str(REPO)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"MicroPython failed:\n{done.stderr}\n{done.stdout}")
    return done.stdout
