"""Benchmark suites. Each module ``bench.suites.<name>`` exposes::

    def run(quick: bool = False) -> dict

returning a JSON-serialisable dict with a top-level ``summary`` object (the keys each issue
names) plus whatever tables/series the report plots. ``python -m bench <name>`` runs one suite,
adds machine/version/commit info and writes ``bench/results/<name>.json``.
"""
