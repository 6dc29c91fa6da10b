"""The dropped book/weather asks of the reference domain (thought_model.linked_asks)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.linked_asks import linked_asks


def _plan(*steps: dict) -> ThoughtPlan:
    rows = []
    for i, s in enumerate(steps, 1):
        rows.append({"step_id": f"t{i}", "dependencies": [], **s})
    return ThoughtPlan.model_validate({"version": "1.0", "intent": "multi_task", "steps": rows})


FIND = {
    "tool": "find_meeting_room",
    "arguments": {"start": "2026-02-26 09:00", "duration_min": 30, "capacity": 4},
}
PROFILE = {"tool": "get_user_profile", "arguments": {"user_id": "U12345678"}}


def _rows(plan: ThoughtPlan) -> list[tuple[str, dict, list[str]]]:
    return [(s.tool, dict(s.arguments), list(s.dependencies)) for s in plan.steps]


def test_the_found_room_is_booked_when_the_request_books_it() -> None:
    for text in (
        "find a meting room for 4 ppl on 2026-02-26 at 9am for 30 min and bok it",
        "need a room for 4 ppl, 30 min — find one and lock it in",
        "明天上午9点找个能坐4个人的会议室，开半小时，找到就定下来",
        "找个会议室，直接订",
    ):
        out = linked_asks(_plan(FIND), text, {})
        assert _rows(out)[1] == (
            "book_meeting_room",
            {"room_id": "${t1.room_id}", "start": "2026-02-26 09:00", "duration_min": 30},
            ["t1"],
        ), text


def test_a_search_alone_is_not_booked() -> None:
    plan = _plan(FIND)
    for text in (
        "find me a room for 4 people tomorrow at 9 for 30 min",
        "帮我找个4个人的会议室",
        "is there a room free? book later",
    ):
        assert linked_asks(plan, text, {}) is plan, text


def test_the_weather_of_the_profile_city_is_added_with_the_requests_day() -> None:
    out = linked_asks(
        _plan(PROFILE),
        "is it gonna rain tmrw where I live? my city is on my profile",
        {"<DATE1>": "@tomorrow"},
    )
    assert _rows(out)[1] == ("get_weather", {"city": "${t1.city}", "date": "@tomorrow"}, ["t1"])
    out = linked_asks(_plan(PROFILE), "What's the weather like in the city listed on my profile?", {})
    assert _rows(out)[1] == ("get_weather", {"city": "${t1.city}"}, ["t1"])


def test_no_weather_step_without_a_weather_word_or_with_a_city_given() -> None:
    plan = _plan(PROFILE)
    assert linked_asks(plan, "show me my profile", {}) is plan
    assert linked_asks(plan, "my profile and the weather in Paris", {"<CITY1>": "Paris"}) is plan


def _list(tool: str) -> dict:
    return {"tool": tool, "arguments": {"user_id": "U12345678"}}


def test_the_selected_item_of_a_list_is_read_as_asked() -> None:
    out = linked_asks(_plan(_list("list_invoices")), "pull up my pending invoices n open the newest one", {})
    assert _rows(out)[1] == ("get_invoice", {"invoice_id": "${t1.invoice_id}"}, ["t1"])
    out = linked_asks(_plan(_list("list_orders")), "用户 U47382910 最近一笔订单到哪了？", {})
    assert _rows(out)[1] == ("get_logistics", {"order_id": "${t1.order_id}"}, ["t1"])


def test_no_item_read_without_a_selection_or_with_the_words_of_another_ask() -> None:
    plan = _plan(_list("list_orders"))
    assert linked_asks(plan, "list my orders that are in transit", {}) is plan  # a filter, no item
    both = _plan(_list("list_invoices"), _list("list_orders"))
    assert linked_asks(both, "Show my invoices from last week and my orders from this week.", {}) is both
