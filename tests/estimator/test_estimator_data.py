"""Loaders: the Azure trace (real file and small CSVs) and the synthetic agent generator."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimator.data.azure import (
    TRACE_FEATURES,
    Trace,
    TraceError,
    TraceFeatureConfig,
    load_trace,
    split_index,
    trace_features,
)
from estimator.data.paths import AZURE_CONV
from estimator.data.synthetic import AgentTraceConfig, generate
from estimator.features import TASK_TYPES

AZURE = AZURE_CONV


def test_real_azure_trace_loads_with_the_documented_facts(data_dir):
    tr = load_trace(data_dir / AZURE)
    assert len(tr) == 19366
    assert np.all(np.diff(tr.t) >= 0) and tr.t[0] == 0 and 3000 < tr.t[-1] < 4000  # ~one hour
    assert round(tr.context.mean()) == 1155 and np.median(tr.context) == 1020
    assert round(tr.generated.mean()) == 211 and np.median(tr.generated) == 129
    assert -0.15 < np.corrcoef(tr.context, tr.generated)[0, 1] < -0.05


def _write(path, rows, header="TIMESTAMP,ContextTokens,GeneratedTokens"):
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def test_small_csv_is_sorted_by_time_and_accepts_epoch_seconds(tmp_path):
    p = _write(tmp_path / "t.csv", ["2023-11-16 18:00:02.5,10,3", "2023-11-16 18:00:00.0000001,20,4"])
    tr = load_trace(p)
    assert tr.context.tolist() == [20, 10] and tr.t.tolist() == pytest.approx([0.0, 2.5])
    # Column order does not matter and other columns are ignored.
    p = _write(
        tmp_path / "e.csv", ["1,100.0,5,x", "2,90,6,y"], header="GeneratedTokens,TIMESTAMP,ContextTokens,Note"
    )
    tr = load_trace(p)
    assert tr.context.tolist() == [6, 5] and tr.generated.tolist() == [2, 1]


@pytest.mark.parametrize(
    "header,rows,match",
    [
        ("TIMESTAMP,ContextTokens", ["1,2"], "missing column"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens", ["1,abc,2"], "line 2"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens", ["yesterday,1,2"], "TIMESTAMP"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens", ["1,-1,2"], "negative"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens", [], "no rows"),
    ],
)
def test_bad_csv_raises_trace_error(tmp_path, header, rows, match):
    with pytest.raises(TraceError, match=match):
        load_trace(_write(tmp_path / "bad.csv", rows, header))


def test_missing_file_raises_trace_error(tmp_path):
    with pytest.raises(TraceError, match="cannot open"):
        load_trace(tmp_path / "nope.csv")


def test_trace_features_are_causal():
    rng = np.random.default_rng(0)
    n = 400
    t = np.sort(rng.uniform(0, 600, n))
    ctx = rng.choice([100, 200, 300], n)
    gen = rng.integers(1, 500, n)
    cfg = TraceFeatureConfig(lag_s=30.0)
    X = trace_features(Trace(t, ctx, gen), cfg)
    assert X.shape == (n, len(TRACE_FEATURES))
    assert np.all(X[:, 0] == ctx)
    # Changing outputs of the last 100 requests changes no feature of any earlier request,
    # nor of requests that arrive less than lag_s after them.
    gen2 = gen.copy()
    gen2[300:] += 1000
    X2 = trace_features(Trace(t, ctx, gen2), cfg)
    unaffected = t < t[300] + cfg.lag_s
    np.testing.assert_array_equal(X[unaffected], X2[unaffected])
    assert not np.array_equal(X[~unaffected], X2[~unaffected])
    # The first request knows nothing about outputs.
    assert X[0, 1] == 0 and math.isnan(X[0, 2]) and X[0, 6] == 0


def test_same_context_history_is_the_median_of_completed_requests():
    t = np.array([0.0, 1.0, 100.0, 101.0])
    ctx = np.array([50, 50, 50, 60])
    gen = np.array([10, 30, 7, 9])
    X = trace_features(Trace(t, ctx, gen), TraceFeatureConfig(lag_s=60.0))
    names = list(TRACE_FEATURES)
    assert X[1, names.index("same_ctx_n")] == 0  # request 0 has not completed yet
    assert X[2, names.index("same_ctx_n")] == 2
    assert X[2, names.index("same_ctx_median")] == 20
    assert X[2, names.index("same_ctx_last")] == 30
    assert X[3, names.index("rate_60s")] == 1


def test_split_index():
    assert split_index(10, "time:0.7") == 7
    for bad in ("random:0.7", "time:1.5", "time:x", "time:0.01"):
        with pytest.raises(TraceError):
            split_index(10, bad)


def test_synthetic_generator_is_deterministic_and_complete():
    a, b = generate(50, seed=5), generate(50, seed=5)
    assert a == b and a != generate(50, seed=6)
    for r in a:
        req = r["request"]
        assert req["task_type"] in TASK_TYPES and isinstance(req["messages"], list)
        assert r["output_tokens"] >= 1 and r["seconds"] > 0
        assert r["total_tokens"] == r["prompt_tokens"] + r["output_tokens"]
        if req["max_tokens"]:
            assert r["output_tokens"] <= req["max_tokens"]
    assert {r["request"]["task_type"] for r in generate(200, seed=1)} == set(TASK_TYPES)


def test_generator_drift_knob_changes_outputs():
    base = generate(300, seed=7)
    drift = generate(300, seed=7, cfg=AgentTraceConfig(verbosity_shift={"o3": 2.0}))
    o3 = [i for i, r in enumerate(base) if r["request"]["model"] == "o3" and not r["request"]["max_tokens"]]
    assert o3 and all(drift[i]["output_tokens"] > base[i]["output_tokens"] for i in o3)
