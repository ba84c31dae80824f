"""Shared helpers for benchmarks: timing samples and printing median/p99 tables."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; `samples` need not be sorted."""
    ordered = sorted(samples)
    if not ordered:
        raise ValueError("no samples")
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def summary(samples: Sequence[float]) -> tuple[float, float]:
    """(median, p99) of the samples."""
    return statistics.median(samples), percentile(samples, 99)


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a Markdown table, so results paste straight into docs/benchmarks.md."""
    print(f"### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(_cell(c) for c in row) + " |")
    print(flush=True)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)
