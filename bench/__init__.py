"""Benchmarks (`make bench`): each `bench_*.py` module has ``main() -> None`` printing tables."""
