"""Error metrics and baselines, shared by the evaluation CLI, the benchmark and the tests."""

from __future__ import annotations

import numpy as np


def error_metrics(pred: np.ndarray, actual: np.ndarray) -> dict[str, float]:
    """MAE, median and p90 absolute error, and bias (mean of prediction - actual)."""
    pred = np.asarray(pred, float)
    actual = np.asarray(actual, float)
    if pred.shape != actual.shape or pred.size == 0:
        raise ValueError(f"need equal non-empty shapes, got {pred.shape} and {actual.shape}")
    err = pred - actual
    ae = np.abs(err)
    return {
        "n": int(err.size),
        "mae": float(ae.mean()),
        "median_ae": float(np.median(ae)),
        "p90_ae": float(np.percentile(ae, 90)),
        "bias": float(err.mean()),
    }


def global_median(y_train: np.ndarray, n_test: int) -> np.ndarray:
    """Baseline: the training median output for every request."""
    return np.full(n_test, float(np.median(y_train)))


def decile_median(prompt_train: np.ndarray, y_train: np.ndarray, prompt_test: np.ndarray) -> np.ndarray:
    """Baseline: median output of the request's input-length decile (deciles of training)."""
    edges = np.quantile(prompt_train, np.linspace(0, 1, 11)[1:-1])
    d_train = np.searchsorted(edges, prompt_train, side="right")
    d_test = np.searchsorted(edges, prompt_test, side="right")
    glob = float(np.median(y_train))
    med = np.array(
        [float(np.median(y_train[d_train == i])) if np.any(d_train == i) else glob for i in range(10)]
    )
    return med[d_test]


def prompt_x13(prompt_test: np.ndarray) -> np.ndarray:
    """Baseline: the rule of thumb "a request costs its prompt × 1.3 tokens", i.e. an output
    estimate of 0.3 × prompt tokens (total = 1.3 × prompt)."""
    return 0.3 * np.asarray(prompt_test, float)
