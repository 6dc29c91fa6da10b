"""Round 10, perception (issue #14): half-of-day typos, noon ends, world cities' other names,
cue-less free text (bare field words, invoice headers, a title before the calendar ask)."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive
from thought_model.perception.freetext import find_free_texts
from thought_model.perception.gazetteer import find_cities
from thought_model.perception.normalize import fix_half_day_typos
from thought_model.perception.timespans import find_time_ranges

TODAY = date(2026, 6, 10)  # a Wednesday


# ------------------------------------------------------------------ half-of-day typos
@pytest.mark.parametrize(
    "raw, fixed",
    [
        ("下吾2点到4点开会", "下午2点到4点开会"),
        ("下周三上五10点开会", "下周三上午10点开会"),
        ("明天晚尚7点", "明天晚上7点"),
        ("早尚八点半", "早上八点半"),
        ("下无3点", "下午3点"),
    ],
)
def test_half_day_typos_before_a_clock_time(raw: str, fixed: str) -> None:
    assert fix_half_day_typos(raw) == fixed


@pytest.mark.parametrize("text", ["下五楼", "上五天班", "周五上午", "下周五3点", "上五点"])
def test_half_day_typos_leave_other_text(text: str) -> None:
    assert fix_half_day_typos(text) == text


def test_typo_half_day_reaches_the_slot() -> None:
    p = perceive("下周三上五10点开个会", today=TODAY)
    assert list(p.slots.values()) == ["2026-06-17 10:00"]
    p = perceive("下吾2点到4点找个会议室", today=TODAY)
    assert p.slots == {"<DATE1>": "@today T14:00", "<DUR1>": 120}


# ------------------------------------------------------------------ a morning range ends at noon
@pytest.mark.parametrize(
    "text, time, minutes",
    [("上午九点到十二点", "09:00", 180), ("上午9点到12点", "09:00", 180), ("from 9am to 12", "09:00", 180)],
)
def test_morning_range_to_twelve_is_noon(text: str, time: str, minutes: int) -> None:
    (r,) = find_time_ranges(text)
    assert (r.time, r.minutes) == (time, minutes)


def test_traditional_morning_range() -> None:
    p = perceive("明天上午九點到十二點開會", today=TODAY)
    assert p.slots == {"<DATE1>": "@tomorrow T09:00", "<DUR1>": 180}


def test_small_hours_range_unchanged() -> None:
    (r,) = find_time_ranges("凌晨1点到3点")
    assert (r.time, r.minutes) == ("01:00", 120)


# ------------------------------------------------------------------ cities
@pytest.mark.parametrize(
    "text, city",
    [
        ("What's the weather in Ulaanbaatar tomorrow?", "Ulaanbaatar"),  # GeoNames: Ulan Bator
        ("check the forecast for ulaanbaatar", "Ulaanbaatar"),
        ("weather in reykjavik today", "Reykjavik"),  # lower case, weather cue
        ("joburg weather tomorrow?", "Johannesburg"),
        ("Rio weather this Saturday", "Rio de Janeiro"),
        ("whats the weather in Reykavik", "Reykjavik"),  # typo of a cued (not free) city
        ("how's the weather in Vancuver", "Vancouver"),  # typo: the main name, never an alternate
        ("weather in bejing", "Beijing"),
    ],
)
def test_world_city_names(text: str, city: str) -> None:
    assert [c.value for c in find_cities(text)] == [city]


@pytest.mark.parametrize(
    "text", ["Send it to Jordan", "Can Maria check the weather", "find user Victoria Chen"]
)
def test_names_stay_names(text: str) -> None:
    assert find_cities(text) == []


def test_lower_case_city_needs_the_weather_cue() -> None:
    assert find_cities("i met reykjavik people") == []


# ------------------------------------------------------------------ free text
def _texts(text: str) -> list[str]:
    return [v for _, _, v in find_free_texts(text)]


def test_bare_field_words() -> None:
    assert _texts("给 li@x.cn 发邮件 主题 明天请假 内容 明天身体不舒服") == ["明天请假", "明天身体不舒服"]
    assert _texts("建个会，标题周会，一小时") == ["周会"]
    assert _texts("这个主题很好") == []
    assert _texts("邮件内容我稍后补") == []


def test_invoice_header_cues() -> None:
    assert _texts("订单需要开发票，抬头写李婷") == ["李婷"]
    assert _texts("抬头开张伟") == ["张伟"]
    assert _texts("抬头就写上海云帆有限公司") == ["上海云帆有限公司"]  # 写上 + 海 is 写 + 上海
    assert _texts("invoice for the order, header Acme Ltd") == ["Acme Ltd"]


@pytest.mark.parametrize(
    "text, title",
    [
        ("2026-06-18 晚上7点部门聚餐，帮我建个日程", "部门聚餐"),
        ("6月15日下午3点项目启动会，帮我加到日历", "项目启动会"),
        ("明天上午10点产品评审，建个日程", "产品评审"),
        ("周五上午十点到十二点开评审会，帮我建个日程", "评审会"),
    ],
)
def test_title_before_the_calendar_ask(text: str, title: str) -> None:
    assert title in _texts(text)


def test_no_title_without_a_time_or_with_an_ask() -> None:
    assert _texts("帮我查一下订单，建个日程") == []
    assert _texts("明天帮我订会议室，建个日程") == []


def test_header_beats_the_city_inside_it() -> None:
    p = perceive("订单 223456789012345678 开票，抬头写北京星辰科技有限公司", today=TODAY)
    assert "北京星辰科技有限公司" in p.slots.values()
    assert not any(k.startswith("<CITY") for k in p.slots)


@pytest.mark.parametrize(
    "text, slots",
    [
        ("今晚8点到10点", {"<DATE1>": "@today T20:00", "<DUR1>": 120}),
        ("明早9点到10点", {"<DATE1>": "@tomorrow T09:00", "<DUR1>": 60}),
        ("明晚7点", {"<DATE1>": "@tomorrow T19:00"}),
        ("今晚有什么安排", {"<DATE1>": "@today"}),
    ],
)
def test_day_and_half_in_one_word(text: str, slots: dict[str, object]) -> None:
    assert perceive(text, today=TODAY).slots == slots


@pytest.mark.parametrize(
    "text, time, minutes",
    [("next Tuesday 10am to noon", "10:00", 120), ("tomorrow 11 till midday", "11:00", 60)],
)
def test_range_to_noon(text: str, time: str, minutes: int) -> None:
    (r,) = find_time_ranges(text)
    assert (r.time, r.minutes) == (time, minutes)


def test_pm_start_to_noon_is_no_range() -> None:
    assert find_time_ranges("3pm to noon") == []


@pytest.mark.parametrize(
    "text, slots",
    [
        ("周四上午10点 6人 90分钟", {"<DATE1>": "2026-06-11 10:00", "<NUM1>": 6, "<DUR1>": 90}),
        ("9点到10点 12人", {"<DATE1>": "@today T09:00", "<DUR1>": 60, "<NUM1>": 12}),
        ("10点 30分", {"<DATE1>": "@today T10:30"}),
        ("下午3点15", {"<DATE1>": "@today T15:15"}),
    ],
)
def test_a_count_after_the_hour_is_no_minute(text: str, slots: dict[str, object]) -> None:
    assert perceive(text, today=TODAY).slots == slots


@pytest.mark.parametrize(
    "text, slots",
    [
        ("book a room for 6/18 at 3pm", {"<DATE1>": "2026-06-18 15:00"}),
        ("expense on 5/3", {"<DATE1>": "2026-05-03"}),
        ("tomorrow at 3 for an hour", {"<DATE1>": "@tomorrow T15:00", "<DUR1>": 60}),
        ("at 8 tomorrow", {"<DATE1>": "@tomorrow T08:00"}),
        ("a 90-minute meeting tomorrow at 10", {"<DUR1>": 90, "<DATE1>": "@tomorrow T10:00"}),
        ("a 30-min call", {"<DUR1>": 30}),
    ],
)
def test_month_day_bare_afternoon_hour_and_hyphenated_duration(text: str, slots: dict[str, object]) -> None:
    assert perceive(text, today=TODAY).slots == slots


@pytest.mark.parametrize(
    "text, title",
    [
        ("把明天上午10点的周会加到日程里，半小时", "周会"),
        ("把评审会加到日历", "评审会"),
        ("Team dinner on June 18 at 7pm, add it to my calendar for 2 hours", "Team dinner"),
        ("Lunch with Sam tomorrow at noon, put it on my calendar", "Lunch with Sam"),
        ("submit a meal expense of 88 for yesterday, description team lunch", "team lunch"),
    ],
)
def test_title_put_into_the_calendar_and_description(text: str, title: str) -> None:
    assert title in _texts(text)


def test_no_title_from_a_bare_time() -> None:
    assert _texts("tomorrow at 3, add it to my calendar") == []
