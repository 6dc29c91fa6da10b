"""The small chaos run (issue 16) in the suite: 3 real ``tao serve`` replicas on one real Redis,
the mock with ``--no-dedup``, each run's non-idempotent step sent twice with the same
Idempotency-Key to two replicas, one replica SIGKILLed and restarted, Redis SIGKILLed and
restarted once. 0 duplicate side effects (from the mock's own records), 0 runs lost (every key
answers its recorded reply afterwards), bucket admissions within the bound.

Most of its time is the replicas' start (three processes importing the runtime at once, and the
restarted one again): about 20 s on an idle 2-core machine, minutes at load 10."""

from __future__ import annotations

import pytest

from bench.chaos import ChaosConfig, run_chaos

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_small_chaos_run_no_duplicates_no_lost_runs_bucket_within_bound(tmp_path) -> None:
    cfg = ChaosConfig(
        runs=45,
        kills=1,
        kill_window=(0.05, 0.2),  # early: the restart overlaps the traffic
        concurrency=5,
        data_loss_phase_s=4.0,
        workdir=tmp_path,
    )
    out = run_chaos(cfg, log=print)
    s = out["summary"]
    detail = (s, out["events"], out.get("lost"))
    assert s["replica_kills"] == 1 and s["redis_restarts"] == 1, detail
    assert any("back after" in e["event"] and "replica" in e["event"] for e in out["events"]), detail
    assert s["duplicate_side_effects"] == 0, detail
    assert s["runs_lost"] == 0, detail
    assert s["side_effects"] <= s["runs"], detail
    assert s["outcome_success"] >= s["runs"] // 2, detail  # the fleet did serve through the faults
    assert s["bucket_admitted_vs_bound"] <= 1.0, out["bucket"]
    assert s["bucket_data_loss_admitted_vs_bound"] <= 1.0, out["bucket"]
    assert out["bucket"]["redis_restart_data_lost"]["restarts_seen"] >= 1, out["bucket"]  # the epoch path
