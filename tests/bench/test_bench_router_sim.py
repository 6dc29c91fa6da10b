"""The virtual-time replay used by the router benchmark, on a small synthetic trace."""

from __future__ import annotations

import numpy as np
import pytest

from bench.router_sim import Backend, NoLimiter, RequestLimiter, TokenSecondLimiter, Trace, VClock, simulate
from bench.suites.router import TraceError, bin_median_estimator, load_trace
from estimator.data.paths import AZURE_CONV


def synthetic(n: int = 600, seed: int = 0) -> Trace:
    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(0.25, n))  # 4 req/s
    large = rng.random(n) < 0.3
    out = np.where(large, 600.0, 40.0)
    inp = np.full(n, 500.0)
    return Trace(arrival, inp, out, out)


def test_no_limiter_serves_everything_without_rejections():
    tr = synthetic()
    res = simulate(tr, Backend(slots=8), NoLimiter(), VClock())
    assert not res.dropped.any() and res.rejections.sum() == 0
    assert np.isfinite(res.delay_s).all() and (res.delay_s >= 0).all()


def test_token_second_bucket_lets_small_requests_pass_large_ones():
    tr = synthetic()
    backend = Backend(slots=8)
    svc = backend.service_s(tr.input_tokens, tr.output_tokens)
    req_rate = 0.9 * backend.slots / svc.mean()
    ts_rate = req_rate * ((tr.input_tokens + tr.output_tokens) * svc).mean()
    small = tr.output_tokens < 100
    c1, c2 = VClock(), VClock()
    by_count = simulate(tr, backend, RequestLimiter(req_rate, 10.0, c1), c1)
    by_ts = simulate(tr, backend, TokenSecondLimiter(ts_rate, 10.0, c2, tr, backend), c2)
    assert by_count.rejections.sum() > 0 and by_ts.rejections.sum() > 0
    assert np.nanpercentile(by_ts.delay_s[small], 50) < np.nanpercentile(by_count.delay_s[small], 50)
    assert by_ts.rejections[small].sum() < by_ts.rejections[~small].sum()


def test_trace_loader_checks_columns(tmp_path, data_dir):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(TraceError, match="columns"):
        load_trace(bad)
    with pytest.raises(TraceError, match="cannot read"):
        load_trace(tmp_path / "missing.csv")
    t, inp, out = load_trace(data_dir / AZURE_CONV)
    assert len(t) == 19366 and t[0] == 0 and np.all(np.diff(t) >= 0)
    assert np.median(out) == 129 and np.median(inp) == 1020
    predict = bin_median_estimator(inp[:4000], out[:4000])
    assert np.mean(np.abs(predict(inp[4000:]) - out[4000:])) < np.mean(
        np.abs(np.median(out[:4000]) - out[4000:])
    )
