"""Report details: derived comparisons/plots for suites that declare none, formatting, tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.report import ReportConfig, build_report, fmt, ratio_phrase
from bench.report_adapters import derive


def _m(x: float) -> dict:
    return {"mae": x, "median_ae": x / 2, "p90_ae": 2 * x, "bias": 0.0}


ESTIMATOR = {
    "status": "ok",
    "summary": {"conv_mae": 60.0},
    "latency": {"single_row_us": {"rust_tree_ensemble": 5.0, "xgboost_inplace_predict": 500.0}},
    "accuracy": {
        "conv": {
            "output_tokens": {"estimator": _m(60), "global_median": _m(150)},
            "online": {"second_half": {"static": _m(62), "online": _m(58)}},
        },
        "agent": {
            "output_tokens": {"estimator": _m(20), "global_median": _m(80)},
            "error_samples": {"output": [-3.0, 1.0, 2.0, 5.0, -8.0]},
        },
    },
}
VALIDATOR = {
    "status": "ok",
    "summary": {},
    "methods": {"a": "orjson + jsonschema_rs", "b": "fastjsonschema"},
    "results": {"small": {"bytes": 192, "a": {"us_per_doc": 4.0}, "b": {"us_per_doc": 9.0}}},
}


def test_adapters_derive_comparisons_and_plots():
    est = derive("estimator", ESTIMATOR)
    names = [c["name"] for c in est["comparisons"]]
    assert any("conversation" in n for n in names) and "predict one row" in names
    assert {p["kind"] for p in est["plots"]} == {"bar", "hist"}
    val = derive("validator", VALIDATOR)
    assert val["comparisons"][0]["values"] == {"orjson + jsonschema_rs": 4.0, "fastjsonschema": 9.0}
    cfg = lambda pps, p99, fwd: {"plans_per_s": pps, "p99_ms": p99, "forward_passes_per_plan": fwd}  # noqa: E731
    plan = derive(
        "plan",
        {
            "configs": {
                "cpu_jf_b1": cfg(10, 120, 40),
                "cpu_nojf_b1": cfg(5, 240, 120),
                "hf_generate_unconstrained_b1": cfg(1, 1200, 150),
            }
        },
    )
    by_name = {c["name"]: c for c in plan["comparisons"]}
    assert by_name["plan model plans_per_s"]["baseline"] == "hf_generate_unconstrained_b1"
    assert by_name["forward passes per plan (jump-forward)"]["values"]["cpu_jf_b1"] == 40
    assert len(plan["tables"][0]["rows"]) == 3 and len(plan["plots"]) == 2
    router = derive(
        "router",
        {
            "replay": {
                "policies": {
                    "request_count": {"small": {"p50": 9.0, "p99": 90.0}},
                    "token_second": {"small": {"p50": 1.0, "p99": 20.0}},
                }
            }
        },
    )
    assert router["plots"][0]["series"]["small P99"] == {"request_count": 90.0, "token_second": 20.0}
    # a suite's own keys win; unknown suites and unrecognised shapes give nothing
    assert "comparisons" not in derive("validator", {**VALIDATOR, "comparisons": [{"name": "own"}]})
    assert derive("plan", {"summary": {}}) == {} and derive("validator", {"results": 3}) == {}


@pytest.mark.slow
def test_report_renders_derived_tables_and_plots(tmp_path: Path):
    res = tmp_path / "res"
    res.mkdir()
    (res / "estimator.json").write_text(json.dumps({**ESTIMATOR, "suite": "estimator"}))
    (res / "validator.json").write_text(
        json.dumps(
            {
                **VALIDATOR,
                "suite": "validator",
                "tables": [{"title": "t", "columns": ["a", "b"], "rows": [[1, 2.5]]}],
            }
        )
    )
    (res / "broken.json").write_text("{not json")
    out = build_report(
        ReportConfig(
            results_dir=res,
            report_path=tmp_path / "R.md",
            plots_dir=tmp_path / "plots",
            expected=("validator", "plan", "estimator"),
        )
    )
    text = out.read_text()
    assert "| plan | missing |" in text and "| broken | failed |" in text
    assert "**100.00×** better" in text  # 5 µs vs 500 µs
    assert "| a | b |" in text and "| 1 | 2.5 |" in text
    assert len(list((tmp_path / "plots").glob("*.png"))) == 3


def test_formatting():
    assert fmt(None) == "–" and fmt(1234567) == "1,234,567" and fmt(0.5) == "0.5" and fmt(True) == "yes"
    assert fmt("a|b") == "a\\|b"
    assert ratio_phrase(2.0, 10.0, True) == "**5.00×** better"
    assert ratio_phrase(20.0, 10.0, True) == "2.00× worse"
    assert ratio_phrase(20.0, 10.0, False) == "**2.00×** better"
    assert ratio_phrase(None, 10.0, True) == "–"
