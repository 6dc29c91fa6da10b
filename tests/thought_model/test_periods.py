"""Periods of the list tools from the request's date words (thought_model.periods)."""

from __future__ import annotations

import datetime

from tao.contracts import ThoughtPlan
from thought_model.entities import perceive
from thought_model.periods import date_ranges, fix_periods, greeting_dates

ME = "U55102938"
TODAY = datetime.date(2026, 5, 11)


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _p(text: str):
    return perceive(text, today=TODAY, user_known=True)


def test_range_words_give_one_pair():
    assert date_ranges(_p("list my orders between 2026-04-03 and 2026-04-18")) == [
        ("2026-04-03", "2026-04-18")
    ]
    assert date_ranges(_p("我 2026-04-01 到 2026-04-20 之间的报销")) == [("2026-04-01", "2026-04-20")]
    assert date_ranges(_p("weather in Paris on 2026-04-03 and 2026-04-18")) == []  # two days, no range


def test_two_steps_over_a_range_become_one_period():
    p = _p("list my orders between 2026-04-03 and 2026-04-18")
    plan = _plan(
        {"tool": "list_orders", "arguments": {"user_id": ME, "period": "2026-04-03"}},
        {"tool": "list_orders", "arguments": {"user_id": ME, "period": "2026-04-18"}},
    )
    out = fix_periods(plan, p)
    assert [(s.tool, s.arguments) for s in out.steps] == [
        ("list_orders", {"user_id": ME, "period": "2026-04-03/2026-04-18"})
    ]


def test_first_date_alone_gets_the_range():
    p = _p("show my expenses from 2026-03-01 to 2026-03-15")
    plan = _plan({"tool": "list_expenses", "arguments": {"user_id": ME, "period": "2026-03-01"}})
    assert fix_periods(plan, p).steps[0].arguments["period"] == "2026-03-01/2026-03-15"


def test_greeting_day_is_no_period():
    for text in (
        "Happy Monday! show me my invoices",
        "周五快乐！帮我列一下我的报销",
        "周一好呀，查下我的订单",
    ):
        p = _p(text)
        (day,) = greeting_dates(p)
        plan = _plan({"tool": "list_invoices", "arguments": {"user_id": ME, "period": day}})
        assert "period" not in fix_periods(plan, p).steps[0].arguments, text


def test_a_day_said_again_outside_the_greeting_stays():
    p = _p("Happy Monday! show me my invoices from 2026-05-11")
    assert greeting_dates(p) == set()
    plan = _plan({"tool": "list_invoices", "arguments": {"user_id": ME, "period": "2026-05-11"}})
    assert fix_periods(plan, p) is plan
