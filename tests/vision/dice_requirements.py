"""What the dice tests need, said once: the real photos beside the repository and the models."""

from __future__ import annotations

import pytest

from vision.cocked_judge import JUDGE_FILE
from vision.dice_eval import default_data_dir
from vision.dice_model import CLASSIFIER_FILE, DETECTOR_FILE, TABLE_CLASSIFIER_FILE
from vision.pair_judge import PAIR_FILES

DATA = default_data_dir()
MODELS_PRESENT = all(f.is_file() for f in (DETECTOR_FILE, CLASSIFIER_FILE, TABLE_CLASSIFIER_FILE,
                                           JUDGE_FILE, *PAIR_FILES.values()))
MODELS_MISSING = ("dice model files vision/models/*.onnx missing (tools/train_dice_model.py, "
                  "tools/train_cocked_judge.py, tools/train_pair_judge.py)")

needs_data = pytest.mark.skipif(
    not (DATA / "labels.json").is_file(),
    reason=f"real dice photos (shared/data/dice-topdown) not found at {DATA}",
)
needs_model = pytest.mark.skipif(not MODELS_PRESENT, reason=MODELS_MISSING)
