"""The plan check and the resolver accept a step reference in a numeric argument
(``refund_payment.amount = ${t1.amount}``) and still reject what is wrong around it."""

from __future__ import annotations

from datetime import datetime

import pytest

from tao.action.refs import StepOutput, resolve_refs
from tao.contracts import ErrorType, SessionState, ThoughtPlan
from tao.domains.reference.registry import RefundPaymentArgs, reference_tools
from tao.loop.plancheck import PlanValidator
from tao.loop.resolve import resolve_plan

TOOLS = reference_tools()
ORDER = "293847561029384756"


def _plan(amount: object, deps: list[str] | None = None) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "refund_full_amount",
            "steps": [
                {"step_id": "t1", "tool": "get_order_status", "arguments": {"order_id": ORDER}},
                {
                    "step_id": "t2",
                    "tool": "refund_payment",
                    "arguments": {"order_id": ORDER, "amount": amount},
                    "dependencies": ["t1"] if deps is None else deps,
                },
            ],
        }
    )


def test_plan_check_accepts_a_reference_in_a_number_field() -> None:
    errors, order, typ = PlanValidator(TOOLS).classify(_plan("${t1.amount}"))
    assert (errors, order, typ) == ([], ["t1", "t2"], None)


@pytest.mark.parametrize(
    ("amount", "deps", "why"),
    [
        ("all of it", None, "a string that is not a reference"),
        (-3, None, "a number out of range"),
        ("${t1.amount}", [], "a reference to a step that is not a dependency"),
        ("${t3.amount}", None, "a reference to an unknown step"),
    ],
)
def test_plan_check_still_rejects(amount: object, deps: list[str] | None, why: str) -> None:
    errors, _, typ = PlanValidator(TOOLS).classify(_plan(amount, deps))
    assert typ is ErrorType.PLAN_INVALID and errors, why


def test_resolver_keeps_the_reference_and_the_resolved_plan_checks() -> None:
    session = SessionState(user_id="U10000001", now=datetime(2026, 3, 5, 9))
    out = resolve_plan(_plan("${t1.amount}"), session, TOOLS)
    assert out.steps[1].arguments == {"order_id": ORDER, "amount": "${t1.amount}"}
    assert out.steps[1].resolved_from is None
    assert PlanValidator(TOOLS).classify(out)[2] is None


def test_the_reference_becomes_the_earlier_steps_number_at_run_time() -> None:
    outputs = {"t1": StepOutput(extracted={"order_id": ORDER, "status": "paid", "amount": 129.9})}
    args = resolve_refs({"order_id": ORDER, "amount": "${t1.amount}"}, outputs)
    assert args["amount"] == 129.9 and isinstance(args["amount"], float)
    assert RefundPaymentArgs.model_validate(args).amount == 129.9
