"""Comparative benchmarks (`python -m bench`). Separate from the tests."""
