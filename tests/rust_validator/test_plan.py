"""PlanChecker / check_plan against the reference registry."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import rust_validator as rv
from tao.contracts import ThoughtPlan
from tao.domains.reference.registry import reference_tools


def plan(*steps: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"version": "1.0", "intent": "order_status", "steps": list(steps), **kw}


T1 = {"step_id": "t1", "tool": "find_user", "arguments": {"name": "李雷"}, "dependencies": []}
T2 = {
    "step_id": "t2",
    "tool": "list_orders",
    "arguments": {"user_id": "${t1.user_id}", "period": "@last_month"},
    "dependencies": ["t1"],
}


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["code"], e["path"]) for e in report["errors"]]


def test_valid_plan_and_order() -> None:
    p = plan(T1, T2, thought_id="abc", created_at="2024-05-01T10:00:00+08:00")
    ThoughtPlan.model_validate(p)
    out = rv.check_plan(p)
    assert out == {"valid": True, "errors": [], "order": ["t1", "t2"]}
    assert rv.check_plan(orjson.dumps(p)) == out
    assert rv.check_plan(orjson.dumps(p).decode()) == out


def test_registry_forms_agree() -> None:
    tools = reference_tools()
    by_list = rv.PlanChecker([t.model_dump(mode="json") for t in tools])
    by_dict = rv.PlanChecker({t.name: t.args_schema for t in tools})
    assert sorted(by_list.tools) == sorted(by_dict.tools) == sorted(t.name for t in tools)
    p = plan(T1, dict(T2, arguments={"user_id": "x"}))
    assert by_list.check(p) == by_dict.check(p) == rv.check_plan(p, {t.name: t.args_schema for t in tools})


@pytest.mark.parametrize(
    "steps,expected",
    [
        ([T1, dict(T2, step_id="t1")], [("DUPLICATE_STEP_ID", "/steps/1/step_id")]),
        ([T1, dict(T2, dependencies=["t1", "t5"])], [("UNKNOWN_DEPENDENCY", "/steps/1/dependencies/1")]),
        ([dict(T1, dependencies=["t1"])], [("SELF_DEPENDENCY", "/steps/0/dependencies/0")]),
        (
            [dict(T1, dependencies=["t2"]), T2],
            [("LATER_DEPENDENCY", "/steps/0/dependencies/0"), ("CYCLE", "/steps")],
        ),
        ([dict(T1, tool="teleport")], [("UNKNOWN_TOOL", "/steps/0/tool")]),
        ([dict(T1, arguments={"email": "not-an-email"})], [("ARGUMENT_INVALID", "/steps/0/arguments/email")]),
        ([dict(T1, arguments={"nick": "x"})], [("ARGUMENT_INVALID", "/steps/0/arguments")]),
        ([T1, dict(T2, dependencies=[])], [("REFERENCE_NOT_DEPENDENCY", "/steps/1/arguments/user_id")]),
    ],
)
def test_each_error(steps, expected) -> None:
    out = rv.check_plan(plan(*steps))
    assert not out["valid"]
    assert codes(out) == expected, out


def test_reference_is_not_type_checked_but_must_be_a_reference() -> None:
    book = {
        "step_id": "t2",
        "tool": "book_meeting_room",
        "dependencies": ["t1"],
        "arguments": {
            "room_id": "${t1.room_id}",
            "start": "@tomorrow T15:00",
            "duration_min": "${t1.minutes}",
        },
    }
    find = {
        "step_id": "t1",
        "tool": "find_meeting_room",
        "arguments": {"start": "@tomorrow T15:00", "duration_min": 60, "capacity": 5},
    }
    assert rv.check_plan(plan(find, book))["valid"]
    bad = dict(book, arguments=dict(book["arguments"], duration_min="sixty"))
    assert codes(rv.check_plan(plan(find, bad))) == [("ARGUMENT_INVALID", "/steps/1/arguments/duration_min")]


@pytest.mark.parametrize(
    "doc",
    [
        {"intent": "x_y", "steps": []},
        {"intent": "x_y", "steps": [T1] * 8},
        {"error": "insufficient_context", "required_fields": ["user_id"]},
        {"version": "2.0", "intent": "x_y", "steps": [T1]},
        plan(dict(T1, step_id="s1")),
        plan(T1, created_at="yesterday"),
    ],
)
def test_schema_errors(doc) -> None:
    out = rv.check_plan(doc)
    assert not out["valid"] and out["order"] == []
    assert {e["code"] for e in out["errors"]} == {"SCHEMA"}


def test_bad_input_and_bad_registry() -> None:
    with pytest.raises(rv.ValidationInputError):
        rv.check_plan(b'{"intent": "x", "intent": "y"}')
    with pytest.raises(rv.CompileError):
        rv.PlanChecker({"t": {"type": "nope"}})
    with pytest.raises(rv.CompileError):
        rv.PlanChecker([{"name": "no_schema"}])


def test_embedded_schema_matches_export(request: pytest.FixtureRequest) -> None:
    root = request.config.rootpath
    assert orjson.loads(rv.THOUGHT_PLAN_SCHEMA) == orjson.loads(
        (root / "schemas" / "thought_plan.json").read_bytes()
    )
