"""Run the `spieltisch` command as a user would, for the tests that check its contracts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def spieltisch(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`spieltisch ARGS` through this interpreter (`python -m controller.cli`, so no installed
    script is needed), from the repository, text captured. A non-zero exit does not raise:
    tests assert the exit code they expect."""
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=REPO,
                          input=stdin, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
