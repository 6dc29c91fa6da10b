"""Round 10 (issue #14), decoding side: integer arguments by meaning, people lists take people,
arguments tidied after decoding (``@now`` on an optional date, repeats in a list, a period as a
start time), and the request's invitees attached to the event."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.domains.reference.registry import reference_tools
from thought_model.entities import perceive
from thought_model.grammar import field_tokens, integer_kinds
from thought_model.invitees import invitee_tokens
from thought_model.output_parse import parse_output

TOOLS = reference_tools()
BY_NAME = {t.name: t for t in TOOLS}
TODAY = datetime.fromisoformat("2026-06-10T10:00:00+08:00").date()
SESSION = SessionState(user_id="U10000001", now=datetime.fromisoformat("2026-06-10T10:00:00+08:00"))


def _prop(tool: str, arg: str) -> dict[str, Any]:
    return BY_NAME[tool].args_schema["properties"][arg]


def test_integer_kinds_by_meaning() -> None:
    assert integer_kinds("duration_min") == ["DUR"]
    assert integer_kinds("capacity") == ["NUM"]
    avail = ["<NUM1>", "<DUR1>"]
    assert field_tokens("duration_min", _prop("find_meeting_room", "duration_min"), TOOLS, avail) == [
        "<DUR1>"
    ]
    assert field_tokens("capacity", _prop("find_meeting_room", "capacity"), TOOLS, avail) == ["<NUM1>"]
    # "订个会议室，8个人": no duration slot, so the duration cannot be the head count
    assert field_tokens("duration_min", _prop("find_meeting_room", "duration_min"), TOOLS, ["<NUM1>"]) == []


def test_attendees_take_people_only() -> None:
    avail = ["<TEXT1>", "<EMAIL1>", "<NAME1>", "<CITY1>"]
    got = field_tokens("attendees", _prop("create_calendar_event", "attendees"), TOOLS, avail)
    assert got == ["<EMAIL1>", "<NAME1>"]


def _parse(request: str, steps: list[dict[str, Any]]) -> ThoughtPlan | InsufficientContext:
    p = perceive(request, today=TODAY, user_known=True)
    out = {"version": "1.0", "intent": "x_y", "steps": steps}
    return parse_output(json.dumps(out), p, SESSION, TOOLS)


def test_now_on_an_optional_date_is_dropped() -> None:
    plan = _parse(
        "现在北京天气怎么样",
        [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "<CITY1>", "date": "<DATE1>"}}],
    )
    assert isinstance(plan, ThoughtPlan)
    assert plan.steps[0].arguments == {"city": "北京"}


def test_now_on_a_required_date_is_kept() -> None:
    plan = _parse(
        "我现在有什么日程",
        [{"step_id": "t1", "tool": "list_calendar_events", "arguments": {"date": "<DATE1>"}}],
    )
    assert isinstance(plan, ThoughtPlan)
    assert plan.steps[0].arguments == {"date": "@now"}


def test_period_as_start_is_insufficient() -> None:
    out = _parse(
        "下周开个会，标题「启动会」，一小时",
        [
            {
                "step_id": "t1",
                "tool": "create_calendar_event",
                "arguments": {"title": "<TEXT1>", "start": "<DATE1>", "duration_min": "<DUR1>"},
            }
        ],
    )
    assert isinstance(out, InsufficientContext)
    assert out.required_fields == ["start"]


def test_invitee_tokens() -> None:
    assert invitee_tokens("明天建个会，邀请 <EMAIL1> 和 <EMAIL2>") == ["<EMAIL1>", "<EMAIL2>"]
    assert invitee_tokens("for 2 hours with <EMAIL1>, <EMAIL2> and <EMAIL3>") == [
        "<EMAIL1>",
        "<EMAIL2>",
        "<EMAIL3>",
    ]
    assert invitee_tokens("把 <EMAIL1> 也拉进来") == ["<EMAIL1>"]
    assert invitee_tokens("给 <EMAIL1> 发邮件") == []


EVENT = {"title": "<TEXT1>", "start": "<DATE1>", "duration_min": "<DUR1>"}


def test_invitees_fill_a_missing_or_short_list_and_repeats_go() -> None:
    req = "明天下午3点建个会“周会”，一小时，邀请 a@x.cn 和 b@y.com"
    for attendees in (None, ["<EMAIL1>"], ["<EMAIL1>", "<EMAIL1>"]):
        args = dict(EVENT) | ({"attendees": attendees} if attendees else {})
        plan = _parse(req, [{"step_id": "t1", "tool": "create_calendar_event", "arguments": args}])
        assert isinstance(plan, ThoughtPlan)
        assert plan.steps[0].arguments["attendees"] == ["a@x.cn", "b@y.com"], attendees


def test_invitee_written_as_own_email_is_dropped() -> None:
    req = "Create an event 'Design review' tomorrow at 2pm for 30 minutes and invite li@corp.com"
    plan = _parse(
        req,
        [
            {"step_id": "t1", "tool": "create_calendar_event", "arguments": dict(EVENT)},
            {
                "step_id": "t2",
                "tool": "update_user_profile",
                "arguments": {"user_id": "<ME>", "field": "email", "value": "<EMAIL1>"},
            },
        ],
    )
    assert isinstance(plan, ThoughtPlan)
    assert [s.tool for s in plan.steps] == ["create_calendar_event"]
    assert plan.steps[0].arguments["attendees"] == ["li@corp.com"]


def test_email_update_kept_when_the_request_asks_for_it() -> None:
    req = "明天下午3点建个会“周会”，一小时，邀请 a@x.cn，另外把我的邮箱改成 a@x.cn"
    plan = _parse(
        req,
        [
            {"step_id": "t1", "tool": "create_calendar_event", "arguments": dict(EVENT)},
            {
                "step_id": "t2",
                "tool": "update_user_profile",
                "arguments": {"user_id": "<ME>", "field": "email", "value": "<EMAIL1>"},
            },
        ],
    )
    assert isinstance(plan, ThoughtPlan)
    assert [s.tool for s in plan.steps] == ["create_calendar_event", "update_user_profile"]


def test_words_fields_take_no_address() -> None:
    avail = ["<EMAIL1>", "<PHONE1>", "<TEXT1>", "<NAME1>"]
    for tool, arg in (("create_calendar_event", "title"), ("send_email", "subject"), ("send_email", "body")):
        assert field_tokens(arg, _prop(tool, arg), TOOLS, avail) == ["<TEXT1>", "<NAME1>"], arg
    # an update's value still takes them
    got = field_tokens("value", _prop("update_user_profile", "value"), TOOLS, avail)
    assert got == avail


EMAIL_MYSELF = [
    {"step_id": "t1", "tool": "get_user_profile", "arguments": {"user_id": "<ME>"}},
    {
        "step_id": "t2",
        "tool": "send_email",
        "arguments": {"to": "${t1.email}", "subject": "<TEXT1>", "body": "<TEXT2>"},
        "dependencies": ["t1"],
    },
]


def test_role_named_recipient_is_unknown() -> None:
    out = _parse("send an email to my manager, subject: Leave, body: I'm off tomorrow", EMAIL_MYSELF)
    assert isinstance(out, InsufficientContext)
    assert out.required_fields == ["to"]


def test_email_to_myself_is_kept() -> None:
    out = _parse("send myself an email, subject: Leave, body: remind my manager", EMAIL_MYSELF)
    assert isinstance(out, ThoughtPlan)
    out = _parse("给我自己发个邮件，主题：提醒，内容：明天找领导", EMAIL_MYSELF)
    assert isinstance(out, ThoughtPlan)


def test_named_tool_without_its_values_is_insufficient() -> None:
    p = perceive("明天下午3点建个会，一小时，邀请 a@x.cn", today=TODAY, user_known=True)
    out = {
        "version": "1.0",
        "intent": "create_calendar_event",
        "steps": [
            {"step_id": "t1", "tool": "list_orders", "arguments": {"user_id": "<ME>", "period": "<DATE1>"}}
        ],
    }
    got = parse_output(json.dumps(out), p, SESSION, TOOLS)
    assert isinstance(got, InsufficientContext)
    assert got.required_fields == ["title"]


def test_other_intent_names_leave_the_plan() -> None:
    p = perceive("我最近的订单", today=TODAY, user_known=True)
    out = {
        "version": "1.0",
        "intent": "my_orders",
        "steps": [{"step_id": "t1", "tool": "list_orders", "arguments": {"user_id": "<ME>"}}],
    }
    assert isinstance(parse_output(json.dumps(out), p, SESSION, TOOLS), ThoughtPlan)


def test_evening_title_before_the_ask() -> None:
    p = perceive("明晚7点团队聚餐，帮我建个日程，两小时", today=TODAY)
    assert p.slots == {"<DATE1>": "@tomorrow T19:00", "<TEXT1>": "团队聚餐", "<DUR1>": 120}


def test_person_name_takes_no_city() -> None:
    avail = ["<CITY1>", "<NAME1>", "<TEXT1>", "<EMAIL1>"]
    assert field_tokens("name", _prop("find_user", "name"), TOOLS, avail) == ["<NAME1>", "<TEXT1>"]


def test_invitee_tokens_after_an_attendee_noun() -> None:
    assert invitee_tokens("同一时间，参会人 <EMAIL1> 和 <EMAIL2>") == ["<EMAIL1>", "<EMAIL2>"]
    assert invitee_tokens("at the same time with attendees <EMAIL1> and <EMAIL2>") == ["<EMAIL1>", "<EMAIL2>"]


def test_an_invitee_looked_up_is_an_attendee_and_my_calendar_stays_mine() -> None:
    req = "后天上午10点半建个会 叫“预算评审” 45分钟 拉上 amy@jiuzhou.com 再看看我那天还有啥别的安排"
    plan = _parse(
        req,
        [
            {"step_id": "t1", "tool": "create_calendar_event", "arguments": dict(EVENT)},
            {"step_id": "t2", "tool": "find_user", "arguments": {"email": "<EMAIL1>"}},
            {
                "step_id": "t3",
                "tool": "list_user_calendar_events",
                "arguments": {"user_id": "${t2.user_id}", "date": "<DATE1>"},
                "dependencies": ["t2"],
            },
        ],
    )
    assert isinstance(plan, ThoughtPlan)
    assert [s.tool for s in plan.steps] == ["create_calendar_event", "list_calendar_events"]
    assert plan.steps[0].arguments["attendees"] == ["amy@jiuzhou.com"]
    assert "user_id" not in plan.steps[1].arguments


def test_a_person_the_request_asks_about_is_still_looked_up() -> None:
    req = "Find li@corp.com's profile, and create an event 'Sync' tomorrow at 2pm for 30 minutes inviting li@corp.com"
    steps = [
        {"step_id": "t1", "tool": "find_user", "arguments": {"email": "<EMAIL1>"}},
        {"step_id": "t2", "tool": "create_calendar_event", "arguments": dict(EVENT)},
    ]
    plan = _parse(req, steps)
    assert isinstance(plan, ThoughtPlan)
    assert next(s.tool for s in plan.steps) == "find_user"
