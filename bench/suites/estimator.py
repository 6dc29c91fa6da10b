"""Estimator benchmark (``python -m bench estimator`` or ``python -m bench.suites.estimator``).

1. **Predict latency** of one 200-tree, depth-6 booster (the agent output-token model), all
   measured in this run on the same rows: the Rust ``TreeEnsemble.predict`` on one row vs
   ``xgboost.Booster.inplace_predict`` on one row vs both on a batch of 1024 rows (per row);
   plus the whole ``TokenEstimator.predict`` (every target + correction) and ``features()``.
2. **Accuracy** from :mod:`estimator.evaluate` on the Azure conversation trace (70/30 time
   split, with the baselines and the online replay) and on synthetic agent traces.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import RESULTS_DIR, git_info, machine_info, time_per_call, utc_now, versions, write_json
from estimator.data.paths import AZURE_CONV, data_path
from estimator.data.synthetic import MODELS, generate
from estimator.evaluate import evaluate_agent, evaluate_trace
from estimator.features import FeatureSpec
from estimator.model import TokenEstimator
from estimator.train import TrainConfig

DEFAULT_TRACE = data_path(AZURE_CONV)  # $TAO_TEST_DATA, ../shared/data or .testdata/


def _latency(quick: bool) -> dict[str, Any]:
    """Per-row predict cost of the same 200-tree model through each path."""
    n_train = 4000 if quick else 12000
    train, test = generate(n_train, seed=31), generate(1024, seed=32)
    cfg = TrainConfig(n_trees=200, max_depth=6, nthread=2)
    est = TokenEstimator(FeatureSpec(models=MODELS), cfg).fit(train)
    booster = est.booster("output_tokens")
    booster.set_param({"nthread": 1})  # XGBoost's fastest setting for one row (no thread wake-ups)
    assert est._models is not None  # set by fit()
    fast = est._models.fast["output_tokens"]  # the Rust evaluator the estimator itself uses
    X = np.array([est.spec.row(est.features(r["request"])) for r in test], dtype=np.float32)
    rows = X.tolist()
    one, one_np = rows[0], X[:1]
    # Same answers first (the latency comparison is between equivalent predictors).
    ours = np.array(fast.predict_batch(rows))
    ref = booster.inplace_predict(X)
    rel = float(np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-6)))
    min_t = 0.1 if quick else 0.3
    # Single rows cycle through 1024 different requests: repeating one row would keep its
    # few tree paths hot in cache and flatter both paths (reported separately as "same row").
    nxt_row = itertools.cycle(rows).__next__
    nxt_np = itertools.cycle([X[i : i + 1] for i in range(len(rows))]).__next__
    t_rust = time_per_call(lambda: fast.predict(nxt_row()), min_time_s=min_t)
    t_xgb = time_per_call(lambda: booster.inplace_predict(nxt_np()), min_time_s=min_t)
    t_rust_same = time_per_call(lambda: fast.predict(one), min_time_s=min_t)
    t_xgb_same = time_per_call(lambda: booster.inplace_predict(one_np), min_time_s=min_t)
    t_rust_b = time_per_call(lambda: fast.predict_batch(rows), min_time_s=min_t)
    t_xgb_b = time_per_call(lambda: booster.inplace_predict(X), min_time_s=min_t)
    nxt_feats = itertools.cycle([est.features(r["request"]) for r in test]).__next__
    t_est = time_per_call(lambda: est.predict(nxt_feats()), min_time_s=min_t)
    req = test[0]["request"]
    t_feat = time_per_call(lambda: est.features(req), min_time_s=min_t)
    return {
        "model": {"trees": fast.num_trees, "max_depth": 6, "features": fast.num_features},
        "max_rel_diff_vs_xgboost": rel,
        "single_row_us": {"rust_tree_ensemble": t_rust.us, "xgboost_inplace_predict": t_xgb.us},
        "same_row_repeated_us": {
            "rust_tree_ensemble": t_rust_same.us,
            "xgboost_inplace_predict": t_xgb_same.us,
        },
        "batch_1024_per_row_us": {
            "rust_tree_ensemble": t_rust_b.us / len(rows),
            "xgboost_inplace_predict": t_xgb_b.us / len(rows),
        },
        "estimator_predict_all_targets_us": t_est.us,
        "estimator_targets": list(est.targets),
        "features_us": t_feat.us,
        "speedup_single_row": t_xgb.us / t_rust.us,
    }


def run(quick: bool = False, trace: Path = DEFAULT_TRACE) -> dict[str, Any]:
    """Latency and accuracy tables; ``summary`` holds the headline numbers."""
    t0 = time.perf_counter()
    lat = _latency(quick)
    # --quick: fewer trees for the accuracy runs (the online replay refits them several times);
    # the latency comparison above always uses the same 200-tree model for both paths.
    cfg = TrainConfig(n_trees=60 if quick else 200, nthread=2)
    conv = evaluate_trace(trace, "time:0.7", cfg)
    agent = evaluate_agent(6000 if quick else 20000, 1500 if quick else 4000, train=cfg)
    oc, ao = conv["output_tokens"], agent["output_tokens"]
    on = conv["online"]["second_half"]
    summary = {
        "conv_mae": oc["estimator"]["mae"],
        "conv_decile_median_mae": oc["decile_median"]["mae"],
        "conv_mae_vs_decile_median": oc["estimator"]["mae"] / oc["decile_median"]["mae"],
        "conv_online_second_half_mae": on["online"]["mae"],
        "conv_static_second_half_mae": on["static"]["mae"],
        "agent_total_mae": agent["total_tokens"]["estimator"]["mae"],
        "agent_output_mae": ao["estimator"]["mae"],
        "agent_output_noise_floor_mae": ao["noise_floor"]["mae"],
        "agent_drift_online_second_half_mae": agent["online_drift"]["second_half"]["online"]["mae"],
        "agent_drift_static_second_half_mae": agent["online_drift"]["second_half"]["static"]["mae"],
        "predict_us": lat["single_row_us"]["rust_tree_ensemble"],
        "inplace_predict_us": lat["single_row_us"]["xgboost_inplace_predict"],
        "predict_speedup_vs_inplace_predict": lat["speedup_single_row"],
        "estimator_predict_us": lat["estimator_predict_all_targets_us"],
    }
    return {
        "summary": summary,
        "latency": lat,
        "accuracy": {"conv": conv, "agent": agent},
        "quick": quick,
        "duration_s": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.suites.estimator", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    ap.add_argument("--out", type=Path, default=RESULTS_DIR / "estimator.json")
    a = ap.parse_args(argv)
    result = run(a.quick, a.trace)
    result["meta"] = {"time": utc_now(), "machine": machine_info(), "versions": versions(), "git": git_info()}
    write_json(a.out, result)
    for k, v in result["summary"].items():
        print(f"{k:<42}{v:>12.3f}")
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
