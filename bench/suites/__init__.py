"""Benchmark suites. Each module ``bench.suites.<name>`` exposes::

    def run(quick: bool = False) -> dict

returning a JSON-serialisable dict with a top-level ``summary`` object (the keys each issue
names) plus whatever tables/series the report plots. ``python -m bench <name>`` runs one suite,
adds machine/version/commit info and writes ``bench/results/<name>.json``.

Optional keys that ``bench/report.py`` renders (see docs/bench.md), so a suite's numbers get
ratios and plots in ``bench/REPORT.md`` without report changes::

    "comparisons": [  # the "ratios first" table: every peer's value divided by the baseline's
        {"name": "validate one 170-byte document", "metric": "us_per_op", "unit": "µs",
         "baseline": "python-jsonschema", "lower_is_better": True,
         "values": {"rust_validator": 3.1, "jsonschema_rs": 3.4, "python-jsonschema": 181.0}}],
    "plots": [  # PNGs under bench/plots/
        {"kind": "cdf" | "hist", "title": "...", "xlabel": "latency (ms)",
         "series": {"label": [sample, ...]}},
        {"kind": "line", "title": "...", "xlabel": "offered QPS", "ylabel": "achieved QPS",
         "series": {"label": {"x": [...], "y": [...]}}}],
    "tables": [{"title": "...", "columns": ["rate", "p99 ms"], "rows": [[100, 3.2]]}],
    "notes": ["one line of context", ...],
"""
