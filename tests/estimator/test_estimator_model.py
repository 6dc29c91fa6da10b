"""TokenEstimator: fit, predict, save/load round trip, default model, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimator import (
    Estimate,
    FeatureError,
    FeatureSpec,
    NotFittedError,
    OnlineConfig,
    TokenEstimator,
    TrainConfig,
    default_estimator,
)
from estimator.data.synthetic import MODELS, generate

SMALL = TrainConfig(n_trees=60, max_depth=5, eta=0.2, nthread=1)


@pytest.fixture(scope="module")
def data():
    return generate(2500, seed=11), generate(500, seed=12)


@pytest.fixture(scope="module")
def fitted(data):
    train, _ = data
    return TokenEstimator(FeatureSpec(models=MODELS), SMALL, OnlineConfig(refit_every=0)).fit(train)


def test_fit_trains_every_target_and_beats_the_median(fitted, data):
    _, test = data
    assert set(fitted.targets) == {"output_tokens", "output_tokens_p90", "total_extra", "seconds"}
    y = np.array([r["output_tokens"] for r in test])
    pred = np.array([fitted.predict(r["request"]).output_tokens for r in test])
    assert np.abs(pred - y).mean() < 0.5 * np.abs(np.median(y) - y).mean()
    e = fitted.predict(test[0]["request"])
    assert isinstance(e, Estimate)
    assert e.output_tokens >= 0 and e.seconds > 0 and e.total_tokens >= e.prompt_tokens
    assert e.output_tokens_p90 is not None and e.output_tokens_p90 >= e.output_tokens


def test_predict_accepts_request_features_or_row(fitted, data):
    req = data[1][3]["request"]
    f = fitted.features(req)
    by_req, by_feat = fitted.predict(req), fitted.predict(f)
    by_row = fitted.predict(fitted.spec.row(f))
    assert by_req == by_feat == by_row


def test_output_never_exceeds_max_tokens(fitted, data):
    for r in data[1][:100]:
        req = dict(r["request"], max_tokens=16)
        e = fitted.predict(req)
        assert e.output_tokens <= 16 and e.output_tokens_p90 <= 16


def test_save_load_round_trip_is_exact(fitted, data, tmp_path):
    for compress in (False, True):
        d = fitted.save(tmp_path / f"m{compress}", compress=compress)
        assert (d / "spec.json").is_file()
        suffix = ".json.gz" if compress else ".json"
        assert (d / f"output_tokens{suffix}").is_file()
        loaded = TokenEstimator.load(d)
        assert loaded.spec == fitted.spec and loaded.targets == fitted.targets
        for r in data[1][:200]:
            assert loaded.predict(r["request"]) == fitted.predict(r["request"])


def test_corrections_survive_save_load(data, tmp_path):
    est = TokenEstimator(FeatureSpec(models=MODELS), SMALL, OnlineConfig(refit_every=0)).fit(data[0])
    for r in data[1][:60]:
        est.observe(r["request"], r["output_tokens"] + 40, r["seconds"])
    req = data[1][0]["request"]
    loaded = TokenEstimator.load(est.save(tmp_path / "m"))
    assert loaded.predict(req) == est.predict(req)


def test_default_estimator_is_ready_and_sensible():
    est = default_estimator()
    short = est.predict(
        {
            "model": "gpt-4o-mini",
            "task_type": "tool_call",
            "messages": [{"role": "user", "content": "Where is order 42?"}],
        }
    )
    summary = est.predict(
        {
            "model": "gpt-4.1",
            "task_type": "summarize",
            "messages": [{"role": "user", "content": "Summarise these results"}],
            "tool_results": [{"rows": ["delivered order " * 40] * 20}],
        }
    )
    assert 0 < short.output_tokens < summary.output_tokens
    assert short.total_tokens >= short.prompt_tokens + short.output_tokens * 0.5
    # Accuracy on fresh synthetic requests (another seed than the one it was trained on).
    test = generate(400, seed=99)
    y = np.array([r["total_tokens"] for r in test])
    pred = np.array([est.predict(r["request"]).total_tokens for r in test])
    assert np.abs(pred - y).mean() < 15


def test_errors_are_typed(fitted, tmp_path):
    with pytest.raises(NotFittedError):
        TokenEstimator().predict({"messages": []})
    with pytest.raises(NotFittedError):
        TokenEstimator().save(tmp_path / "x")
    with pytest.raises(FeatureError):
        fitted.predict([1.0, 2.0])
    with pytest.raises(FeatureError):
        fitted.predict("hello")
    with pytest.raises(FeatureError):
        fitted.fit([{"output_tokens": 3}])
    with pytest.raises(ValueError):
        fitted.observe({"messages": []}, float("nan"))
    with pytest.raises(ValueError):
        TokenEstimator.load(tmp_path / "missing")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "spec.json").write_text("{]")
    with pytest.raises(ValueError):
        TokenEstimator.load(tmp_path / "bad")
    e = fitted.predict({"messages": [{"role": "user", "content": "hi"}]})
    assert math.isfinite(e.output_tokens) and math.isfinite(e.seconds)
