"""The Python fallbacks of the plan and observation checks agree with the Rust checkers
(valid or not, and the error type) on the cases the loop relies on."""

from __future__ import annotations

import pytest

from tao.contracts import ActionResult, ErrorInfo, ErrorType, ThoughtPlan
from tao.domains.reference.registry import reference_registry
from tao.loop.plancheck import PlanValidator
from tao.observe.observer import Observer

REG = reference_registry()
SCHEMAS = {n: s.args_schema for n, s in REG.items()}


def _plan(*steps) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "x_y",
            "steps": [
                {"step_id": sid, "tool": tool, "arguments": args, "dependencies": deps}
                for sid, tool, args, deps in steps
            ],
        }
    )


PLANS = [
    (
        _plan(
            ("t1", "list_orders", {"user_id": "U00000001", "period": "@last_month"}, []),
            ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
        ),
        None,
    ),
    (_plan(("t1", "nope", {}, [])), ErrorType.TOOL_UNKNOWN),
    (_plan(("t1", "get_user_profile", {"user_id": "bad"}, [])), ErrorType.PLAN_INVALID),
    (
        _plan(
            ("t1", "get_user_profile", {"user_id": "U00000001"}, []),
            ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, []),
        ),
        ErrorType.PLAN_INVALID,
    ),
    (
        _plan(
            ("t1", "get_user_profile", {"user_id": "U00000001"}, ["t2"]),
            ("t2", "get_user_profile", {"user_id": "U00000002"}, ["t1"]),
        ),
        ErrorType.PLAN_INVALID,
    ),
    (_plan(("t1", "get_weather", {"city": "北京", "extra": 1}, [])), ErrorType.PLAN_INVALID),
]


@pytest.mark.parametrize("plan,expected", PLANS)
def test_plan_backends_agree(plan, expected) -> None:
    rust, py = PlanValidator(SCHEMAS), PlanValidator(SCHEMAS, prefer_rust=False)
    assert rust.backend == "rust" and py.backend == "python"
    r, p = rust.classify(plan), py.classify(plan)
    assert r[2] == p[2] == expected, (r[0], p[0])
    if expected is None:
        assert r[1] == p[1] == ["t1", "t2"]


def _res(tool: str, data, status: int = 200, err: ErrorType | None = None) -> ActionResult:
    return ActionResult(
        tool=tool,
        status_code=status,
        parsed_data=data,
        response_time_ms=3.0,
        error_info=ErrorInfo(error_type=err, message="x") if err else None,
    )


RESULTS = [
    ("get_order_status", _res("get_order_status", {"order_id": "1", "status": "paid", "amount": 3}), None),
    (
        "get_order_status",
        _res("get_order_status", {"order_id": "1", "status": "lost"}),
        "TOOL_SCHEMA_VIOLATION",
    ),
    ("get_order_status", _res("get_order_status", {}), "TOOL_SCHEMA_VIOLATION"),
    ("get_logistics", _res("get_logistics", {"order_id": "1", "status": "unknown"}), "RULE_VIOLATION"),
    ("get_logistics", _res("get_logistics", {"order_id": "1", "status": "In Transit"}), None),
    ("get_user_profile", _res("get_user_profile", None, 404), "TOOL_CLIENT_ERROR"),
    ("get_user_profile", _res("get_user_profile", None, None, ErrorType.TOOL_TIMEOUT), "TOOL_TIMEOUT"),
    (
        "get_weather",
        _res("get_weather", {"city": "北京", "condition": "晴", "temperature_c": 20, "humidity": "65%"}),
        None,
    ),
]


@pytest.mark.parametrize("tool,result,expected", RESULTS)
def test_observation_backends_agree(tool, result, expected) -> None:
    rust, py = Observer(), Observer(prefer_rust=False)
    assert rust.backend == "rust" and py.backend == "python"
    r, p = rust.observe(REG[tool], result), py.observe(REG[tool], result)
    assert r.valid == p.valid == (expected is None)
    assert (
        (r.error_type.value if r.error_type else None)
        == (p.error_type.value if p.error_type else None)
        == expected
    )
    if expected is None:
        assert r.extracted_data == p.extracted_data
