"""Perception of stop 39 (issue #14, a helper-written multi-step dev set): international phones,
bare expense amounts, cities listed after a city or after a city field, fillers that are no names,
Chinese homophone typos of key words, and one-phrase fields that end where the time or the next
ask starts."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive
from thought_model.perception.normalize import fix_zh_word_typos, normalize_request

TODAY = date(2026, 3, 1)


def _slots(request: str, kind: str) -> list[object]:
    p = perceive(request, today=TODAY, user_known=True)
    return [v for k, v in p.slots.items() if k.startswith(f"<{kind}")]


@pytest.mark.parametrize(
    "request_, phones",
    [
        ("ok so change my phone to +44 7700 900123 and my email to a@b.co.uk", ["+44 7700 900123"]),
        ("change her phone to +55 21 98765 4321.", ["+55 21 98765 4321"]),
        ("my new number is +1 (415) 555-0199", ["+1 (415) 555-0199"]),
        ("call 13812345678", ["13812345678"]),
        ("order 202611051234567890 +1 day", []),
    ],
)
def test_phones(request_: str, phones: list[str]) -> None:
    assert _slots(request_, "PHONE") == phones


@pytest.mark.parametrize(
    "request_, amounts",
    [
        ("submit 2 expences: 14.20 transport on 2026-03-02 and 55 meal on 2026-03-03", [14.2, 55.0]),
        ("86.40 for lunch with the team on 2026-03-12, category meal", [86.4]),
        ("Please submit three expenses: 22 transport on 2026-02-02, 180 hotel on 2026-02-02", [22.0, 180.0]),
        ("I have 2 meals to claim", []),
        ("book a room for 3 for 2 hours", []),
    ],
)
def test_bare_expense_amounts_and_counts(request_: str, amounts: list[float]) -> None:
    assert _slots(request_, "AMOUNT") == amounts


@pytest.mark.parametrize(
    "request_, cities",
    [
        ("check the weather in Istanbul and Athens for that day", ["Istanbul", "Athens"]),
        ("weather in Paris, Nice and Athens", ["Paris", "Nice", "Athens"]),
        ("Change my city to Manchester, and also update my phone", ["Manchester"]),
        ("set my city to melbourn pls, moved there last wek", ["Melbourne"]),
    ],
)
def test_cities(request_: str, cities: list[str]) -> None:
    assert _slots(request_, "CITY") == cities


def test_a_listed_name_is_no_city_without_a_place_context() -> None:
    assert _slots("email Paris and Jordan", "NAME") == ["Jordan"]


@pytest.mark.parametrize(
    "request_, names",
    [
        ("Hey team bot 👋 Happy December! My boss Hannah Schmidt wants to know", ["Hannah Schmidt"]),
        ("nightmare 😩 Anyway: please check the status of my newest order", []),
        ("Hi! Almost Spring Festival 🧧 so everything is hectic. 1) cancel order", []),
    ],
)
def test_fillers_and_holidays_are_no_names(request_: str, names: list[str]) -> None:
    assert _slots(request_, "NAME") == names


@pytest.mark.parametrize(
    "raw, fixed",
    [
        ("给订单开个发漂 再查下它的物留", "给订单开个发票 再查下它的物流"),
        ("今天的日层有哪些，武汉今天下不下鱼", "今天的日程有哪些，武汉今天下不下雨"),
        ("找个能坐8个人的会意室 开一个小试", "找个能坐8个人的会议室 开一个小时"),
        ("我最近一比已发货的定单", "我最近一笔已发货的订单"),
        ("元因是发错货了", "原因是发错货了"),
    ],
)
def test_zh_key_word_typos(raw: str, fixed: str) -> None:
    assert fix_zh_word_typos(raw) == fixed


def test_zh_key_word_typos_leave_real_words() -> None:
    for text in ("日成功", "一比一复刻", "考试小试牛刀"):
        assert fix_zh_word_typos(text) == text


def test_english_key_word_typos_of_this_round() -> None:
    assert normalize_request("check logistcs for orders") == "check logistics for orders"
    assert normalize_request("descripton: taxi") == "description: taxi"


@pytest.mark.parametrize(
    "request_, texts",
    [
        (
            "Create a calendar event titled Supplier call on 2026-05-22 at 10:30am for 45 minutes",
            ["Supplier call"],
        ),
        ("Create a calendar event Budget review next Monday at 9:30am for 1 hour", ["Budget review"]),
        (
            "Issue an invoice for order 260301229384756011 with the title Kestrel Analytics Ltd, and another one"
            " for order 260303884710293366 with the same title.",
            ["Kestrel Analytics Ltd"],
        ),
        (
            "issue an invoce for order 260518093344120917 with title Brightwave Media Ltd and then show me it",
            ["Brightwave Media Ltd"],
        ),
        (
            "Submit a meal expense of 65 for yesterday, description: team lunch, and a transport expense of 22"
            " for the day before yesterday, description: taxi to the client.",
            ["team lunch", "taxi to the client"],
        ),
        ("put a calender event Dentist on 2026-04-09 at 4pm for 45 mins", ["Dentist"]),
        ("create a calendar event called Vendor demo at the same time for 60 minutes", ["Vendor demo"]),
        (
            "I need an invoice for my latest order, the title should be Shenzhen Lianhe Electronics Co., Ltd., "
            "and after that show me the invoice",
            ["Shenzhen Lianhe Electronics Co., Ltd."],
        ),
        # a subject and a body keep their words, times included
        (
            "email bob@x.com subject Lunch tomorrow body see you at 12 on Friday",
            ["Lunch tomorrow", "see you at 12 on Friday"],
        ),
    ],
)
def test_one_phrase_fields_end_where_the_time_or_the_next_ask_starts(request_: str, texts: list[str]) -> None:
    assert _slots(request_, "TEXT") == texts


def test_a_doubled_verb_ends_a_chinese_name() -> None:
    assert _slots("想约同事赵敏聊聊——先帮我找到她的ID", "NAME") == ["赵敏"]
    assert _slots("你好，我想跟同事孙浩对一下项目进度", "NAME") == ["孙浩"]
    assert _slots("看下王小明明天的日程", "NAME") == ["王小明"]


def test_a_bare_time_listed_after_a_dated_time_is_on_that_day() -> None:
    assert _slots("dublin weather tomorrow at 9am and at 6pm?", "DATE") == [
        "@tomorrow T09:00",
        "@tomorrow T18:00",
    ]
    assert _slots("meeting 2026-03-05 at 9am, and at 3pm too", "DATE") == [
        "2026-03-05 09:00",
        "2026-03-05 15:00",
    ]
    assert _slots("weather today at 9am and at 6pm", "DATE") == ["@today T09:00", "@today T18:00"]
    # not listed right after it: today's time as before
    assert _slots("tomorrow at 9 book a room, at 3pm call", "DATE")[1] == "@today T15:00"
