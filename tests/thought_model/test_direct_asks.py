"""Profile-field sets and list-everything asks planned by code (thought_model/direct_asks.py)."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.direct_asks import direct_plan, list_all, profile_update, unmasked
from thought_model.entities import perceive

TODAY = date(2026, 6, 10)
TOOLS = {"update_user_profile", "find_user", "list_invoices", "list_expenses", "list_orders"}


def _p(text: str):  # type: ignore[no-untyped-def]
    return perceive(text, today=TODAY)


@pytest.mark.parametrize(
    "text, want",
    [
        ("把我的姓名改成刘晓东", ("name", "刘晓东")),
        ("名子改为周子涵", ("name", "周子涵")),
        ("我的名字改一下，改成马一鸣", ("name", "马一鸣")),
        ("change my phone to +44 20 7946 0958", ("phone", "+44 20 7946 0958")),
        ("update my name to Sean O'Brien", ("name", "Sean O'Brien")),
        ("set my name to amy lin", ("name", "Amy Lin")),
        ("由箱改成 abc@qq.com", ("email", "abc@qq.com")),
    ],
)
def test_profile_update(text: str, want: tuple[str, str]) -> None:
    p = _p(text)
    assert profile_update(unmasked(p), p.masked) == want


@pytest.mark.parametrize(
    "text",
    [
        "孙悦改下城市，改成南京",
        "把他的名字改成王五",
        "把名字改成李雷，电话改成13812345678",
        "change my city to Paris",
    ],
)
def test_no_profile_update(text: str) -> None:
    p = _p(text)
    assert profile_update(unmasked(p), p.masked) is None


def test_unmasked_gives_the_normalized_text_back() -> None:
    text = "给 a@b.cn 发邮件，主题：周报，正文：本周进度正常"
    assert unmasked(_p(text)) == text


@pytest.mark.parametrize(
    "text, tool",
    [
        ("Show me every invoice I have", "list_invoices"),
        ("all of my reimbursement requests please", "list_expenses"),
        ("list my claims from last month", "list_expenses"),
        ("我的发票都列一下", "list_invoices"),
        ("看看我所有的报销单", "list_expenses"),
        ("expenses from the past 30 days", "list_expenses"),
    ],
)
def test_list_all(text: str, tool: str) -> None:
    p = _p(text)
    assert list_all(unmasked(p), p.masked) == tool


@pytest.mark.parametrize(
    "text", ["查一下发票 INV1234567890", "show the invoice for order 123456789012345678", "cancel my order"]
)
def test_no_list_all(text: str) -> None:
    p = _p(text)
    assert list_all(unmasked(p), p.masked) is None


def test_direct_plan_list_takes_the_period() -> None:
    p = _p("list my claims from last month")
    plan = direct_plan(unmasked(p), p.masked, p.slots, "U10000001", TOOLS, True, set())
    assert plan is not None
    assert [(s.tool, s.arguments) for s in plan.steps] == [
        ("list_expenses", {"user_id": "U10000001", "period": "@last_month"})
    ]


def test_direct_plan_keeps_a_plan_of_other_tools() -> None:
    p = _p("把我的名字改成王小明")
    assert direct_plan(unmasked(p), p.masked, p.slots, "U10000001", TOOLS, False, {"send_email"}) is None
    plan = direct_plan(
        unmasked(p), p.masked, p.slots, "U10000001", TOOLS, False, {"find_user", "update_user_profile"}
    )
    assert plan is not None and plan.steps[0].arguments == {
        "user_id": "U10000001",
        "field": "name",
        "value": "王小明",
    }


def test_direct_plan_needs_a_session_user() -> None:
    p = _p("把我的名字改成王小明")
    assert direct_plan(unmasked(p), p.masked, p.slots, None, TOOLS, True, set()) is None
