"""Evaluation: ``python -m estimator.evaluate --trace PATH --split time:0.7 --json OUT``.

Trains on the first part of a trace by time and reports on the rest, for the estimator and the
baselines (global median, median per input-length decile, prompt × 1.3), all computed by the
same code in the same run; then replays the test part through ``observe()`` (an output becomes
known ``lag_s`` after its request arrived) and compares the second half of the test period with
and without online correction. ``--agent N`` adds the same report on synthetic agent traces.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from estimator.data.azure import (
    TRACE_FEATURES,
    TraceError,
    TraceFeatureConfig,
    load_trace,
    split_index,
    trace_features,
)
from estimator.features import FeatureSpec
from estimator.metrics import decile_median, error_metrics, global_median, prompt_x13
from estimator.model import TokenEstimator
from estimator.online import OnlineConfig
from estimator.train import TrainConfig

EVAL_ONLINE = OnlineConfig(background=False, refit_every=1000)


def replay(
    est: TokenEstimator,
    X: np.ndarray,
    y: np.ndarray,
    t: np.ndarray,
    lag_s: float,
    seconds: np.ndarray | None = None,
) -> np.ndarray:
    """Serve each request in time order, feeding back actuals once ``lag_s`` has passed.

    Returns the output-token estimates that were served (with the corrections of that moment).
    """
    served = np.empty(len(y))
    pending: deque[int] = deque()
    for i in range(len(y)):
        while pending and t[pending[0]] + lag_s <= t[i]:
            j = pending.popleft()
            est.observe(X[j].tolist(), float(y[j]), None if seconds is None else float(seconds[j]))
        served[i] = est.predict(X[i].tolist()).output_tokens
        pending.append(i)
    return served


def _predict_all(est: TokenEstimator, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    ests = [est.predict(row) for row in X.tolist()]
    out = np.array([e.output_tokens for e in ests])
    p90 = np.array([e.output_tokens_p90 if e.output_tokens_p90 is not None else np.nan for e in ests])
    return out, p90, ests


def evaluate_trace(
    path: str | Path,
    split: str = "time:0.7",
    train: TrainConfig | None = None,
    features: TraceFeatureConfig | None = None,
    online: OnlineConfig | None = None,
) -> dict[str, Any]:
    """Accuracy report of the estimator and baselines on a trace with the Azure columns."""
    fcfg = features or TraceFeatureConfig()
    trace = load_trace(path)
    k = split_index(len(trace), split)
    X = trace_features(trace, fcfg)
    y = trace.generated.astype(float)
    prompt = trace.context.astype(float)
    est = TokenEstimator(FeatureSpec(names=TRACE_FEATURES), train, online or EVAL_ONLINE)
    t0 = time.perf_counter()
    est.fit_arrays(X[:k], y[:k])
    train_s = time.perf_counter() - t0
    out, p90, _ = _predict_all(est, X[k:])
    yt = y[k:]
    report: dict[str, Any] = {
        "trace": str(path),
        "split": split,
        "n_train": k,
        "n_test": len(yt),
        "features": list(TRACE_FEATURES),
        "feature_config": vars(fcfg),
        "train_seconds": round(train_s, 2),
        "output_tokens": {
            "estimator": error_metrics(out, yt),
            "global_median": error_metrics(global_median(y[:k], len(yt)), yt),
            "decile_median": error_metrics(decile_median(prompt[:k], y[:k], prompt[k:]), yt),
            "prompt_x1.3": error_metrics(prompt_x13(prompt[k:]), yt),
        },
        "p90": {"coverage": float(np.mean(yt <= p90)), "mean_p90": float(np.nanmean(p90))},
    }
    half = len(yt) // 2
    served = replay(est, X[k:], yt, trace.t[k:], fcfg.lag_s)
    report["online"] = {
        "lag_s": fcfg.lag_s,
        "second_half": {
            "static": error_metrics(out[half:], yt[half:]),
            "online": error_metrics(served[half:], yt[half:]),
        },
        "refits": est.stats()["refits"],
        "live": est.stats()["output_tokens"],
    }
    return report


def evaluate_agent(
    n_train: int = 20000, n_test: int = 4000, seed: int = 0, train: TrainConfig | None = None
) -> dict[str, Any]:
    """Accuracy on synthetic agent traces (output, total, seconds), with the noise floor, and an
    online-correction replay on a drifted stream (one model becomes 40% more verbose)."""
    from estimator.data.synthetic import MODELS, AgentTraceConfig, generate

    tr, te = generate(n_train, seed), generate(n_test, seed + 1)
    est = TokenEstimator(FeatureSpec(models=MODELS), train, EVAL_ONLINE)
    X, y, tot, sec = est.rows_and_targets(tr)
    t0 = time.perf_counter()
    est.fit_arrays(X, y, tot, sec)
    train_s = time.perf_counter() - t0
    Xt, yt, tott, sect = est.rows_and_targets(te)
    out, p90, ests = _predict_all(est, Xt)
    ip = est.spec.index()["prompt_tokens"]
    expected = np.array([r["expected_output"] for r in te])
    report: dict[str, Any] = {
        "n_train": n_train,
        "n_test": n_test,
        "train_seconds": round(train_s, 2),
        "output_tokens": {
            "estimator": error_metrics(out, yt),
            "noise_floor": error_metrics(expected, yt),
            "global_median": error_metrics(global_median(y, len(yt)), yt),
            "decile_median": error_metrics(decile_median(X[:, ip], y, Xt[:, ip]), yt),
            "prompt_x1.3": error_metrics(prompt_x13(Xt[:, ip]), yt),
        },
        "total_tokens": {
            "estimator": error_metrics(np.array([e.total_tokens for e in ests]), tott),
            "prompt_x1.3": error_metrics(1.3 * Xt[:, ip], tott),
        },
        "seconds": {"estimator": error_metrics(np.array([e.seconds for e in ests]), sect)},
        "p90": {"coverage": float(np.mean(yt <= p90))},
    }
    drift = AgentTraceConfig(verbosity_shift={MODELS[1]: 1.4})
    dr = generate(n_test, seed + 2, drift)
    Xd, yd, _, secd = est.rows_and_targets(dr)
    static = np.array([est.predict(r).output_tokens for r in Xd.tolist()])
    served = replay(est, Xd, yd, np.arange(len(yd), dtype=float), 1.0, secd)
    half = len(yd) // 2
    report["online_drift"] = {
        "drift": {MODELS[1]: 1.4},
        "second_half": {
            "static": error_metrics(static[half:], yd[half:]),
            "online": error_metrics(served[half:], yd[half:]),
        },
        "refits": est.stats()["refits"],
    }
    return report


def _fmt_table(title: str, rows: dict[str, dict[str, float]]) -> str:
    lines = [title, f"{'method':<16}{'MAE':>9}{'median':>9}{'p90':>9}{'bias':>9}"]
    for name, m in rows.items():
        lines.append(f"{name:<16}{m['mae']:>9.1f}{m['median_ae']:>9.1f}{m['p90_ae']:>9.1f}{m['bias']:>9.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m estimator.evaluate", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--trace", required=True, help="CSV with TIMESTAMP, ContextTokens, GeneratedTokens")
    ap.add_argument("--split", default="time:0.7", help="time:FRACTION trained on (default time:0.7)")
    ap.add_argument("--json", dest="json_out", help="write the report here")
    ap.add_argument("--lag", type=float, default=60.0, help="seconds until an output is known")
    ap.add_argument("--trees", type=int, default=200)
    ap.add_argument("--agent", type=int, default=0, help="also evaluate on N synthetic agent requests")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    cfg = replace(TrainConfig(), n_trees=a.trees, nthread=a.threads)
    try:
        report = evaluate_trace(a.trace, a.split, cfg, TraceFeatureConfig(lag_s=a.lag))
    except (TraceError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(_fmt_table(f"output tokens on {report['n_test']} test requests", report["output_tokens"]))
    on = report["online"]["second_half"]
    print(_fmt_table("second half of the test period", on))
    if a.agent:
        report["agent"] = evaluate_agent(a.agent, max(500, a.agent // 5), train=cfg)
        print(_fmt_table("agent traces: output tokens", report["agent"]["output_tokens"]))
        print(_fmt_table("agent traces: total tokens", report["agent"]["total_tokens"]))
    if a.json_out:
        Path(a.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json_out).write_bytes(
            orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)
        )
        print(f"wrote {a.json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
