"""Chaos benchmark (``python -m bench chaos [--quick]``): replicas of ``tao serve`` on one Redis,
SIGKILLed and restarted under load, Redis killed and restarted once (:mod:`bench.chaos`).

Full: 2,000 runs (each a non-idempotent step sent twice with one Idempotency-Key to two
replicas), 3 replicas, 4 replica kills, 1 Redis kill+restart. ``--quick``: 200 runs, 2 kills.
Targets (issue 16): 0 duplicate side effects, 0 runs lost, bucket admissions <= 1.0x the bound.
``TAO_CHAOS_RUNS`` overrides the run count (a machine too slow for the full count).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from bench.chaos import ChaosConfig, run_chaos


def _config(quick: bool) -> ChaosConfig:
    runs = int(os.environ.get("TAO_CHAOS_RUNS") or (200 if quick else 2000))
    return ChaosConfig(runs=runs, kills=2 if quick else 4)


def run(quick: bool = False) -> dict[str, Any]:
    t0 = time.perf_counter()
    cfg = _config(quick)
    out = run_chaos(cfg, log=lambda m: print(m, file=sys.stderr, flush=True))
    s = out["summary"]
    b = out["bucket"]
    rows = [
        ["runs (each sent twice, same key, two replicas)", s["runs"], "-"],
        ["replica SIGKILL + restart", s["replica_kills"], ">= 1"],
        ["Redis SIGKILL + restart (AOF, fsync always)", s["redis_restarts"], "1"],
        ["side effects at the mock (--no-dedup)", s["side_effects"], "<= runs"],
        ["duplicate side effects", s["duplicate_side_effects"], "0"],
        ["runs lost (no recorded outcome, or success without its effect)", s["runs_lost"], "0"],
        ["recorded outcome: success", s["outcome_success"], "-"],
        ["recorded outcome: needs_user (replica died mid-step)", s["outcome_needs_user"], "-"],
        ["recorded outcome: other (e.g. store down mid-run, nothing sent)", s["outcome_other"], "-"],
        ["sends answered with another reply than the recorded one", s["sends_answered_differently"], "-"],
        ["bucket admitted / bound, Redis kill+restart", s["bucket_admitted_vs_bound"], "<= 1.0"],
        [
            "bucket admitted / bound, Redis restart that lost its data",
            s["bucket_data_loss_admitted_vs_bound"],
            "<= 1.0",
        ],
    ]
    ev = [[e["at_run"], e["event"]] for e in out["events"]]
    bucket_rows = [
        [
            name,
            d["elapsed_s"],
            d["admitted_token_s"],
            d["degraded_admitted_token_s"],
            d["bound_token_s"],
            d["admitted_vs_bound"],
            d["restarts_seen"],
        ]
        for name, d in b.items()
    ]
    return {
        "summary": s,
        "tables": [
            {
                "title": "Chaos run (issue 16 targets)",
                "columns": ["measure", "value", "target"],
                "rows": rows,
            },
            {
                "title": "Token-second bucket through Redis faults (one RedisBucket per replica)",
                "columns": [
                    "phase",
                    "seconds",
                    "admitted token*s",
                    "of it degraded",
                    "bound",
                    "ratio",
                    "epoch changes seen",
                ],
                "rows": bucket_rows,
            },
            {"title": "Chaos events", "columns": ["after run", "event"], "rows": ev},
        ],
        "notes": [
            "All real processes on loopback: redis-server, the mock tool service with --no-dedup, "
            f"{s['replicas']} `tao serve --no-model` replicas; plans are replayed (no model), so this "
            "measures the runtime's shared state, not planning.",
            "A client resends on 409 request_in_progress / 503 and moves to another replica when its "
            "connection dies; afterwards every key is sent once more and must answer its recorded reply.",
            "Duplicates are counted from the mock's own records (every expense it created, by amount: "
            "each run has a unique amount).",
            "The bucket bound is capacity + rate * elapsed; the bucket is driven by one RedisBucket per "
            "replica in the harness process (the gateway path needs a model upstream).",
        ],
        "events": out["events"],
        "bucket": b,
        "outcomes": out["outcomes"],
        "lost": out["lost"],
        "config": out["config"],
        "quick": quick,
        "duration_s": round(time.perf_counter() - t0, 1),
    }
