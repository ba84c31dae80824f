"""Benchmarks (`make bench`): each `bench_*.py` module exposes ``main() -> None`` printing tables."""
