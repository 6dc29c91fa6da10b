"""Single-row tree evaluation: the Rust ``TreeEnsemble`` reading the XGBoost JSON model."""

from __future__ import annotations

from rust_validator._native import TreeEnsemble

__all__ = ["TreeEnsemble", "ensemble_from_booster"]


def ensemble_from_booster(booster) -> TreeEnsemble:
    """Build the Rust evaluator from a trained ``xgboost.Booster`` (via its JSON model)."""
    raw = booster.save_raw(raw_format="json")
    return TreeEnsemble(bytes(raw).decode())
