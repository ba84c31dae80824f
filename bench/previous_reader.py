"""Time the board reader as it was before the empty-board reader, on the same frames.

The issue asks for the change-against-empty reader side by side with the reader it replaced.
That reader's code is taken from git (`PREVIOUS`, the last commit before the change) into a
temporary folder and run in a child process on the frames this run rendered, so both are
timed on one machine at one time.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

#: The last commit with the colour-class reader (vision/pieces.py).
PREVIOUS = "01ddb5b"
ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import sys, time, statistics
import numpy as np
import cv2
sys.path.insert(0, sys.argv[1])
from vision.calibration import calibrate
from vision.frame_reader import FrameReader
cv2.setNumThreads(1)
data = np.load(sys.argv[2])
calib = calibrate(data["start"], sys.argv[3])
reader = FrameReader(calib, dice_reader=None)
samples = []
for _ in range(int(sys.argv[4])):
    for image in data["frames"]:
        t = time.perf_counter()
        reader.read(image)
        samples.append((time.perf_counter() - t) * 1000.0)
samples.sort()
print(statistics.median(samples), samples[round(0.99 * (len(samples) - 1))])
"""


def time_previous(game: str, start: np.ndarray, frames: list[np.ndarray], rounds: int
                  ) -> tuple[float, float] | None:
    """(median, p99) ms of the previous reader on `frames`, calibrated on `start`; None when
    git or the commit is not at hand (a shallow clone)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", PREVIOUS, "vision",
                                  "controller"], capture_output=True, check=False)
        if archive.returncode != 0:
            return None
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        data = Path(tmp) / "frames.npz"
        np.savez(data, start=start, frames=np.array(frames))
        done = subprocess.run([sys.executable, "-c", _CHILD, tmp, str(data), game, str(rounds)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return None
        median, p99 = (float(v) for v in done.stdout.split())
        return median, p99
