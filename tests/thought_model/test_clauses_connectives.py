"""Clause split: connectives and shapes added in round 8 (顺带/顺手, "alongside", a zh comma between
two aspect questions about one object, colloquial verbs), and what must still stay one ask."""

from __future__ import annotations

import pytest

from thought_model.clauses import split_masked, split_request
from thought_model.entities import perceive


def _split(text: str) -> list[str]:
    return [c.masked for c in split_request(perceive(text))]


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        (
            "单子123456789012345678卡在哪个环节了，快递又到哪儿了",
            ["单子<ORDER1>卡在哪个环节了", "快递又到哪儿了"],
        ),
        (
            "上海明天天气咋样，顺带看看我那天的日程",
            ["<CITY1><DATE1>天气咋样", "看看我<DATE1>的日程"],
        ),  # 那天: the day before
        ("查下北京后天天气，顺手把我的日程也列一下", ["查下<CITY1><DATE1>天气", "把我的日程也列一下"]),
        (
            "could you swap the phone on my account for 13912345678 and move my city over to Xiamen",
            ["could you swap the phone on my account for <PHONE1>", "move my city over to <CITY1>"],
        ),
        (
            "round up my invoices alongside my expense claims from last month",
            ["round up my invoices", "my expense claims from <DATE1>"],
        ),
    ],
)
def test_new_split_points(text: str, clauses: list[str]) -> None:
    assert _split(text) == clauses


@pytest.mark.parametrize(
    "text",
    [
        "订单123456789012345678，状态怎么样",  # one ask: the comma only follows the object
        "订单123456789012345678现在到哪了",
        "book a room for 4 people tomorrow at 3pm",
    ],
)
def test_still_one_ask(text: str) -> None:
    assert len(_split(text)) == 1


@pytest.mark.parametrize(
    ("masked", "want"),
    [
        (
            "找一下手机号<PHONE1>的同事，帮我看看他<DATE1>的日程",
            ["找一下手机号<PHONE1>的同事", "帮我看看他<DATE1>的日程"],
        ),
        ("查下邮箱<EMAIL1>是谁，麻烦列一下他的订单", ["查下邮箱<EMAIL1>是谁", "麻烦列一下他的订单"]),
        ("我想问下<ORDER1>这单，先帮我查下物流", ["我想问下<ORDER1>这单，先帮我查下物流"]),
    ],
)
def test_a_zh_comma_before_a_polite_or_sequence_opener_and_a_verb_splits(
    masked: str, want: list[str]
) -> None:
    assert split_masked(masked) == want


def test_an_enumeration_comma_before_a_verb_splits_but_not_between_objects() -> None:
    assert split_masked("取消订单 <ORDER1>、查一下订单 <ORDER2> 的快递、再看看报销单 <EXP1> 的进度") == [
        "取消订单 <ORDER1>",
        "查一下订单 <ORDER2> 的快递",
        "看看报销单 <EXP1> 的进度",
    ]
    assert split_masked("查下<CITY1>、<CITY2>的天气") == ["查下<CITY1>、<CITY2>的天气"]


def test_after_a_count_of_asks_and_a_colon_every_list_mark_ends_an_ask() -> None:
    assert split_masked("帮我弄两件事：<CITY1><DATE1>多少度、订单 <ORDER1> 到哪了") == [
        "帮我弄两件事：<CITY1><DATE1>多少度",
        "订单 <ORDER1> 到哪了",
    ]
    assert split_masked("有几个问题: <EXP1>批了没；我<DATE1>有啥会") == [
        "有几个问题: <EXP1>批了没",
        "我<DATE1>有啥会",
    ]
    # no count before the colon: a 、 between objects stays one ask
    assert split_masked("查下天气：<CITY1>、<CITY2>") == ["查下天气：<CITY1>、<CITY2>"]
