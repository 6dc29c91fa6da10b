"""The quick preset's time budget counts training time and never cuts below ``min_steps`` (issue #15)."""

from __future__ import annotations

from training.config import PRESETS, Preset, TrainConfig
from training.train import budget_steps


def test_budget_counts_from_the_first_training_step() -> None:
    """10 minutes of training at 0.5 s a step from t_train = 1000: 1200 steps, whatever came before."""
    cfg = TrainConfig(time_budget_min=10.0, max_steps=5000)
    assert budget_steps(cfg, 30, 0.5, t_train=1000.0, cap=5000, now=1015.0) == 30 + int(585 / 0.5)
    assert budget_steps(cfg, 30, 0.5, t_train=1000.0, cap=1000, now=1015.0) == 1000


def test_a_loaded_machine_keeps_min_steps() -> None:
    """At 10 s a step (a loaded machine) the budget fits 60 steps; min_steps keeps 800."""
    cfg = TrainConfig(time_budget_min=10.0, max_steps=5000, min_steps=800)
    assert budget_steps(cfg, 30, 10.0, t_train=0.0, cap=5000, now=0.0) == 800
    assert budget_steps(cfg, 900, 10.0, t_train=0.0, cap=5000, now=700.0) == 901  # past the floor
    assert budget_steps(cfg, 30, 10.0, t_train=0.0, cap=500, now=0.0) == 500  # the cap wins


def test_quick_preset_has_a_step_floor() -> None:
    quick = PRESETS[Preset.QUICK]
    assert quick["min_steps"] > 0
    assert quick["min_steps"] <= quick["max_steps"]
