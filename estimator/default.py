"""The ready-to-use estimator: a model committed under ``estimator/models/default``
(XGBoost JSON, gzip-compressed, about 1 MB).

It was trained by ``python -m estimator.train_default`` on the synthetic agent generator
(:mod:`estimator.data.synthetic`; the router's default model names), so it needs no training
step at first use. Retrain it on your own traffic with ``TokenEstimator.fit`` and ``save``.
"""

from __future__ import annotations

from pathlib import Path

from estimator.model import TokenEstimator

DEFAULT_DIR = Path(__file__).resolve().parent / "models" / "default"


def default_estimator() -> TokenEstimator:
    """A fresh ``TokenEstimator`` loaded from the committed default model."""
    if not (DEFAULT_DIR / "spec.json").is_file():
        raise FileNotFoundError(
            f"default estimator model missing at {DEFAULT_DIR}; run `python -m estimator.train_default`"
        )
    return TokenEstimator.load(DEFAULT_DIR)
