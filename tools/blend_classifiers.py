"""Blend two exported dice classifiers: every weight (1 - w) * A + w * B.

Why: a fine-tune (B) and the classifier it started from (A) lie in one basin, and a point
between them keeps much of what each does well (WiSE-FT). The table classifier is such a blend
(`vision/models/README.md`, step "table 3"). Both files must be the same network; the output
is A's graph with the blended weights. Needs the `train` extra (`onnx`).

    .venv/bin/python tools/blend_classifiers.py A.onnx B.onnx --weight 0.7 --out OUT.onnx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def blend(a: Path, b: Path, weight: float, out: Path) -> None:
    """Write A's graph with every initializer (1 - weight) * A + weight * B to `out`."""
    import onnx
    from onnx import numpy_helper

    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must lie in [0, 1], got {weight}")
    model_a, model_b = onnx.load(str(a)), onnx.load(str(b))
    if [n.op_type for n in model_a.graph.node] != [n.op_type for n in model_b.graph.node]:
        raise ValueError(f"{a} and {b} are not the same network")
    weights_b = {i.name: numpy_helper.to_array(i) for i in model_b.graph.initializer}
    for init in model_a.graph.initializer:
        wa = numpy_helper.to_array(init)
        wb = weights_b.get(init.name)
        if wb is None or wb.shape != wa.shape:
            raise ValueError(f"{b} has no weight {init.name} of shape {wa.shape}")
        mixed = (1.0 - weight) * wa.astype(np.float64) + weight * wb.astype(np.float64)
        init.CopyFrom(numpy_helper.from_array(mixed.astype(wa.dtype), init.name))
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model_a, str(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="the classifier the fine-tune started from")
    parser.add_argument("b", type=Path, help="the fine-tuned classifier")
    parser.add_argument("--weight", type=float, required=True, help="B's share, 0..1")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        blend(args.a, args.b, args.weight, args.out)
    except (ValueError, OSError) as err:
        print(f"blend_classifiers: {err}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
