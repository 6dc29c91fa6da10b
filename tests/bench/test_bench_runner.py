"""The runner and the report: results with machine/versions/commit, failed and missing suites
recorded (exit 1), ratios and plots rendered — on throwaway suites from $BENCH_SUITES_PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import RunConfig, main, run_suite
from bench.worker import SUITES_PATH_ENV

ROOT = Path(__file__).resolve().parents[2]

OK_SUITE = """
def run(quick=False):
    return {"summary": {"ops": 3, "quick": quick, "speedup_x": 4.0},
            "comparisons": [{"name": "parse", "unit": "us", "baseline": "slow", "lower_is_better": True,
                             "values": {"slow": 40.0, "fast": 10.0}}],
            "plots": [{"kind": "cdf", "title": "latency", "xlabel": "ms", "series": {"a": [1, 2, 3, 5]}},
                      {"kind": "hist", "title": "errors", "series": {"e": [-1, 0, 0.5, 2]}},
                      {"kind": "line", "title": "throughput", "series": {"t": {"x": [1, 2], "y": [1, 1.9]}}}]}
"""
SUITES = {
    "fake_ok": OK_SUITE,
    "fake_raises": "def run(quick=False):\n    raise RuntimeError('suite exploded on purpose')\n",
    "fake_bad_result": "def run(quick=False):\n    return [1, 2, 3]\n",
    "fake_slow": "import time\ndef run(quick=False):\n    time.sleep(60)\n    return {'summary': {}}\n",
}


@pytest.fixture()
def suites_dir(tmp_path: Path) -> Path:
    d = tmp_path / "suites"
    d.mkdir()
    for name, src in SUITES.items():
        (d / f"{name}.py").write_text(src)
    return d


def _bench(tmp: Path, suites_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, SUITES_PATH_ENV: str(suites_dir)}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            *args,
            "--quick",
            "--results-dir",
            str(tmp / "res"),
            "--report",
            str(tmp / "out" / "REPORT.md"),
            "--plots-dir",
            str(tmp / "out" / "plots"),
            "--timeout",
            "8",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_failures_are_recorded_and_the_run_exits_nonzero(tmp_path: Path, suites_dir: Path):
    r = _bench(tmp_path, suites_dir, "fake_ok", "fake_raises", "fake_bad_result", "fake_slow")
    assert r.returncode == 1, r.stderr
    res = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "res").glob("*.json")}
    assert {k: v["status"] for k, v in res.items()} == {
        "fake_ok": "ok",
        "fake_raises": "failed",
        "fake_bad_result": "failed",
        "fake_slow": "timeout",
    }
    ok = res["fake_ok"]
    assert ok["summary"]["quick"] is True and ok["summary"]["ops"] == 3
    meta = ok["meta"]
    assert meta["machine"]["cores"] == os.cpu_count() and meta["machine"]["cpu_model"]
    assert meta["versions"]["python"] and meta["versions"]["torch"]
    assert len(meta["git"]["commit"]) == 40 and meta["started_at"] <= meta["finished_at"]
    assert "suite exploded on purpose" in "\n".join(res["fake_raises"]["error"]["stderr_tail"])
    assert "expected dict" in "\n".join(res["fake_bad_result"]["error"]["stderr_tail"])
    report = (tmp_path / "out" / "REPORT.md").read_text()
    # ratios first: the comparison table comes before the per-suite sections
    assert report.index("## Ratios first") < report.index("## fake_ok")
    assert (
        "**4.00×** better" in report
        and "| fake_raises | failed |" in report
        and "| fake_slow | timeout |" in report
    )
    for missing in ("validator", "plan", "estimator", "router", "load"):
        assert f"## {missing}" in report  # expected suites always listed, missing or not
    pngs = sorted(p.name for p in (tmp_path / "out" / "plots").glob("*.png"))
    assert len(pngs) == 3 and all((tmp_path / "out" / "plots" / p).stat().st_size > 5000 for p in pngs)
    assert all(f"plots/{p}" in report for p in pngs)


def test_missing_suite_is_reported_not_crashed(tmp_path: Path):
    cfg = RunConfig(results_dir=tmp_path / "res", quick=True)
    out = run_suite("no_such_suite_xyz", cfg, echo=False)
    assert out.status == "missing" and not (tmp_path / "res").exists()


def test_bad_arguments_are_clear_errors(capsys):
    assert main(["nonexistent_suite"]) == 2
    assert "unknown suite" in capsys.readouterr().err
    assert main(["--timeout", "-1"]) == 2


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_report_only_and_tao_bench_entry(tmp_path: Path, suites_dir: Path):
    assert _bench(tmp_path, suites_dir, "fake_ok").returncode == 0
    (tmp_path / "out" / "REPORT.md").unlink()
    from tao.cli import main as tao_main

    code = tao_main(
        [
            "bench",
            "--report-only",
            "--results-dir",
            str(tmp_path / "res"),
            "--report",
            str(tmp_path / "out" / "REPORT.md"),
            "--plots-dir",
            str(tmp_path / "out" / "plots"),
        ]
    )
    assert code == 0 and "fake_ok" in (tmp_path / "out" / "REPORT.md").read_text()


CHEAP_SUITES = ("validator",)  # real suites whose --quick run is short enough for `make test`


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_quick_smoke_of_the_cheap_real_suites(tmp_path: Path):
    """`python -m bench --quick` on the cheap suites: results, report and plots end to end."""
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            *CHEAP_SUITES,
            "--quick",
            "--results-dir",
            str(tmp_path / "res"),
            "--report",
            str(tmp_path / "REPORT.md"),
            "--plots-dir",
            str(tmp_path / "plots"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=230,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    report = (tmp_path / "REPORT.md").read_text()
    for name in CHEAP_SUITES:
        data = json.loads((tmp_path / "res" / f"{name}.json").read_text())
        assert data["status"] == "ok" and data["meta"]["quick"] is True and data["summary"]
        assert f"| {name} | ok | quick |" in report
    ratios = report[report.index("## Ratios first") : report.index("## validator")]
    assert "jsonschema_rs" in ratios  # the validator's peers, derived from its results, come first
    assert list((tmp_path / "plots").glob("validator_*.png"))
