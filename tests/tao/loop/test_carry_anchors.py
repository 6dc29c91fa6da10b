"""Time anchors kept across turns (issue #18): period anchors ("that same month", "那周"), a
trailing "then", the conversation's newest time when the previous turn used none, an open
question's own unresolved anchor, and the free-text clean-up of the settled plan."""

from __future__ import annotations

import asyncio
from datetime import date, datetime

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.domains import load_domain
from tao.loop.candidates import settle
from tao.loop.carryover import CarryConfig, CarryOver
from tao.loop.followup import read_followup
from tao.loop.label_values import clean_free_text
from tao.loop.session_values import anchor_request, labelled_answer, period_of
from tao.loop.snapshot import PendingSnap, Snapshot, StepSnap
from tao.loop.turn_cues import anchor_of

NOW = datetime.fromisoformat("2026-03-18T09:30:00+08:00")
SESSION = SessionState(session_id="s1", user_id="U00000007", now=NOW)
DOMAIN = load_domain(None)
SCHEMAS = {t.name: t.args_schema for t in DOMAIN.tools}
CO = CarryOver(SCHEMAS, CarryConfig(lexicon=DOMAIN.lexicon))


def snap(steps: list[tuple[str, dict]], request: str, entities: dict | None = None, **kw) -> Snapshot:
    rows = [StepSnap(step_id=f"t{i + 1}", tool=t, arguments=a) for i, (t, a) in enumerate(steps)]
    ents = entities if entities is not None else {k: v for _, a in steps for k, v in a.items()}
    return Snapshot(turn=2, request=request, effective_request=request, steps=rows, entities=ents, **kw)


def plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": steps[0][0],
            "steps": [{"step_id": f"t{i + 1}", "tool": t, "arguments": a} for i, (t, a) in enumerate(steps)],
        }
    )


def fu(text: str):
    return read_followup(text, date(2026, 3, 18), has_previous=True, pending=False)


def test_period_anchors_and_a_trailing_then() -> None:
    assert anchor_of("how about invoices for that same month") == ("period", "for that same month")
    assert anchor_of("and my expense claims over that period") == ("period", "over that period")
    assert anchor_of("那周开的发票也看看") == ("period", "那周")
    assert anchor_of("同一个月的发票也列一下") == ("period", "同一个月")
    assert anchor_of("那周末呢") is None and anchor_of("上个月的呢") is None
    assert anchor_of("weather in Nanjing then?") == ("day", "then")
    assert anchor_of("and then book it") is None
    assert fu("book R105 for next Friday then").anchor is None  # the turn's own day


def test_a_period_anchor_is_the_conversations_newest_period() -> None:
    # list_orders for last week, then a status lookup: "那周" is still last week
    s = snap(
        [("get_order_status", {"order_id": "202603021122334455"})],
        "这个订单现在什么状态",
        entities={
            "user_id": "U00000007",
            "period": "2026-03-09/2026-03-15",
            "order_id": "202603021122334455",
        },
    )
    assert period_of(s, SCHEMAS) == "2026-03-09/2026-03-15"
    assert anchor_request("那周开的发票也看看", fu("那周开的发票也看看"), s, SCHEMAS) == (
        "2026-03-09到2026-03-15开的发票也看看"
    )
    m = snap(
        [("list_orders", {"user_id": "U00000007", "period": "2026-02"})], "list my orders from last month"
    )
    t = "how about invoices for that same month"
    assert anchor_request(t, fu(t), m, SCHEMAS) == "how about invoices for 2026-02"


def test_same_time_after_a_day_only_turn_takes_the_clock_of_that_day() -> None:
    s = snap(
        [("get_weather", {"city": "Beijing", "date": "2026-03-20"})],
        "what's the weather that day in Beijing",
        entities={
            "start": "2026-03-20 15:00",
            "duration_min": 60,
            "capacity": 6,
            "city": "Beijing",
            "date": "2026-03-20",
        },
    )
    t = "look for a room for 10 people instead, same time"
    assert anchor_request(t, fu(t), s, SCHEMAS) == (
        "look for a room for 10 people instead, on 2026-03-20 at 15:00 for 60 minutes"
    )


def test_an_open_questions_own_anchor_is_not_resolved_at_its_clock() -> None:
    # "帮我在那天下午三点建个会" left open: "那天" is the day before it (the calendar's), not today
    s = snap(
        [("list_calendar_events", {"date": "2026-03-25"})],
        "帮我在那天下午三点建个会，两小时",
        now=NOW.isoformat(),
        pending=PendingSnap(request="帮我在那天下午三点建个会，两小时", required_fields=["title"]),
    )
    assert anchor_request("那天广州天气呢", fu("那天广州天气呢"), s, SCHEMAS) == "2026-03-25广州天气呢"


