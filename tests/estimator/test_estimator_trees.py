"""Rust ``TreeEnsemble`` vs XGBoost on thousands of random rows (parity within 1e-4 relative)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xgboost as xgb

from rust_validator._native import TreeEnsemble


def _data(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32) * rng.uniform(0.1, 1000, size=d).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nansum(np.abs(X[:, :3]), axis=1) + 50 * (np.nan_to_num(X[:, -1]) > 0) + rng.gamma(2, 10, n)
    return X, y.astype(np.float32)


def _booster(X, y, objective: str, rounds: int, depth: int = 6, **extra) -> xgb.Booster:
    params = {
        "tree_method": "hist",
        "objective": objective,
        "max_depth": depth,
        "eta": 0.1,
        "nthread": 1,
        "seed": 0,
        **extra,
    }
    return xgb.train(params, xgb.DMatrix(X, label=y, missing=np.nan), rounds)


def _json(b: xgb.Booster) -> str:
    return bytes(b.save_raw(raw_format="json")).decode()


@pytest.mark.parametrize(
    "objective,extra",
    [
        ("reg:squarederror", {}),
        ("reg:absoluteerror", {}),
        ("reg:quantileerror", {"quantile_alpha": 0.9}),
        ("reg:gamma", {}),
    ],
)
def test_parity_with_xgboost_on_random_rows(objective, extra):
    X, y = _data(3000, 8, seed=1)
    b = _booster(X, y, objective, rounds=200 if objective == "reg:squarederror" else 60, **extra)
    ens = TreeEnsemble(_json(b))
    assert ens.num_features == 8 and ens.objective == objective
    # Fresh random rows (other seed, own NaN pattern, values outside the training range).
    Xt, _ = _data(5000, 8, seed=2)
    Xt[:100] *= 1e3
    want = b.inplace_predict(Xt)
    got = np.array(ens.predict_batch(Xt.tolist()))
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-6)
    assert rel.max() <= 1e-4, (objective, rel.max())
    # The single-row path agrees with the batch path.
    for i in range(0, 5000, 97):
        assert ens.predict(Xt[i].tolist()) == got[i]


def test_rows_as_tuple_dict_and_numpy_sequence():
    X, y = _data(500, 3, seed=3)
    b = _booster(X, y, "reg:squarederror", rounds=20, depth=3)
    names = ["a", "b", "c"]
    ens = TreeEnsemble(_json(b), feature_names=names)
    row = [1.5, float("nan"), -3.0]
    want = float(b.inplace_predict(np.array([row], np.float32))[0])
    assert ens.predict(row) == pytest.approx(want, rel=1e-6)
    assert ens.predict(tuple(row)) == ens.predict(row)
    assert ens.predict(np.array(row)) == ens.predict(row)
    # Dict rows: by name; absent or None = missing.
    assert ens.predict({"a": 1.5, "c": -3.0}) == ens.predict(row)
    assert ens.predict({"a": 1.5, "b": None, "c": -3.0}) == ens.predict(row)
    assert "trees=20" in repr(ens)


def test_bad_models_and_rows_raise_value_errors():
    X, y = _data(300, 3, seed=4)
    text = _json(_booster(X, y, "reg:squarederror", rounds=5, depth=2))
    ens = TreeEnsemble(text)
    with pytest.raises(ValueError, match="expected 3 features"):
        ens.predict([1.0, 2.0])
    with pytest.raises(TypeError):
        ens.predict({"a": 1.0})  # dict rows need feature names
    with pytest.raises(TypeError):
        ens.predict(["x", 1.0, 2.0])
    with pytest.raises(ValueError):
        TreeEnsemble(text, feature_names=["only_one"])
    with pytest.raises(ValueError, match="invalid XGBoost JSON"):
        TreeEnsemble("{not json")
    with pytest.raises(ValueError, match="unsupported"):
        TreeEnsemble(text.replace('"gbtree"', '"dart"'))
    multi = _json(
        _booster(
            X, (y > np.median(y)).astype(np.float32) * 2, "multi:softprob", rounds=2, depth=2, num_class=3
        )
    )
    with pytest.raises(ValueError, match="unsupported"):
        TreeEnsemble(multi)
    assert math.isfinite(ens.predict([float("nan")] * 3))
