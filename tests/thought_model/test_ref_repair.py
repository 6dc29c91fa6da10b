"""References repaired after decoding (thought_model.ref_repair): a literal in the request wins over a
numeric reference, a reference implies its dependency, a reference moves to the step that produces
the output, and a step built on nothing is dropped."""

from __future__ import annotations

import json

import pytest

from tao.contracts import ThoughtPlan
from tao.domains.reference.registry import reference_tools
from thought_model.entities import perceive
from thought_model.grammar import PlanParseError
from thought_model.output_parse import parse_output
from thought_model.ref_repair import repair_references

TOOLS = reference_tools()
O1 = "293847561029384756"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.tool, s.arguments, s.dependencies) for s in p.steps]


def _expense(amount: object, deps: list[str] | None = None) -> dict:
    return {
        "tool": "submit_expense",
        "arguments": {"amount": amount, "category": "meal", "date": "2026-05-11", "description": "x"},
        "dependencies": deps or [],
    }


def test_a_number_of_the_request_wins_over_a_reference() -> None:
    p = perceive("报销两笔：今天打车35元，说明是去机场；今天餐费68元，说明是客户午餐")
    plan = _plan(_expense(35.0), _expense("${t1.amount}"))
    out = repair_references(plan, TOOLS, p)
    assert [s.arguments["amount"] for s in out.steps] == [35.0, 68.0]
    assert out.steps[1].dependencies == []


def test_a_reference_implies_its_dependency() -> None:
    p = perceive("Submit a 560 travel expense for yesterday, description: x, then tell me its status")
    plan = _plan(
        _expense(560.0),
        {"tool": "get_expense_status", "arguments": {"expense_id": "${t1.expense_id}"}},
    )
    assert _rows(repair_references(plan, TOOLS, p))[1] == (
        "get_expense_status",
        {"expense_id": "${t1.expense_id}"},
        ["t1"],
    )
    unchanged = _plan(_expense(560.0))
    assert repair_references(unchanged, TOOLS, p) is unchanged


def test_a_reference_moves_to_the_step_that_extracts_the_output() -> None:
    p = perceive(f"订单{O1}全额退款")
    plan = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O1}},
        {"tool": "get_logistics", "arguments": {"order_id": O1}},
        {
            "tool": "refund_payment",
            "arguments": {"order_id": O1, "amount": "${t2.amount}"},
            "dependencies": ["t2"],
        },
    )
    out = repair_references(plan, TOOLS, p)
    assert out.steps[2].arguments["amount"] == "${t1.amount}" and "t1" in out.steps[2].dependencies


def test_a_step_built_on_nothing_is_dropped_with_its_dependants() -> None:
    p = perceive("查下EXP48623497，看看我自己的档案")
    plan = _plan(
        {"tool": "get_expense_status", "arguments": {"expense_id": "EXP48623497"}},
        {"tool": "get_logistics", "arguments": {"order_id": "${t1.order_id}"}},
        {"tool": "get_user_profile", "arguments": {"user_id": "U55102938"}},
    )
    assert [s.tool for s in repair_references(plan, TOOLS, p).steps] == [
        "get_expense_status",
        "get_user_profile",
    ]


def test_parse_output_repairs_and_still_refuses_forward_references() -> None:
    text = json.dumps(
        {
            "version": "1.0",
            "intent": "submit_and_check_expense",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "submit_expense",
                    "arguments": _expense("<AMOUNT1>")["arguments"],
                    "dependencies": [],
                },
                {
                    "step_id": "t2",
                    "tool": "get_expense_status",
                    "arguments": {"expense_id": "${t1.expense_id}"},
                    "dependencies": [],
                },
            ],
        }
    )
    p = perceive("Submit a 560 travel expense, then its status")
    got = parse_output(text, p, None, TOOLS)
    assert isinstance(got, ThoughtPlan) and got.steps[1].dependencies == ["t1"]
    # a reference to the step itself reads the nearest earlier step that extracts the output
    own = text.replace('"${t1.expense_id}"', '"${t2.expense_id}"')
    got = parse_output(own, p, None, TOOLS)
    assert isinstance(got, ThoughtPlan) and got.steps[1].arguments["expense_id"] == "${t1.expense_id}"
    assert got.steps[1].dependencies == ["t1"]
    # a reference to a later step is still refused
    doc = json.loads(text)
    doc["steps"][0]["arguments"]["amount"] = "${t2.amount}"
    with pytest.raises(PlanParseError, match=r"SELF_DEPENDENCY|REFERENCE|dependenc|FORWARD|later"):
        parse_output(json.dumps(doc), p, None, TOOLS)


def test_a_self_reference_with_no_earlier_producer_is_dropped() -> None:
    p = perceive("查下EXP48623497，再改下手机号")
    plan = _plan(
        {"tool": "get_expense_status", "arguments": {"expense_id": "EXP48623497"}},
        {"tool": "get_logistics", "arguments": {"order_id": "${t2.order_id}"}},
    )
    assert [s.tool for s in repair_references(plan, TOOLS, p).steps] == ["get_expense_status"]