def test_the_day_after_must_use_the_shifted_day() -> None:
    s = snap([("get_weather", {"city": "天津", "date": "2026-03-23"})], "还是那天，天津天气呢")
    want = plan(("list_calendar_events", {"date": "2026-03-24"}))
    carry = CO.prepare("第二天有什么安排", SESSION, s)

    async def replan(text: str):
        return want if "2026-03-24" in text else None

    out = asyncio.run(
        settle(CO, carry, CO.apply(carry, InsufficientContext(required_fields=["date"])), replan)
    )
    assert isinstance(out, ThoughtPlan) and out.steps[0].arguments == {"date": "2026-03-24"}


def test_a_new_request_lacking_only_an_id_keeps_its_own_free_text() -> None:
    # "重新开一张，抬头改成李明": the title is the turn's, not the snapshot's
    s = snap([("create_invoice", {"order_id": "202603021122334455", "title": "星海科技"})], "开张发票")
    carry = CO.prepare("重新开一张，抬头改成李明", SESSION, s)
    out = CO.apply(carry, InsufficientContext(required_fields=["order_id"], intent="create_invoice"))
    assert isinstance(out, ThoughtPlan)
    assert out.steps[0].arguments == {"order_id": "202603021122334455", "title": "李明"}
    # without a title of its own the old one is not reused: the question stands
    carry = CO.prepare("重新开一张", SESSION, s)
    out = CO.apply(carry, InsufficientContext(required_fields=["order_id"], intent="create_invoice"))
    assert isinstance(out, InsufficientContext)
    # a read-only lookup that only lacks the id is still completed
    carry = CO.prepare("物流到哪了", SESSION, s)
    out = CO.apply(carry, InsufficientContext(required_fields=["order_id"], intent="get_logistics"))
    assert isinstance(out, ThoughtPlan) and out.steps[0].tool == "get_logistics"


def test_free_text_without_its_verb_and_the_whole_title() -> None:
    p = plan(
        ("create_invoice", {"order_id": "202603021122334455", "title": "改成李明"}),
        (
            "submit_expense",
            {"amount": 1, "category": "meal", "date": "2026-03-18", "description": "写代码加班"},
        ),
    )
    out, notes = clean_free_text(p, ["重新开一张，抬头改成李明，说明：写代码加班"])
    assert out.steps[0].arguments["title"] == "李明" and out.steps[1].arguments["description"] == "写代码加班"
    assert len(notes) == 1
    ev = plan(
        (
            "create_calendar_event",
            {"title": "Design", "start": "2026-03-23 14:00", "duration_min": 45, "attendees": ["Design"]},
        )
    )
    out, _ = clean_free_text(ev, ["set up a 45 minute sync called Design review at 2pm that same day"])
    assert out.steps[0].arguments == {
        "title": "Design review",
        "start": "2026-03-23 14:00",
        "duration_min": 45,
    }
    out, notes = clean_free_text(ev, ["a sync called Design at 2pm"])
    assert out == ev and notes == []


def test_a_number_word_answers_the_head_count() -> None:
    s = snap([], "find me a room tomorrow 10am, 90 minutes")
    s.pending = PendingSnap(request="find me a room tomorrow 10am, 90 minutes", required_fields=["capacity"])
    assert labelled_answer(SCHEMAS, "we're five", fu("we're five"), s) == "for 5 people"


def test_quoted_words_after_the_models_value_are_the_value() -> None:
    p = plan(("cancel_order", {"order_id": "202605121234567890", "reason": "原因就写"}))
    out, _ = clean_free_text(p, ["取消订单202605121234567890，原因是原因就写“不想要了”"])
    assert out.steps[0].arguments["reason"] == "不想要了"
    ok = plan(("cancel_order", {"order_id": "202605121234567890", "reason": "不想要了"}))
    assert clean_free_text(ok, ["原因就写“不想要了”"]) == (ok, [])


def test_that_time_span_is_a_period() -> None:
    assert anchor_of("那个时间段的发票也看看") == ("period", "那个时间段")
    assert anchor_of("那个时段还有会议室吗") == ("time", "那个时段")


def test_a_labelled_value_picks_the_tool_that_takes_it() -> None:
    # "重新开一张，抬头是张三" lacking only the order id: create_invoice with the new title, never the
    # read-only get_order_invoice (which takes no title) nor the old title
    s = snap([("create_invoice", {"order_id": "202605121234567890", "title": "星海科技"})], "开张发票")
    carry = CO.prepare("重新开一张，抬头是张三", SESSION, s)
    out = CO.apply(carry, InsufficientContext(required_fields=["order_id"], intent="reissue_invoice"))
    assert isinstance(out, ThoughtPlan)
    assert [(x.tool, x.arguments) for x in out.steps] == [
        ("create_invoice", {"order_id": "202605121234567890", "title": "张三"})
    ]
