"""The plan resolution step (tao.loop.resolve): defaults, multi-day expansion, every time symbol,
resolved_from, typed errors, the session user-id rule, strict SessionState."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

from tao.contracts import ErrorType, InsufficientContext, SessionState, ThoughtPlan
from tao.domains import reference_domain
from tao.loop.resolve import ResolveError, check_dump, resolve_output, resolve_plan, user_id_checker

TOOLS = reference_domain().tools
S = SessionState(
    user_id="U12345678", now=datetime(2026, 12, 2, 10, 0), timezone="Asia/Shanghai"
)  # a Wednesday


def plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i + 1}", **s} for i, s in enumerate(steps)]}
    )


def test_this_weekend_on_a_one_date_tool_becomes_two_steps() -> None:
    out = resolve_plan(
        plan({"tool": "get_weather", "arguments": {"city": "北京", "date": "@this_weekend"}}), S, TOOLS
    )
    assert [(s.step_id, s.arguments["date"]) for s in out.steps] == [
        ("t1", "2026-12-05"),
        ("t2", "2026-12-06"),
    ]
    assert all(s.resolved_from == {"date": "@this_weekend"} for s in out.steps)


def test_last_days_on_a_period_tool_is_a_period() -> None:
    out = resolve_plan(
        plan({"tool": "list_orders", "arguments": {"user_id": "U12345678", "period": "@last_days:7"}}),
        S,
        TOOLS,
    )
    assert out.steps[0].arguments["period"] == "2026-11-26/2026-12-02"
    assert out.steps[0].resolved_from == {"period": "@last_days:7"}


@pytest.mark.parametrize(
    "symbol,tool,arg,expected",
    [
        ("@today", "get_weather", "date", "2026-12-02"),
        ("@tomorrow", "get_weather", "date", "2026-12-03"),
        ("@day_after_tomorrow", "get_weather", "date", "2026-12-04"),
        ("@in_days:5", "get_weather", "date", "2026-12-07"),
        ("@tomorrow T15:00", "list_calendar_events", "date", "2026-12-03 15:00"),
        ("@last_month", "list_orders", "period", "2026-11-01/2026-11-30"),
        ("@this_week", "list_orders", "period", "2026-11-30/2026-12-06"),
        ("@next_weekend", "list_orders", "period", "2026-12-12/2026-12-13"),
        ("@this_weekend", "list_orders", "period", "2026-12-05/2026-12-06"),
        ("@next_days:3", "list_orders", "period", "2026-12-02/2026-12-04"),
    ],
)
def test_each_time_symbol_resolves(symbol, tool, arg, expected) -> None:
    args = (
        {"user_id": "U12345678"}
        if tool == "list_orders"
        else {"city": "Paris"}
        if tool == "get_weather"
        else {}
    )
    out = resolve_plan(plan({"tool": tool, "arguments": {**args, arg: symbol}}), S, TOOLS)
    assert out.steps[0].arguments[arg] == expected and out.steps[0].resolved_from == {arg: symbol}


def test_time_symbol_defaults_are_filled_and_resolved() -> None:
    out = resolve_plan(plan({"tool": "get_weather", "arguments": {"city": "Paris"}}), S, TOOLS)
    assert out.steps[0].arguments == {"city": "Paris", "date": "2026-12-02"}
    assert out.steps[0].resolved_from == {"date": "@today"}
    # other defaults are left to the tool unless asked for
    lo = plan({"tool": "list_orders", "arguments": {"user_id": "U12345678"}})
    assert resolve_plan(lo, S, TOOLS).steps[0].arguments == {"user_id": "U12345678"}


def test_references_follow_the_expansion_and_resolution_is_idempotent() -> None:
    p = plan(
        {"tool": "find_user", "arguments": {"name": "李雷"}},
        {
            "tool": "get_weather",
            "arguments": {"city": "${t1.city}", "date": "@this_weekend"},
            "dependencies": ["t1"],
        },
    )
    out = resolve_plan(p, S, TOOLS)
    assert [s.tool for s in out.steps] == ["find_user", "get_weather", "get_weather"]
    assert [s.dependencies for s in out.steps] == [[], ["t1"], ["t1"]]
    assert resolve_plan(out, S, TOOLS) == out
    assert p.steps[1].arguments["date"] == "@this_weekend"  # the input is not modified


def test_check_dump_drops_the_annotation_and_stamps() -> None:
    out = resolve_plan(plan({"tool": "get_weather", "arguments": {"city": "Paris"}}), S, TOOLS).stamped()
    d = check_dump(out)
    assert "thought_id" not in d and "resolved_from" not in d["steps"][0]


def test_an_unresolvable_symbol_is_a_typed_error() -> None:
    bad_tz = SessionState(now=S.now, timezone="Mars/Olympus")
    with pytest.raises(ResolveError) as ei:
        resolve_plan(plan({"tool": "get_weather", "arguments": {"city": "Paris"}}), bad_tz, TOOLS)
    assert (
        ei.value.error_info().error_type == ErrorType.PLAN_INVALID and ei.value.field == "/session/timezone"
    )
    with pytest.raises(ResolveError) as ei:
        resolve_plan(
            plan({"tool": "get_weather", "arguments": {"city": "Paris", "date": "@tomorrow T24:00"}}),
            S,
            TOOLS,
        )
    assert ei.value.field == "/steps/0/arguments/date"


def test_insufficient_context_passes_through() -> None:
    ins = InsufficientContext(required_fields=["user_id"])
    assert resolve_output(ins, S, TOOLS) is ins


def test_session_user_id_rule_comes_from_the_domain() -> None:
    d = reference_domain()
    check = user_id_checker(d.tools, d.lexicon)
    assert check("U12345678") is None
    for bad in ("u12345678", "U1234", "12345678", "${t1.user_id}", "@today", " "):
        assert check(bad), bad
    assert user_id_checker([], None)("anything") is None  # a domain without a user id kind


def test_session_state_forbids_unknown_fields() -> None:
    with pytest.raises(ValidationError) as ei:
        SessionState.model_validate({"user_id": "U12345678", "time_zone": "Europe/Paris"})
    assert ei.value.errors()[0]["loc"] == ("time_zone",)


def test_for_check_drops_only_the_annotation() -> None:
    from tao.loop.resolve import for_check

    out = resolve_plan(plan({"tool": "get_weather", "arguments": {"city": "Paris"}}), S, TOOLS)
    stripped = for_check(out)
    assert stripped.steps[0].resolved_from is None and stripped.steps[0].arguments == out.steps[0].arguments
