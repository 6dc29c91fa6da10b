"""XGBoost training of the estimator's targets (hist trees; quantile objective for p90)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import xgboost as xgb


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of every target's booster."""

    n_trees: int = 200
    max_depth: int = 6
    eta: float = 0.08
    objective: str = "reg:absoluteerror"  # MAE is what we report, so fit the median
    quantile: float | None = 0.9  # also fit this output-token quantile (None = skip)
    min_child_weight: float = 4.0
    subsample: float = 0.9
    colsample_bytree: float = 1.0
    max_bin: int = 256
    nthread: int = 2
    seed: int = 0


def train_booster(
    X: np.ndarray,
    y: np.ndarray,
    cfg: TrainConfig,
    *,
    objective: str | None = None,
    alpha: float | None = None,
    weight: np.ndarray | None = None,
    n_trees: int | None = None,
) -> xgb.Booster:
    """Fit one hist booster on ``X`` (NaN = missing) and target ``y``."""
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y, dtype=np.float32)
    if X.ndim != 2 or len(X) != len(y) or len(y) == 0:
        raise ValueError(f"need a non-empty 2-D X matching y, got {X.shape} and {y.shape}")
    params: dict = {
        "tree_method": "hist",
        "objective": objective or cfg.objective,
        "max_depth": cfg.max_depth,
        "eta": cfg.eta,
        "min_child_weight": cfg.min_child_weight,
        "subsample": cfg.subsample,
        "colsample_bytree": cfg.colsample_bytree,
        "max_bin": cfg.max_bin,
        "nthread": cfg.nthread,
        "seed": cfg.seed,
        "verbosity": 0,
    }
    if params["objective"] == "reg:quantileerror":
        params["quantile_alpha"] = alpha if alpha is not None else cfg.quantile
    dtrain = xgb.DMatrix(X, label=y, weight=weight, missing=np.nan, nthread=cfg.nthread)
    return xgb.train(params, dtrain, num_boost_round=n_trees or cfg.n_trees)


def quick(cfg: TrainConfig, n_trees: int) -> TrainConfig:
    """The same config with another tree count (refits use fewer trees)."""
    return replace(cfg, n_trees=n_trees)
