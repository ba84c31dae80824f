"""A lamp's highlight that moved between the empty board's picture and the position's (the
development photoreal set-up md12: a varnished wooden Mensch board under a pendant lamp whose
light drifts) is light, not a piece: calibration through the user's route succeeds and the
play frames read right. A picture with pieces on it given as the empty board is still refused,
with the fields named (corners given: the outline search is another test's)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli import spieltisch
from tests.vision.photoreal_route import IMAGES, ROOT, calibrated, read_plays


def test_a_highlight_that_moved_is_not_a_piece(tmp_path: Path) -> None:
    calibration, setup = calibrated("md12", "maedn", tmp_path)
    boards, truth = read_plays(calibration, setup)
    assert all(b is None or b == t for b, t in zip(boards, truth, strict=True)), boards
    assert sum(b is not None for b in boards) >= 6, boards


def test_pieces_on_the_empty_board_are_still_refused(tmp_path: Path) -> None:
    labels = json.loads((ROOT / "tests" / "data" / "photoreal" / "labels.json").read_text())
    corners = next(s for s in labels["setups"] if s["id"] == "md12")["corners_px"]
    refused = spieltisch("calibrate", str(IMAGES / "md12_start.jpg"), "--game", "maedn",
                         "--players", "2", "--geometry", str(ROOT / "vision/boards/hofer.toml"),
                         "--corners", ",".join(f"{v:.1f}" for xy in corners for v in xy),
                         "--empty", str(IMAGES / "md12_play3.jpg"),
                         "--out", str(tmp_path / "c.json"))
    assert refused.returncode == 1
    assert "differ on" in refused.stderr and not (tmp_path / "c.json").exists()
