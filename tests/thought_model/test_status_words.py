"""Status filters of the list tools from the request's words (thought_model.status_words)."""

from __future__ import annotations

import pytest

from tao.contracts import ThoughtPlan
from thought_model.status_words import fix_status, status_of

ME = "U55102938"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


@pytest.mark.parametrize(
    ("tool", "text", "want"),
    [
        ("list_orders", "我待支付的订单有哪些", "pending"),
        ("list_orders", "show my delivered orders", "delivered"),
        ("list_orders", "客户李晓梅上个月有哪些订单已经签收了", "delivered"),
        ("list_orders", "list my refunded orders from last month", "refunded"),
        ("list_expenses", "看看我还在审批中的报销", "submitted"),
        ("list_expenses", "看看我被駁回的報銷", "rejected"),
        ("list_expenses", "哪些报销没通过", "rejected"),  # not approved: the negated form wins
        ("list_expenses", "show my approved expenses this month", "approved"),
        ("list_invoices", "show my void invoices", "void"),
        ("list_orders", "list my orders", None),
        ("list_orders", "has my order shipped yet?", None),  # a question, not a filter
        ("list_orders", "show my pending and delivered orders", False),
    ],
)
def test_status_words(tool: str, text: str, want: object) -> None:
    assert status_of(tool, text) == want


def test_a_dropped_status_is_set_and_an_invented_one_removed() -> None:
    plan = _plan({"tool": "list_orders", "arguments": {"user_id": ME}})
    assert fix_status(plan, "我待支付的订单有哪些").steps[0].arguments == {"user_id": ME, "status": "pending"}
    invented = _plan({"tool": "list_invoices", "arguments": {"user_id": ME, "status": "issued"}})
    assert fix_status(invented, "can you dig up whatever invoices I racked up this week").steps[
        0
    ].arguments == {"user_id": ME}
    same = _plan({"tool": "list_orders", "arguments": {"user_id": ME, "status": "pending"}})
    assert fix_status(same, "my pending orders") is same


def test_a_list_that_a_later_step_needs_is_left_alone() -> None:
    plan = _plan(
        {"tool": "list_expenses", "arguments": {"user_id": ME}},
        {
            "tool": "get_expense_status",
            "arguments": {"expense_id": "${t1.expense_id}"},
            "dependencies": ["t1"],
        },
    )
    assert fix_status(plan, "is my last expense claim paid? and which claims were approved") is plan


@pytest.mark.parametrize(
    ("tool", "text", "want"),
    [
        ("list_orders", "没付钱的单子", "pending"),
        ("list_orders", "我取消了哪些订单", "cancelled"),
        ("list_orders", "我运送途中的订单", "in_transit"),
        ("list_invoices", "还在处理中的发票", "pending"),
        ("list_invoices", "开具成功的发票", "issued"),
        ("list_expenses", "上个月已经打款的报销", "paid"),
        ("list_expenses", "被打回来的报销", "rejected"),
        ("list_expenses", "本月审批通过的报销", "approved"),
        ("list_expenses", "list my submitted expense claims", "submitted"),
        ("list_expenses", "expenses I submitted last month", None),
        ("list_expenses", "报销打款了吗", None),
    ],
)
def test_round11_status_words(tool: str, text: str, want: str | None) -> None:
    assert status_of(tool, text) == want
