"""planner_config.yaml: the shipped file loads into the typed dataclasses; bad files are typed
errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tao.loop.intent import FallbackBranch, PlanningConfig, PlanningConfigError, load_planning_config
from tao.loop.intent.config import DEFAULT_PATH, planning_config_from


def test_the_shipped_file_loads_and_matches_the_defaults() -> None:
    cfg = load_planning_config()
    assert cfg == PlanningConfig()
    assert DEFAULT_PATH.name == "planner_config.yaml"


def test_keys_override_their_defaults_only(tmp_path: Path) -> None:
    p = tmp_path / "planner_config.yaml"
    p.write_text(
        "routing:\n  threshold: 0.5\n  fallback: general\nbypass:\n  max_input_tokens: 50\nmax_steps: 4\n"
    )
    cfg = load_planning_config(p)
    assert cfg.routing.threshold == 0.5 and cfg.routing.fallback is FallbackBranch.GENERAL
    assert cfg.bypass.max_input_tokens == 50 and cfg.max_steps == 4
    assert (
        cfg.fallback_planner.after_failed_plans == 2
        and cfg.routing.relative == PlanningConfig().routing.relative
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("routing:\n  threshold: high\n", "routing.threshold"),
        ("routing:\n  threshold: 1.5\n", "routing.threshold"),
        ("routing:\n  treshold: 0.5\n", "routing.treshold"),
        ("routing:\n  fallback: guess\n", "routing.fallback"),
        ("bypass:\n  max_input_tokens: 0\n", "bypass.max_input_tokens"),
        ("bypass:\n  urgency_cues: 马上\n", "bypass.urgency_cues"),
        ("bypass: [1, 2]\n", "bypass"),
        ("fallback_planner:\n  enabled: 'yes'\n", "fallback_planner.enabled"),
        ("max_steps: 3.5\n", "max_steps"),
        ("surprise: 1\n", "surprise"),
        ("- just\n- a list\n", ""),
    ],
)
def test_a_bad_value_is_a_typed_error_naming_its_key(tmp_path: Path, text: str, key: str) -> None:
    p = tmp_path / "planner_config.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(PlanningConfigError) as err:
        load_planning_config(p)
    assert err.value.key == key and err.value.path == p and str(p) in str(err.value)


def test_unreadable_or_non_yaml_files_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(PlanningConfigError, match="cannot read"):
        load_planning_config(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("routing: [unclosed\n", encoding="utf-8")
    with pytest.raises(PlanningConfigError, match="not valid YAML"):
        load_planning_config(bad)


def test_an_empty_file_is_the_defaults() -> None:
    assert planning_config_from(None) == PlanningConfig()
