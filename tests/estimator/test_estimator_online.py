"""Online correction: a drifted stream gets better, live MAE/bias, background refits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimator import FeatureSpec, OnlineConfig, TokenEstimator, TrainConfig
from estimator.data.synthetic import MODELS, AgentTraceConfig, generate
from estimator.online import LiveStats, ResidualCorrector

SMALL = TrainConfig(n_trees=60, max_depth=5, eta=0.2, nthread=1, quantile=None)


@pytest.fixture(scope="module")
def train():
    return generate(2500, seed=21)


@pytest.mark.slow
def test_correction_reduces_error_on_a_drifted_stream(train, tmp_path):
    est = TokenEstimator(FeatureSpec(models=MODELS), SMALL, OnlineConfig(refit_every=0)).fit(train)
    frozen = TokenEstimator.load(est.save(tmp_path / "frozen"))  # never observes
    # o3 becomes 60% more verbose; the other models do not change.
    stream = generate(1200, seed=22, cfg=AgentTraceConfig(verbosity_shift={"o3": 1.6}))
    static, served, y = [], [], []
    for r in stream:
        static.append(frozen.predict(r["request"]).output_tokens)
        served.append(est.observe(r["request"], r["output_tokens"], r["seconds"]).output_tokens)
        y.append(r["output_tokens"])
    half = len(y) // 2
    y, static, served = map(np.array, (y, static, served))
    mae_static = np.abs(static[half:] - y[half:]).mean()
    mae_online = np.abs(served[half:] - y[half:]).mean()
    assert mae_online < 0.8 * mae_static, (mae_online, mae_static)
    s = est.stats()
    assert s["output_tokens"]["n"] == len(y)
    assert s["output_tokens"]["bias"] < 0  # served estimates were too low on average
    assert s["seconds"]["n"] == len(y) and s["seconds"]["mae"] > 0
    o3 = est.spec.models.index("o3")
    o3_keys = [v for k, v in s["corrections"].items() if k.startswith(f"({float(o3)},")]
    assert o3_keys and all(v["value"] > 10 and v["applied"] for v in o3_keys)
    assert all(v["mae_with"] < v["mae_without"] for v in o3_keys)


@pytest.mark.slow
def test_background_refit_swaps_models_and_adapts(train, tmp_path):
    cfg = OnlineConfig(refit_every=300, buffer_size=600, keep_training=1000, refit_trees=40, correct=False)
    est = TokenEstimator(FeatureSpec(models=MODELS), SMALL, cfg).fit(train)
    booster = est.booster()
    frozen = TokenEstimator.load(est.save(tmp_path / "frozen"))
    stream = generate(700, seed=23, cfg=AgentTraceConfig(verbosity_shift={m: 1.5 for m in MODELS}))
    for r in stream[:600]:
        est.observe(r["request"], r["output_tokens"])
    est.wait_refit(timeout=120)
    assert est.stats()["refits"] >= 1 and est.booster() is not booster
    test = stream[600:]
    y = np.array([r["output_tokens"] for r in test])
    after = np.array([est.predict(r["request"]).output_tokens for r in test])
    before = np.array([frozen.predict(r["request"]).output_tokens for r in test])
    assert np.abs(after - y).mean() < np.abs(before - y).mean()


def test_residual_corrector_tracks_the_median_and_the_mean():
    rng = np.random.default_rng(0)
    med = ResidualCorrector(alpha=0.05, warmup=20, kind="median")
    mean = ResidualCorrector(alpha=0.05, warmup=20, kind="mean")
    for r in 30 + rng.exponential(20, 3000):  # median 30 + 13.9, mean 50
        med.update("k", r)
        mean.update("k", r)
    assert abs(med.correction("k") - (30 + 20 * math.log(2))) < 6
    assert abs(mean.correction("k") - 50) < 8
    assert med.correction("other") == 0.0
    med.update("k", float("nan"))  # ignored
    restored = ResidualCorrector.from_json(med.to_json(), 0.05, 20)
    assert restored.correction("k") == med.correction("k")
    # The guard: a correction that does not beat "no correction" is not applied.
    noisy = ResidualCorrector(alpha=0.05, warmup=5, guard=True)
    for r in rng.normal(0, 30, 500):  # centred residuals: nothing to correct
        noisy.update("k", r)
    s = noisy.summary()["k"]
    assert (noisy.correction("k") != 0.0) == (s["mae_with"] < s["mae_without"]) == s["applied"]
    shifted = ResidualCorrector(alpha=0.05, warmup=5, guard=True)
    for r in 40 + rng.normal(0, 5, 200):
        shifted.update("k", r)
    assert shifted.summary()["k"]["applied"] and abs(shifted.correction("k") - 40) < 3
    with pytest.raises(ValueError):
        ResidualCorrector(alpha=0)
    with pytest.raises(ValueError):
        ResidualCorrector(kind="mode")


def test_live_stats_window():
    s = LiveStats(window=3)
    assert math.isnan(s.summary()["mae"])
    for est, act in [(10, 0), (0, 10), (5, 5), (7, 5)]:
        s.add(est, act)
    out = s.summary()
    assert out["n"] == 4 and out["mae"] == pytest.approx(22 / 4) and out["bias"] == pytest.approx(2 / 4)
    assert out["window_n"] == 3 and out["window_mae"] == pytest.approx(12 / 3)
