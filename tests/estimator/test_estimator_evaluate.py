"""The evaluation CLI on a small CSV with the Azure columns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from estimator.data.paths import AZURE_CONV
from estimator.evaluate import main

ROOT = Path(__file__).resolve().parents[2]
AZURE = AZURE_CONV


@pytest.fixture()
def small_csv(data_dir, tmp_path):
    lines = (data_dir / AZURE).read_text().splitlines()
    p = tmp_path / "small.csv"
    p.write_text("\n".join(lines[:1501]) + "\n")  # header + the first 1500 requests
    return p


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_cli_writes_the_report(small_csv, tmp_path):
    out = tmp_path / "r" / "eval.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "estimator.evaluate",
            "--trace",
            str(small_csv),
            "--split",
            "time:0.7",
            "--json",
            str(out),
            "--trees",
            "40",
            "--threads",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert proc.returncode == 0, proc.stderr
    assert "decile_median" in proc.stdout
    r = orjson.loads(out.read_bytes())
    assert r["n_train"] == 1050 and r["n_test"] == 450
    methods = r["output_tokens"]
    assert set(methods) == {"estimator", "global_median", "decile_median", "prompt_x1.3"}
    for m in methods.values():
        assert set(m) == {"n", "mae", "median_ae", "p90_ae", "bias"} and m["n"] == 450
        assert 0 <= m["median_ae"] <= m["p90_ae"] and m["mae"] >= 0
    assert methods["estimator"]["mae"] < methods["global_median"]["mae"]
    assert set(r["online"]["second_half"]) == {"static", "online"}
    assert 0 <= r["p90"]["coverage"] <= 1


def test_cli_reports_bad_input_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("when,ContextTokens,GeneratedTokens\n1,2,3\n")
    assert main(["--trace", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "missing column" in err and "Traceback" not in err
    assert main(["--trace", str(tmp_path / "none.csv")]) == 2
    with pytest.raises(SystemExit):
        main([])  # argparse: --trace is required
