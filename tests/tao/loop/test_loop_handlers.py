"""Every error type of the taxonomy reaches its self-correction handler, over the real mock
service, with replayed plans (the plan is the test's input)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from action_helpers import demo_session, make_executor, make_loop, plan

from tao.contracts import ErrorInfo, ErrorType, EventKind, InsufficientContext
from tao.loop.correction import HANDLERS


def corrections(report) -> list[tuple[str, str, str]]:
    return [
        (e.payload["error_type"], e.payload["handler"], e.payload["action"])
        for e in report.events
        if e.kind is EventKind.CORRECTION
    ]


def order(mock, status: str) -> str:
    return next(o for o, v in mock.data.orders.items() if v["status"] == status)


def python_tool_registry(url: str):
    """Reference tools over HTTP plus one in-process tool returning a numeric string."""
    from pydantic import BaseModel

    ex = make_executor(url, max_retries=0)

    class Args(BaseModel):
        team: str

    @ex.registry.function(
        name="team_size",
        description="head count of a team, as text",
        args_model=Args,
        extract={"capacity": "/capacity"},
    )
    def team_size(team: str) -> dict:
        return {"capacity": " 8"}

    return ex


# scenario: (id, setup(mock) -> plans, expected status, expected error_type, expected correction, loop kwargs)
Setup = Callable[[Any], Any]


def _timeout_retry(m):
    m.script("timeout", tools=["get_weather"])
    return plan(("t1", "get_weather", {"city": "上海", "date": "@tomorrow"}))


def _timeout_fallback(m):
    m.script("timeout", "timeout", tools=["get_logistics"])
    return plan(("t1", "get_logistics", {"order_id": order(m, "shipped")}))


def _transient(m):
    m.script("500", tools=["get_user_profile"])
    return plan(("t1", "get_user_profile", {"user_id": "U00000002"}))


def _malformed(m):
    m.script("malformed", tools=["get_user_profile"])
    return plan(("t1", "get_user_profile", {"user_id": "U00000002"}))


def _rate_limited(m):
    m.script("429", tools=["get_user_profile"])
    return plan(("t1", "get_user_profile", {"user_id": "U00000002"}))


def _schema_violation(m):
    m.script("empty", tools=["get_order_status"])
    return plan(("t1", "get_order_status", {"order_id": order(m, "paid")}))


def _client_error(m):
    return plan(("t1", "get_order_status", {"order_id": "209901010000000000"}))


def _arg_repaired(m):
    return plan(
        ("t1", "team_size", {"team": "infra"}),
        (
            "t2",
            "find_meeting_room",
            {"start": "@tomorrow T15:00", "duration_min": 60, "capacity": "${t1.capacity}"},
            ["t1"],
        ),
    )


def _client_error_repaired(m):
    return plan(("t1", "find_user", {"name": m.data.users["U00000005"]["name"] + " "}))  # 404, then trimmed


def _arg_unfixable(m):
    # a value only known at run time breaks the schema (a city where an order id goes): the plan
    # check cannot see it, the executor's argument check can. (A resolved time symbol that breaks
    # the schema, e.g. weather on "@this_week", is now a PLAN_INVALID: see _time_symbol_invalid.)
    return plan(
        ("t1", "get_user_profile", {"user_id": "U00000002"}),
        ("t2", "get_order_status", {"order_id": "${t1.city}"}, ["t1"]),
    )


def _time_symbol_invalid(m):
    return plan(("t1", "get_weather", {"city": "北京", "date": "@this_week"}))


def _llm_malformed(m):
    return ['{"intent": "x", "steps": [', plan(("t1", "get_user_profile", {"user_id": "U00000002"}))]


def _plan_invalid(m):
    bad = plan(
        ("t1", "get_user_profile", {"user_id": "U00000002"}),
        ("t2", "get_order_status", {"order_id": "${t1.order_id}"}),
    )  # reference without dependency
    return [bad, plan(("t1", "get_user_profile", {"user_id": "U00000002"}))]


def _unknown_tool(m):
    bad = plan(("t1", "get_user_profile", {"user_id": "U00000002"}))
    bad["steps"][0]["tool"] = "drop_database"
    return [bad, bad]


def _inconsistent_fallback(m):
    m.patch("get_logistics", {"order_id": "209901010000000000"})
    return plan(("t1", "get_logistics", {"order_id": order(m, "shipped")}))


def _inconsistent_escalate(m):
    m.patch("get_order_status", {"order_id": "209901010000000000"})
    return plan(("t1", "get_order_status", {"order_id": order(m, "paid")}))


def _rule_violation(m):
    return plan(("t1", "get_logistics", {"order_id": order(m, "pending")}))  # not shipped: status unknown


def _low_confidence(m):
    return plan(("t1", "get_user_profile", {"user_id": "U00000002"}))


def _permission(m):
    return plan(("t1", "send_email", {"to": "li.na@example.com", "subject": "hi", "body": "hello"}))


def _insufficient(m):
    return InsufficientContext(required_fields=["order_id"], intent="order_status")


def _dependency(m):
    return plan(
        ("t1", "list_orders", {"user_id": "U00000007", "period": "@last_month"}),  # a user with no orders
        ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
    )


def _dependency_failed(m):
    return plan(
        ("t1", "get_order_status", {"order_id": "209901010000000000"}),
        ("t2", "get_logistics", {"order_id": "${t1.order_id}"}, ["t1"]),
    )


def _circuit_open(m):
    m.faults(error_rate=1.0, tools=["get_weather"])
    return plan(
        *[
            (f"t{i}", "get_weather", {"city": c, "date": "@today"})
            for i, c in enumerate(["北京", "上海", "广州", "深圳", "杭州", "成都"], 1)
        ]
    )


def _budget(m):
    m.svc.state.faults = type(m.svc.state.faults)(slow_rate=1.0, slow_s=3.0, tools=["get_weather"])
    return plan(("t1", "get_weather", {"city": "北京"}))


def _llm_error(m):
    return ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message="grammar dead end")


SCENARIOS = [
    ("timeout_retry", _timeout_retry, "success", None, ("TOOL_TIMEOUT", "retry_then_fallback", "retry"), {}),
    (
        "timeout_fallback",
        _timeout_fallback,
        "success",
        None,
        ("TOOL_TIMEOUT", "retry_then_fallback", "fallback"),
        {"_exec": {"use_fallback": False}},
    ),  # the loop's handler, not the executor's own fallback
    ("transient", _transient, "success", None, ("TOOL_TRANSIENT", "retry_then_fallback", "retry"), {}),
    (
        "malformed",
        _malformed,
        "success",
        None,
        ("TOOL_MALFORMED_RESPONSE", "retry_then_fallback", "retry"),
        {},
    ),
    ("rate_limited", _rate_limited, "success", None, ("RATE_LIMITED", "retry_then_fallback", "retry"), {}),
    (
        "schema_violation",
        _schema_violation,
        "needs_user",
        "TOOL_SCHEMA_VIOLATION",
        ("TOOL_SCHEMA_VIOLATION", "repair_or_ask_user", "ask_user"),
        {},
    ),
    (
        "client_error",
        _client_error,
        "needs_user",
        "TOOL_CLIENT_ERROR",
        ("TOOL_CLIENT_ERROR", "repair_or_ask_user", "ask_user"),
        {},
    ),
    (
        "client_error_repaired",
        _client_error_repaired,
        "success",
        None,
        ("TOOL_CLIENT_ERROR", "repair_or_ask_user", "repair"),
        {},
    ),
    (
        "arg_repaired",
        _arg_repaired,
        "success",
        None,
        ("TOOL_ARGUMENT_INVALID", "repair_or_ask_user", "repair"),
        {},
    ),
    (
        "arg_unfixable",
        _arg_unfixable,
        "needs_user",
        "TOOL_ARGUMENT_INVALID",
        ("TOOL_ARGUMENT_INVALID", "repair_or_ask_user", "ask_user"),
        {},
    ),
    (
        "time_symbol_invalid",
        _time_symbol_invalid,
        "failed",
        "PLAN_INVALID",
        ("PLAN_INVALID", "replan_strict", "replan"),
        {},
    ),
    (
        "llm_malformed",
        _llm_malformed,
        "success",
        None,
        ("LLM_OUTPUT_MALFORMED", "replan_strict", "replan"),
        {},
    ),
    (
        "llm_error",
        _llm_error,
        "failed",
        "LLM_OUTPUT_MALFORMED",
        ("LLM_OUTPUT_MALFORMED", "replan_strict", "replan"),
        {},
    ),
    ("plan_invalid", _plan_invalid, "success", None, ("PLAN_INVALID", "replan_strict", "replan"), {}),
    (
        "unknown_tool",
        _unknown_tool,
        "failed",
        "TOOL_UNKNOWN",
        ("TOOL_UNKNOWN", "replan_strict", "replan"),
        {},
    ),
    (
        "inconsistent_fallback",
        _inconsistent_fallback,
        "success",
        None,
        ("OBSERVATION_INCONSISTENT", "cross_check_fallback", "fallback"),
        {},
    ),
    (
        "inconsistent_escalate",
        _inconsistent_escalate,
        "needs_user",
        "OBSERVATION_INCONSISTENT",
        ("OBSERVATION_INCONSISTENT", "cross_check_fallback", "escalate"),
        {},
    ),
    (
        "rule_violation",
        _rule_violation,
        "success",
        None,
        ("RULE_VIOLATION", "cross_check_fallback", "fallback"),
        {},
    ),
    (
        "low_confidence",
        _low_confidence,
        "needs_user",
        "LOW_CONFIDENCE",
        ("LOW_CONFIDENCE", "escalate_human", "escalate"),
        {"min_confidence": 1.01},
    ),
    (
        "permission",
        _permission,
        "needs_approval",
        "PERMISSION_DENIED",
        ("PERMISSION_DENIED", "need_approval", "need_approval"),
        {},
    ),
    ("insufficient", _insufficient, "needs_user", "INSUFFICIENT_CONTEXT", None, {}),
    ("dependency", _dependency, "failed", "DEPENDENCY_MISSING", None, {}),
    ("dependency_failed", _dependency_failed, "needs_user", "TOOL_CLIENT_ERROR", None, {}),
    (
        "circuit_open",
        _circuit_open,
        "failed",
        "TOOL_TRANSIENT",
        ("TOOL_CIRCUIT_OPEN", "fallback_or_fail", "fail"),
        {"max_concurrency": 1},
    ),
    ("budget", _budget, "failed", "BUDGET_EXHAUSTED", None, {"wall_time_s": 0.6}),
]


@pytest.mark.parametrize(
    "name,setup,status,error_type,correction,loop_kw", SCENARIOS, ids=[s[0] for s in SCENARIOS]
)
async def test_error_reaches_its_handler(
    mock_tools, name, setup, status, error_type, correction, loop_kw
) -> None:
    ex = python_tool_registry(mock_tools.url)
    loop_kw = dict(loop_kw)
    for k, v in loop_kw.pop("_exec", {}).items():
        setattr(ex.config, k, v)
    loop, _ = make_loop(ex, setup(mock_tools), **loop_kw)
    t = time.perf_counter()
    report = await loop.run("test request", demo_session())
    elapsed = time.perf_counter() - t
    await ex.aclose()
    assert report.status == status, (report.message, report.steps)
    assert report.error_type == error_type, report.message
    if correction is not None:
        assert correction in corrections(report), corrections(report)
    assert elapsed < 5.0
    kinds = [e.kind for e in report.events]
    assert kinds[0] is EventKind.CONTEXT_BUILT and kinds[-1] is EventKind.FINAL


def test_every_error_type_has_a_handler_and_every_handler_is_exercised() -> None:
    assert set(HANDLERS) == set(ErrorType)
    exercised = {s[4][1] for s in SCENARIOS if s[4]}
    # ask_user and fail end the run without a correction event; their error types are asserted above
    stops = {s[3] for s in SCENARIOS if s[4] is None}
    assert {"INSUFFICIENT_CONTEXT", "DEPENDENCY_MISSING", "BUDGET_EXHAUSTED"} <= stops
    assert set(HANDLERS.values()) == exercised | {"ask_user", "fail"}


async def test_details_of_selected_scenarios(mock_tools) -> None:
    ex = python_tool_registry(mock_tools.url)
    # the repaired argument is the coerced integer, and the fallback result says where it came from
    loop, _ = make_loop(ex, _arg_repaired(mock_tools))
    rep = await loop.run("room for the infra team", demo_session())
    assert rep.steps[1].arguments["capacity"] == 8 and rep.steps[1].arguments["start"] == "2026-11-16 15:00"
    loop, _ = make_loop(ex, _rule_violation(mock_tools))
    rep = await loop.run("where is my order", demo_session())
    assert rep.steps[0].tool_used == "get_order_status" and rep.steps[0].from_fallback == "get_logistics"
    # dependency missing: the tool with the hole in its input is never called
    calls_before = mock_tools.stats()["calls"].get("get_order_status", 0)
    loop, _ = make_loop(ex, _dependency(mock_tools))
    rep = await loop.run("上个月的订单状态", demo_session(user_id="U00000007"))
    assert rep.steps[0].status == "ok" and rep.steps[0].extracted["count"] == 0
    assert rep.steps[1].status == "failed" and "never arrived" in rep.steps[1].message
    assert mock_tools.stats()["calls"].get("get_order_status", 0) == calls_before
    # a failed dependency skips the dependent step (and the run reports the root cause)
    loop, _ = make_loop(ex, _dependency_failed(mock_tools))
    rep = await loop.run("x", demo_session())
    assert [s.status for s in rep.steps] == ["needs_user", "skipped"] and rep.steps[
        1
    ].error_type == "DEPENDENCY_MISSING"
    # insufficient context names the missing fields; malformed re-plan asks the planner strictly
    loop, _ = make_loop(ex, _insufficient(mock_tools))
    rep = await loop.run("x", demo_session())
    assert rep.required_fields == ["order_id"]
    loop, _ = make_loop(ex, _llm_malformed(mock_tools))
    rep = await loop.run("x", demo_session())
    reqs = [e.payload["strict"] for e in rep.events if e.kind is EventKind.MODEL_REQUEST]
    assert reqs == [False, True] and loop.planner.calls == 2
    await ex.aclose()
