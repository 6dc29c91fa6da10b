"""Round 11, perception (issue #14): zh key-word homophones, HK/TW city names and zh city typos,
expense amounts after 花了 / expense / submit, bare 说明 / desc cues."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive
from thought_model.perception.gazetteer import find_cities
from thought_model.perception.normalize import fix_zh_word_typos, normalize_request

TODAY = date(2026, 6, 10)  # a Wednesday


def _slots(request: str, kind: str) -> list[object]:
    p = perceive(request, today=TODAY)
    return [v for k, v in p.slots.items() if k.startswith(f"<{kind}")]


@pytest.mark.parametrize(
    "raw, fixed",
    [
        ("下州四下午3点", "下周四下午3点"),
        ("下周1上午10点", "下周一上午10点"),
        ("时常2小时", "时长2小时"),
        ("名子改为周子涵", "名字改为周子涵"),
        ("由箱改成 a@b.cn", "邮箱改成 a@b.cn"),
        ("我的邮相", "我的邮箱"),
        ("看下这单的壮态", "看下这单的状态"),
        ("报销单的状太", "报销单的状态"),
        ("广州后天的天器", "广州后天的天气"),
    ],
)
def test_zh_word_typos(raw: str, fixed: str) -> None:
    assert fix_zh_word_typos(raw) == fixed


@pytest.mark.parametrize("text", ["我经常时常2次", "广州四季", "周10点", "周1.5倍"])
def test_zh_word_typos_leave_other_text(text: str) -> None:
    assert fix_zh_word_typos(text) == text


def test_english_key_word_typos() -> None:
    assert normalize_request("submt expence 64") == "submit expense 64"
    assert normalize_request("my expences") == "my expenses"


def test_typo_weekday_reaches_the_date_slot() -> None:
    assert _slots("下州四下午3点找个会议室", "DATE") == ["2026-06-18 15:00"]
    assert _slots("下周1上午10点开个会", "DATE") == ["2026-06-15 10:00"]


@pytest.mark.parametrize(
    "text, city",
    [
        ("雪梨明天天气", "悉尼"),
        ("三藩市后天会下雨吗", "旧金山"),
        ("墨尔奔明天天气怎么样", "墨尔本"),
        ("温歌华今天冷吗", "温哥华"),
        ("大板后天天气", "大阪"),
        ("帮我查下墨尔奔明天天气", "墨尔本"),
    ],
)
def test_zh_other_names_and_typos_of_cities(text: str, city: str) -> None:
    assert [c.value for c in find_cities(normalize_request(text))] == [city]


@pytest.mark.parametrize("text", ["我想吃雪梨", "明天天气怎么样", "墨尔奔跑了一天"])
def test_no_city_without_a_cue(text: str) -> None:
    assert find_cities(normalize_request(text)) == []


@pytest.mark.parametrize(
    "request_, amount",
    [
        ("昨天晚饭花了 160，帮我报销一下", 160.0),
        ("expense 120 for office supplies on June 8", 120.0),
        ("file an expense: 60, metro card, yesterday", 60.0),
        ("submit 300 for hotel on June 5", 300.0),
        ("前天撸串花了 200 块", 200.0),
    ],
)
def test_expense_amounts(request_: str, amount: float) -> None:
    assert _slots(request_, "AMOUNT") == [amount]


@pytest.mark.parametrize(
    "request_, text",
    [
        ("提交报销：出租车 38 元，今天，说明 去机场", "去机场"),
        ("前天撸串花了 200 块，说明团建，帮我报了", "团建"),
        ("submt expence 64 office, yesterday, desc toner", "toner"),
        ("expense 42 for a taxi yesterday, description to the client office", "to the client office"),
    ],
)
def test_expense_descriptions(request_: str, text: str) -> None:
    assert _slots(request_, "TEXT") == [text]


def test_describe_is_no_description_cue() -> None:
    assert _slots("请说明一下原因", "TEXT") == []


@pytest.mark.parametrize(
    "request_, kind, values",
    [
        ("a room for 4 tomorrow at 11 for 45 min", "NUM", [4]),
        ("book a room for 2 hours", "NUM", []),
        ("明天上午10点加个45分钟的日程：需求评审", "TEXT", ["需求评审"]),
        ("在日历上加个会：项目复盘", "TEXT", ["项目复盘"]),
        ("给 he@x.cn 发个邮件，就说周五的培训延期了", "TEXT", ["周五的培训延期了"]),
        ("开张发票，抬头上海蓝天公司，订单号回头发你", "TEXT", ["上海蓝天公司"]),
        ("那个 912345678012345670 的单子给我撤了，原因买错了", "TEXT", ["买错了"]),
        ("帮我取消订单 712345678012345670，原因就写“不想要了”", "TEXT", ["不想要了"]),
        ("invoice for order 512345678012345670 made out to Blue River Inc", "TEXT", ["Blue River Inc"]),
        ("孙悦改下城市，改成南京", "NAME", ["孙悦"]),
        ("取消订单，原因不明", "TEXT", []),
        ("find user anna schmidt", "NAME", ["Anna Schmidt"]),
        ("明天上午去环球影城玩，帮我查下北京明天天气", "CITY", ["北京"]),
    ],
)
def test_round11_slots(request_: str, kind: str, values: list[object]) -> None:
    assert _slots(request_, kind) == values
