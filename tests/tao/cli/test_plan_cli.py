"""`tao plan`: resolved plans with resolved_from, the user-id rule before the model loads, typed
errors; HFPlanner's per-row typed errors."""

from __future__ import annotations

import json

import pytest

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, ThoughtPlan
from tao.domains import reference_domain


class _FakeGen:
    tools = reference_domain().tools
    lexicon = reference_domain().lexicon


class _FakePlanner:
    loaded = 0
    result: object = None

    def __init__(self, checkpoint, registry=None) -> None:
        type(self).loaded += 1
        self.gen = _FakeGen()

    def plan(self, request, session):
        return type(self).result


@pytest.fixture
def fake(monkeypatch):
    import thought_model.hf_planner as hp

    _FakePlanner.loaded = 0
    monkeypatch.setattr(hp, "HFPlanner", _FakePlanner)
    return _FakePlanner


def test_tao_plan_prints_resolved_arguments_with_resolved_from(fake, capsys) -> None:
    from tao.cli.plan_cli import main

    fake.result = ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "get_weather",
                    "arguments": {"city": "北京", "date": "@this_weekend"},
                },
                {
                    "step_id": "t2",
                    "tool": "list_orders",
                    "arguments": {"user_id": "U10000001", "period": "@last_days:7"},
                },
            ],
        }
    )
    assert main(["这周末北京天气，再查我最近7天的订单", "--now", "2026-12-02T10:00:00"]) == 0
    out = json.loads(capsys.readouterr().out)
    steps = out["steps"]
    assert [(s["tool"], s["arguments"].get("date") or s["arguments"].get("period")) for s in steps] == [
        ("get_weather", "2026-12-05"),
        ("get_weather", "2026-12-06"),
        ("list_orders", "2026-11-26/2026-12-02"),
    ]
    assert [s["resolved_from"] for s in steps] == [
        {"date": "@this_weekend"},
        {"date": "@this_weekend"},
        {"period": "@last_days:7"},
    ]
    assert out["thought_id"]


def test_tao_plan_refuses_a_bad_user_id_before_loading_the_model(fake, capsys) -> None:
    from tao.cli.plan_cli import main

    assert main(["我的订单", "--user-id", "bob"]) == 2
    assert "bob" in capsys.readouterr().err and fake.loaded == 0


def test_tao_plan_typed_errors(fake, capsys) -> None:
    from tao.cli.plan_cli import main

    fake.result = ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message="bad output")
    assert main(["x"]) == 1
    assert json.loads(capsys.readouterr().err)["error_type"] == "LLM_OUTPUT_MALFORMED"
    fake.result = InsufficientContext(required_fields=["user_id"])
    assert main(["我的订单", "--no-user"]) == 0
    assert json.loads(capsys.readouterr().out)["required_fields"] == ["user_id"]


@pytest.mark.slow
def test_hf_planner_plan_batch_types_errors_per_row() -> None:
    from thought_model.hf_planner import DEFAULT_CHECKPOINT, HFPlanner

    planner = HFPlanner(DEFAULT_CHECKPOINT)
    gen = planner.gen
    real_prepare, real_generate = gen.prepare, gen.generate_prepared

    def prepare(request, session):
        if request == "boom":
            raise RuntimeError("perception exploded")
        return real_prepare(request, session)

    def generate_prepared(prepared, constrained=True):
        outs = real_generate(prepared, constrained)
        return [("{not json", 3) if "garbage" in p.text else o for p, o in zip(prepared, outs)]

    gen.prepare, gen.generate_prepared = prepare, generate_prepared
    got = planner.plan_batch(["boom", "garbage please", "what's the weather in Paris tomorrow?"], [None] * 3)
    assert isinstance(got[0], ErrorInfo) and got[0].error_type == ErrorType.PLAN_INVALID
    assert isinstance(got[1], ErrorInfo) and got[1].error_type == ErrorType.LLM_OUTPUT_MALFORMED
    assert isinstance(got[2], ThoughtPlan) and got[2].steps[0].tool == "get_weather"
    assert isinstance(planner.plan("boom"), ErrorInfo)  # plan() returns the error, never raises
