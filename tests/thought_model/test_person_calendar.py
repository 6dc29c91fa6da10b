"""A named person's calendar, not the speaker's (thought_model.person_calendar)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.person_calendar import person_calendar

OWN = ThoughtPlan.model_validate(
    {
        "intent": "query_calendar",
        "steps": [{"step_id": "t1", "tool": "list_calendar_events", "arguments": {"date": "@tomorrow"}}],
    }
)


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.tool, dict(s.arguments), list(s.dependencies)) for s in p.steps]


def test_the_named_persons_calendar_replaces_the_own_one() -> None:
    out = person_calendar(
        OWN, "<NAME1><DATE1>都有啥会啊 帮我瞅一眼", {"<NAME1>": "周宇航", "<DATE1>": "@tomorrow"}
    )
    assert _rows(out) == [
        ("find_user", {"name": "周宇航"}, []),
        ("list_user_calendar_events", {"user_id": "${t1.user_id}", "date": "@tomorrow"}, ["t1"]),
    ]
    out = person_calendar(
        OWN, "想约同事<NAME1>聊聊，看看她<DATE1>的日程", {"<NAME1>": "赵敏", "<DATE1>": "@tomorrow"}
    )
    assert [r[0] for r in _rows(out)] == ["find_user", "list_user_calendar_events"]


def test_the_own_calendar_stays_when_the_request_asks_it_too() -> None:
    masked = "先看看他<DATE1>的日程，再帮我查下我自己<DATE1>的安排 (同事<NAME1>)"
    out = person_calendar(OWN, masked, {"<NAME1>": "孙浩", "<DATE1>": "@tomorrow"})
    assert [r[0] for r in _rows(out)] == ["find_user", "list_user_calendar_events", "list_calendar_events"]


def test_no_person_or_no_calendar_word_leaves_the_plan() -> None:
    assert person_calendar(OWN, "我<DATE1>有啥会", {"<DATE1>": "@tomorrow"}) is OWN
    assert (
        person_calendar(OWN, "email <NAME1> about <DATE1>", {"<NAME1>": "Ann Lee", "<DATE1>": "@tomorrow"})
        is OWN
    )
