"""Derives ``comparisons`` and ``plots`` for suites whose JSON does not declare them, from the
structures those suites are known to write. A suite that declares its own keeps them; an adapter
only fills what is absent, and one that does not recognise the data returns nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _validator(data: dict) -> dict[str, list]:
    """validator: ``results[size][method_key] = {"method", "us_per_doc", ...}``, baseline (a)."""
    results, methods = data.get("results"), data.get("methods")
    if not isinstance(results, dict) or not isinstance(methods, dict) or "a" not in methods:
        return {}
    comps, bars = [], {}
    for size, row in results.items():
        if not isinstance(row, dict):
            continue
        values = {
            methods[k]: row[k]["us_per_doc"]
            for k in methods
            if isinstance(row.get(k), dict) and isinstance(row[k].get("us_per_doc"), (int, float))
        }
        if methods["a"] not in values:
            continue
        label = f"{size} document ({row.get('bytes', '?')} bytes)"
        comps.append(
            {
                "name": f"validate one {label}",
                "metric": "us_per_doc",
                "unit": "µs",
                "baseline": methods["a"],
                "lower_is_better": True,
                "values": values,
            }
        )
        bars[label] = values
    plots = (
        [
            {
                "kind": "bar",
                "title": "validation cost per document",
                "ylabel": "µs per document (log)",
                "logy": True,
                "series": bars,
            }
        ]
        if bars
        else []
    )
    return {"comparisons": comps, "plots": plots}


def _maes(rows: Any) -> dict[str, float]:
    if not isinstance(rows, dict):
        return {}
    return {
        k: v["mae"] for k, v in rows.items() if isinstance(v, dict) and isinstance(v.get("mae"), (int, float))
    }


def _find_error_samples(x: Any, path: str = "") -> dict[str, list]:
    """Every ``error_samples`` / ``errors`` dict of ``{label: [signed errors]}`` under ``x``."""
    out: dict[str, list] = {}
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("error_samples", "errors") and isinstance(v, dict):
                out.update({f"{path}{lbl}": s for lbl, s in v.items() if isinstance(s, list) and s})
            else:
                out.update(_find_error_samples(v, f"{path}{k}/"))
    return out


def _estimator(data: dict) -> dict[str, list]:
    """estimator: accuracy tables (MAE per method, online vs static) and predict latencies."""
    comps: list[dict] = []
    acc = data.get("accuracy") or {}
    bars: dict[str, dict[str, float]] = {}
    for key, title in (
        ("conv", "Azure conversation trace, output tokens (70/30 time split)"),
        ("agent", "synthetic agent traces, output tokens"),
    ):
        maes = _maes((acc.get(key) or {}).get("output_tokens"))
        if "global_median" in maes:
            comps.append(
                {
                    "name": f"MAE, {title}",
                    "metric": "mae",
                    "unit": "tokens",
                    "baseline": "global_median",
                    "lower_is_better": True,
                    "values": maes,
                }
            )
            bars[key] = maes
    for key, sub, title in (
        ("conv", "online", "online correction, conversation trace, second half"),
        ("agent", "online_drift", "online correction under drift, agent traces, second half"),
    ):
        maes = _maes(((acc.get(key) or {}).get(sub) or {}).get("second_half"))
        if {"static", "online"} <= maes.keys():
            comps.append(
                {
                    "name": f"MAE, {title}",
                    "metric": "mae",
                    "unit": "tokens",
                    "baseline": "static",
                    "lower_is_better": True,
                    "values": maes,
                }
            )
    lat = data.get("latency") or {}
    for key, title in (
        ("single_row_us", "predict one row"),
        ("batch_1024_per_row_us", "predict per row, batch of 1024"),
    ):
        vals = lat.get(key)
        if isinstance(vals, dict) and "xgboost_inplace_predict" in vals:
            comps.append(
                {
                    "name": title,
                    "metric": "us",
                    "unit": "µs",
                    "baseline": "xgboost_inplace_predict",
                    "lower_is_better": True,
                    "values": vals,
                }
            )
    plots: list[dict] = []
    if bars:
        plots.append(
            {"kind": "bar", "title": "output-token MAE by method", "ylabel": "MAE (tokens)", "series": bars}
        )
    samples = _find_error_samples(acc)
    if samples:
        plots.append(
            {
                "kind": "hist",
                "title": "estimator error (predicted − actual tokens)",
                "xlabel": "tokens",
                "series": samples,
            }
        )
    return {"comparisons": comps, "plots": plots}


PLAN_COLUMNS = (
    "plans_per_s",
    "p50_ms",
    "p99_ms",
    "forward_passes_per_plan",
    "generated_tokens_per_plan",
    "jump_forward_tokens_per_plan",
    "valid_rate",
    "accuracy",
    "n",
)


def _plan(data: dict) -> dict[str, list]:
    """plan: ``configs[name] = {plans_per_s, p50_ms, p99_ms, forward_passes_per_plan, ...}``."""
    configs = data.get("configs")
    if not isinstance(configs, dict) or not configs:
        return {}
    cfgs = {k: v for k, v in configs.items() if isinstance(v, dict)}
    base = next(
        (b for b in ("hf_generate_unconstrained_b1", "vllm_cpu_b1", "cpu_nojf_b1") if b in cfgs), None
    )
    comps: list[dict] = []

    def pick(metric: str) -> dict[str, float]:
        return {k: v[metric] for k, v in cfgs.items() if isinstance(v.get(metric), (int, float))}

    if base:
        for metric, unit, lower in (("plans_per_s", "plans/s", False), ("p99_ms", "ms", True)):
            vals = pick(metric)
            if base in vals:
                comps.append(
                    {
                        "name": f"plan model {metric}",
                        "metric": metric,
                        "unit": unit,
                        "baseline": base,
                        "lower_is_better": lower,
                        "values": vals,
                    }
                )
    fwd = pick("forward_passes_per_plan")
    if "cpu_nojf_b1" in fwd:
        comps.append(
            {
                "name": "forward passes per plan (jump-forward)",
                "metric": "forward_passes_per_plan",
                "unit": "",
                "baseline": "cpu_nojf_b1",
                "lower_is_better": True,
                "values": fwd,
            }
        )
    table = {
        "title": f"plan engines on {data.get('checkpoint', '?')} checkpoint, {data.get('requests', '?')} "
        "held-out requests (per-plan latency = latency of its batch)",
        "columns": ["config", *PLAN_COLUMNS],
        "rows": [[k, *(v.get(c) for c in PLAN_COLUMNS)] for k, v in cfgs.items()],
    }
    plots = [
        {
            "kind": "bar",
            "title": "plans per second by engine configuration",
            "ylabel": "plans/s",
            "series": {"plans/s": pick("plans_per_s")},
        },
        {
            "kind": "bar",
            "title": "plan latency by engine configuration",
            "ylabel": "ms (log)",
            "logy": True,
            "series": {k: {"P50": v.get("p50_ms"), "P99": v.get("p99_ms")} for k, v in cfgs.items()},
        },
    ]
    return {"comparisons": comps, "tables": [table], "plots": plots}


def _router(data: dict) -> dict[str, list]:
    """router: ``replay.policies[name] = {"small": {p50, p99}, "large": {...}, "goodput_tokens_per_s"}``."""
    pol = (data.get("replay") or {}).get("policies")
    if not isinstance(pol, dict) or not pol:
        return {}
    delay = {}
    for size in ("small", "large"):
        for q in ("p50", "p99"):
            vals = {k: (v.get(size) or {}).get(q) for k, v in pol.items() if isinstance(v, dict)}
            if any(isinstance(x, (int, float)) for x in vals.values()):
                delay[f"{size} {q.upper()}"] = vals
    plots = []
    if delay:
        plots.append(
            {
                "kind": "bar",
                "title": "queueing delay by limiter (trace replay)",
                "ylabel": "seconds (log)",
                "logy": True,
                "series": delay,
            }
        )
    return {"plots": plots}


ADAPTERS: dict[str, Callable[[dict], dict[str, list]]] = {
    "validator": _validator,
    "estimator": _estimator,
    "plan": _plan,
    "router": _router,
}


def derive(name: str, data: dict[str, Any]) -> dict[str, list]:
    """``{"comparisons": [...], "plots": [...]}`` to use where the suite declared none."""
    adapter = ADAPTERS.get(name)
    if adapter is None:
        return {}
    try:
        derived = adapter(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}
    return {k: v for k, v in derived.items() if v and not data.get(k)}
