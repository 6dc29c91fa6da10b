"""perceive() end to end with normalization, the world gazetteer, time spans and cue-less text."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive

TODAY = date(2026, 11, 29)  # a Sunday


@pytest.mark.parametrize(
    "request_, masked, slots",
    [
        (  # traditional characters
            "幫我看看訂單123456789012345678現在的狀態",
            "帮我看看订单<ORDER1><DATE1>的状态",
            {"<ORDER1>": "123456789012345678", "<DATE1>": "@now"},
        ),
        ("大阪明天天气", "<CITY1><DATE1>天气", {"<CITY1>": "大阪", "<DATE1>": "@tomorrow"}),
        (  # typos
            "whats the wheather in bejing tmrw",
            "whats the weather in <CITY1> <DATE1>",
            {"<CITY1>": "Beijing", "<DATE1>": "@tomorrow"},
        ),
        (
            "tomorow weather in London",
            "<DATE1> weather in <CITY1>",
            {"<DATE1>": "@tomorrow", "<CITY1>": "London"},
        ),
        ("这周末北京天气怎么样", "<DATE1><CITY1>天气怎么样", {"<DATE1>": "@this_weekend", "<CITY1>": "北京"}),
        ("最近7天的订单", "<DATE1>的订单", {"<DATE1>": "@last_days:7"}),
        ("list my orders from the last 30 days", "list my orders from <DATE1>", {"<DATE1>": "@last_days:30"}),
        ("未来3天的日程", "<DATE1>的日程", {"<DATE1>": "@next_days:3"}),
        ("15号那天的日程", "<DATE1>的日程", {"<DATE1>": "2026-12-15"}),
        (
            "明天下午1点到3点订个会议室，8个人",
            "<DATE1><DUR1>订个会议室，<NUM1>",
            {"<DATE1>": "@tomorrow T13:00", "<DUR1>": 120, "<NUM1>": 8},
        ),
        (
            "book a room tomorrow from 1 to 3pm for 6 people",
            "book a room <DATE1> <DUR1> for <NUM1>",
            {"<DATE1>": "@tomorrow T13:00", "<DUR1>": 120, "<NUM1>": 6},
        ),
        ("开会一个半小时", "开会<DUR1>", {"<DUR1>": 90}),
        ("for an hour and a half", "for <DUR1>", {"<DUR1>": 90}),
        (
            "给bob@x.com发邮件，正文写周报已提交",
            "给<EMAIL1>发邮件，正文写<TEXT1>",
            {"<EMAIL1>": "bob@x.com", "<TEXT1>": "周报已提交"},
        ),
        (
            "email alice@example.com subject Standup cancelled",
            "email <EMAIL1> subject <TEXT1>",
            {"<EMAIL1>": "alice@example.com", "<TEXT1>": "Standup cancelled"},
        ),
    ],
)
def test_perceive_wired(request_: str, masked: str, slots: dict) -> None:
    p = perceive(request_, today=TODAY)
    assert p.masked == masked
    assert p.slots == slots


@pytest.mark.parametrize("request_", ["Mobile phone order status", "Nice, thanks", "帮Florence查一下订单"])
def test_no_city_in_words_and_names(request_: str) -> None:
    assert not any(k.startswith("<CITY") for k in perceive(request_, today=TODAY).slots)
