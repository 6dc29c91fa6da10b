"""Multi-day symbols: resolution and the deterministic step expansion."""

from __future__ import annotations

from datetime import date

import pytest

from tao.contracts.daysymbols import day_symbol_range
from tao.contracts.plan import ThoughtPlan
from tao.domains.reference.registry import reference_registry
from tao.loop.multiday import expand_multi_day_steps

WED = date(2026, 12, 2)
REG = reference_registry()


@pytest.mark.parametrize(
    "name, today, first, last",
    [
        ("this_weekend", WED, date(2026, 12, 5), date(2026, 12, 6)),
        ("next_weekend", WED, date(2026, 12, 12), date(2026, 12, 13)),
        ("this_weekend", date(2026, 12, 6), date(2026, 12, 5), date(2026, 12, 6)),  # on Sunday
        ("last_days:7", WED, date(2026, 11, 26), WED),
        ("next_days:3", WED, WED, date(2026, 12, 4)),
        ("last_days:1", WED, WED, WED),
    ],
)
def test_day_symbol_range(name: str, today: date, first: date, last: date) -> None:
    assert day_symbol_range(name, today) == (first, last)


def test_not_a_day_symbol() -> None:
    assert day_symbol_range("last_month", WED) is None
    assert day_symbol_range("last_days:100", WED) is None


def _plan(steps: list[dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate({"intent": "x_y", "steps": steps})


def test_weekend_weather_becomes_two_steps_saturday_first() -> None:
    p = _plan(
        [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京", "date": "@this_weekend"}}]
    )
    out = expand_multi_day_steps(p, REG, WED)
    assert [(s.step_id, s.arguments["date"]) for s in out.steps] == [
        ("t1", "2026-12-05"),
        ("t2", "2026-12-06"),
    ]
    assert p.steps[0].arguments["date"] == "@this_weekend"  # input untouched


def test_period_argument_is_not_expanded() -> None:
    p = _plan(
        [
            {
                "step_id": "t1",
                "tool": "list_orders",
                "arguments": {"user_id": "U12345678", "period": "@last_days:7"},
            }
        ]
    )
    assert expand_multi_day_steps(p, REG, WED) == p


def test_dependents_are_renumbered_and_follow_their_copy() -> None:
    p = _plan(
        [
            {"step_id": "t1", "tool": "get_user_profile", "arguments": {"user_id": "U12345678"}},
            {
                "step_id": "t2",
                "tool": "get_weather",
                "arguments": {"city": "${t1.city}", "date": "@next_weekend T09:00"},
                "dependencies": ["t1"],
            },
            {
                "step_id": "t3",
                "tool": "send_email",
                "arguments": {"to": "${t1.email}", "subject": "weather", "body": "see plan"},
                "dependencies": ["t1", "t2"],
            },
        ]
    )
    out = expand_multi_day_steps(p, REG, WED)
    got = [(s.step_id, s.tool, s.arguments.get("date"), s.dependencies) for s in out.steps]
    assert got == [
        ("t1", "get_user_profile", None, []),
        ("t2", "get_weather", "2026-12-12 09:00", ["t1"]),
        ("t3", "get_weather", "2026-12-13 09:00", ["t1"]),
        ("t4", "send_email", None, ["t1", "t2", "t3"]),
    ]
    assert out.steps[3].arguments["to"] == "${t1.email}"


def test_reference_to_an_expanded_step_expands_the_referrer() -> None:
    p = _plan(
        [
            {"step_id": "t1", "tool": "list_calendar_events", "arguments": {"date": "@this_weekend"}},
            {
                "step_id": "t2",
                "tool": "send_email",
                "arguments": {"to": "a@b.co", "subject": "events", "body": "${t1.events}"},
                "dependencies": ["t1"],
            },
        ]
    )
    out = expand_multi_day_steps(p, REG, WED)
    got = [(s.step_id, s.arguments.get("date"), s.arguments.get("body"), s.dependencies) for s in out.steps]
    assert got == [
        ("t1", "2026-12-05", None, []),
        ("t2", "2026-12-06", None, []),
        ("t3", None, "${t1.events}", ["t1"]),
        ("t4", None, "${t2.events}", ["t2"]),
    ]


def test_too_many_steps_leaves_the_plan_unchanged() -> None:
    p = _plan(
        [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京", "date": "@next_days:30"}}]
    )
    assert expand_multi_day_steps(p, REG, WED) == p
    p7 = _plan(
        [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京", "date": "@next_days:7"}}]
    )
    assert len(expand_multi_day_steps(p7, REG, WED).steps) == 7
