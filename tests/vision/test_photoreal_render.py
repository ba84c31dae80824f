"""tools/photoreal end to end: Blender renders one tiny frame, the generator finishes and labels
it, and Blender's own projection of the board's corners matches the camera model the labels'
pixels come from."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "photoreal"))

import make_set
import plan

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("blender") is None,
                                reason="blender is not installed (Debian package blender; "
                                       "`make test` installs it)")


def test_blender_renders_a_tiny_labelled_frame(tmp_path: Path) -> None:
    out, work = tmp_path / "set", tmp_path / "work"
    args = [str(out), "--seed", "5", "--dev-setups", "1", "--heldout-setups", "0",
            "--only", "md01", "--kinds", "start", "--size", "160x90", "--samples", "2",
            "--work", str(work)]
    assert make_set.main(args) == 0
    labels = json.loads((out / "labels.json").read_text("utf-8"))
    assert labels["command"].endswith(" ".join(args[1:]))
    (setup,) = labels["setups"]
    (frame,) = setup["frames"]
    assert setup["id"] == "md01" and setup["split"] == "dev" and frame["kind"] == "start"
    assert frame["board"] == {"pieces": [[-1, -1, -1, -1]] * setup["players"]}
    picture = cv2.imread(str(out / frame["image"]), cv2.IMREAD_COLOR)
    assert picture.shape == (90, 160, 3)
    assert picture.std() > 10  # a scene, not a blank frame
    (planned,) = [s for s in plan.plan_set(ROOT, 5, 1, 0, (160, 90)) if s.id == "md01"]
    spec = json.loads((work / "seed5" / "md01" / "scene.json").read_text("utf-8"))
    probe = np.array(json.loads((work / "seed5" / "md01" / "md01_start.probe.json")
                                .read_text("utf-8")))
    size = np.array(spec["render"]["size"], float)
    scale = size[0] / planned.camera.render_size()[0]
    corners = planned.camera.project(plan.corners_world(planned.board_geometry(ROOT)))
    expected = (corners - (np.array([160, 90]) - 1) / 2) * scale + (size - 1) / 2
    assert probe == pytest.approx(expected, abs=0.01)
