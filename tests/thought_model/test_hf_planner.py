"""The embedded default checkpoint plans real requests through transformers + xgrammar."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from thought_model.hf_planner import DEFAULT_CHECKPOINT, HFPlanner

SESSION = SessionState(user_id="U10000001", now=datetime(2026, 11, 29, 10, 0))


@pytest.fixture(scope="module")
def planner() -> HFPlanner:
    if not (DEFAULT_CHECKPOINT / "model.safetensors").exists():
        pytest.fail(f"default checkpoint missing at {DEFAULT_CHECKPOINT}")
    return HFPlanner(DEFAULT_CHECKPOINT)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_default_checkpoint_plans(planner: HFPlanner) -> None:
    reqs = [
        "查询上个月的订单状态",
        "查一下订单123456789012345678的物流",
        "what's the weather in Beijing tomorrow?",
        "查询我上个月的订单",
    ]
    sessions = [SESSION, SESSION, SESSION, SessionState(now=SESSION.now)]
    got = planner.plan_batch(reqs, sessions)
    p0, p1, p2, p3 = got
    assert isinstance(p0, ThoughtPlan)
    assert p0.steps[0].tool == "list_orders"
    assert (
        p0.steps[0].arguments["user_id"] == "U10000001" and p0.steps[0].arguments["period"] == "@last_month"
    )
    assert isinstance(p1, ThoughtPlan) and p1.steps[0].tool == "get_logistics"
    assert p1.steps[0].arguments == {"order_id": "123456789012345678"}
    assert isinstance(p2, ThoughtPlan) and p2.steps[0].tool == "get_weather"
    assert p2.steps[0].arguments == {"city": "Beijing", "date": "@tomorrow"}
    assert isinstance(p3, InsufficientContext) and p3.required_fields == ["user_id"]


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_tao_plan_cli_prints_a_valid_plan(capsys) -> None:
    from tao.cli.plan_cli import main

    assert main(["查询上个月的订单状态", "--now", "2026-11-29T10:00:00"]) == 0
    out = json.loads(capsys.readouterr().out)
    plan = ThoughtPlan.model_validate(out)
    assert plan.thought_id and plan.steps[0].tool == "list_orders"
    assert main(["   "]) == 2
    assert main(["x", "--now", "yesterday-ish"]) == 2
    assert main(["x", "--checkpoint", "/nonexistent/model"]) == 2
