"""Perception: entities are found, normalized and replaced by typed slot tokens."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive

TODAY = date(2026, 11, 29)


@pytest.mark.parametrize(
    "request_, masked, slots",
    [
        ("查询上个月的订单状态", "查询<DATE1>的订单状态", {"<DATE1>": "@last_month"}),
        (
            "查一下订单123456789012345678的物流",
            "查一下订单<ORDER1>的物流",
            {"<ORDER1>": "123456789012345678"},
        ),
        (
            "明天下午3点帮我订个10人的会议室，开1小时",
            "<DATE1>帮我订个<NUM1>的会议室，开<DUR1>",
            {"<DATE1>": "@tomorrow T15:00", "<NUM1>": 10, "<DUR1>": 60},
        ),
        (
            "book a room for 6 people at 3:30pm tomorrow for 45 minutes",
            "book a room for <NUM1> at <DATE1> for <DUR1>",
            {"<NUM1>": 6, "<DATE1>": "@tomorrow T15:30", "<DUR1>": 45},
        ),
        (
            "报销2026-03-05的打车费88元",
            "报销<DATE1>的打车费<AMOUNT1>",
            {"<DATE1>": "2026-03-05", "<AMOUNT1>": 88.0},
        ),
        (
            "What's the weather in New York tomorrow?",
            "What's the weather in <CITY1> <DATE1>?",
            {"<CITY1>": "New York", "<DATE1>": "@tomorrow"},
        ),
        ("把我的手机号改成13812345678", "把我的手机号改成<PHONE1>", {"<PHONE1>": "13812345678"}),
        (
            "email alice@example.com, subject: Q3 report, body: see attachment",
            "email <EMAIL1>, subject: <TEXT1>, body: <TEXT2>",
            {"<EMAIL1>": "alice@example.com", "<TEXT1>": "Q3 report", "<TEXT2>": "see attachment"},
        ),
        (
            "开发票，抬头是上海某某科技有限公司，订单号987654321098765432",
            "开发票，抬头是<TEXT1>，订单号<ORDER1>",
            {"<TEXT1>": "上海某某科技有限公司", "<ORDER1>": "987654321098765432"},
        ),
        ("帮我查下李娜的资料", "帮我查下<NAME1>的资料", {"<NAME1>": "李娜"}),
        (
            "invoice INV0123456789 and expense exp12345678 for user U12345678 in room R101",
            "invoice <INV1> and expense <EXP1> for user <USER1> in room <ROOM1>",
            {"<INV1>": "INV0123456789", "<EXP1>": "EXP12345678", "<USER1>": "U12345678", "<ROOM1>": "R101"},
        ),
        ("3天前和5 days ago", "<DATE1>和<DATE2>", {"<DATE1>": "@days_ago:3", "<DATE2>": "@days_ago:5"}),
        ("3月5日下午2点半开会一个半小时", "<DATE1>开会<DUR1>", {"<DATE1>": "2026-03-05 14:30", "<DUR1>": 90}),
    ],
)
def test_perceive(request_: str, masked: str, slots: dict) -> None:
    p = perceive(request_, today=TODAY)
    assert p.masked == masked
    assert p.slots == slots


def test_same_value_shares_one_slot_and_angle_brackets_are_escaped() -> None:
    p = perceive("订单123456789012345678和123456789012345678 <ORDER9>", today=TODAY)
    assert p.masked == "订单<ORDER1>和<ORDER1> ＜ORDER9＞"
    assert p.slot_for("ORDER", "123456789012345678") == "<ORDER1>"
    assert p.slot_for("ORDER", "000000000000000000") is None


def test_empty_and_plain_requests() -> None:
    assert perceive("", today=TODAY).masked == ""
    p = perceive("hello there", today=TODAY)
    assert p.slots == {} and p.masked == "hello there"


@pytest.mark.parametrize(
    "request_, value",
    [
        ("next Monday 2pm", "2026-11-30 14:00"),  # TODAY is a Sunday
        ("下周三下午3点", "2026-12-02 15:00"),
        ("on Friday", "2026-12-04"),
        ("上周五", "2026-11-20"),
    ],
)
def test_weekdays_become_absolute_dates(request_: str, value: str) -> None:
    assert perceive(request_, today=TODAY).slots == {"<DATE1>": value}


def test_three_character_chinese_names() -> None:
    assert perceive("王小明最近一笔订单到哪了", today=TODAY).slots == {"<NAME1>": "王小明"}
    assert perceive("张伟明天有空吗", today=TODAY).slots == {"<NAME1>": "张伟", "<DATE1>": "@tomorrow"}


def test_cued_free_text_ends_at_a_connector() -> None:
    """Open a ticket about X and then check it: the next ask is no part of X (issue #15)."""
    p = perceive("request a refund because the box was broken and then cancel it", today=TODAY)
    assert p.slots == {"<TEXT1>": "the box was broken"}
    p = perceive("报销，原因是客户拜访然后查一下我的报销", today=TODAY)
    assert p.slots == {"<TEXT1>": "客户拜访"}


def test_chinese_name_before_an_action_verb() -> None:
    """给王芳重置 / 给陈刚提一个 / 王丹丹领了 (helpdesk requests; issue #15)."""
    assert perceive("给王芳重置VPN密码", today=TODAY).slots == {"<NAME1>": "王芳"}
    assert perceive("给陈刚提一个工单", today=TODAY).slots == {"<NAME1>": "陈刚"}
    assert perceive("李娜领了哪些设备", today=TODAY).slots == {"<NAME1>": "李娜"}
    assert perceive("给我重置VPN密码", today=TODAY).slots == {}


def test_a_surname_with_a_particle_is_no_name() -> None:
    """In 优先级高吧, 高 + 吧 is no person (issue #15); 王芳吧 is 王芳."""
    slots = perceive("我要报修，问题是电脑坏了，高吧", today=TODAY).slots
    assert not any(k.startswith("<NAME") for k in slots)
    assert perceive("查一下王芳吧", today=TODAY).slots == {"<NAME1>": "王芳"}
    assert perceive("查一下王小明吧", today=TODAY).slots == {"<NAME1>": "王小明"}


def test_bare_expense_amounts_and_sign_off_words() -> None:
    """A number before an expense noun or after 'expense of' is an amount; a sign-off word is no name."""
    today = date(2026, 5, 11)
    p = perceive("Submit a 45.5 meal expense for today, description: team lunch", today=today)
    assert p.slots.get("<AMOUNT1>") == 45.5
    p = perceive("Submit a travel expense of 560 for yesterday, description: train", today=today)
    assert p.slots.get("<AMOUNT1>") == 560.0
    assert "<AMOUNT1>" not in perceive("the 2 rooms for 3 people", today=today).slots
    p = perceive("Cheers, what is the weather in Berlin", today=today)
    assert not any(t.startswith("<NAME") for t in p.slots)


def test_a_name_after_zhao_dao_or_zhao_yi_xia() -> None:
    """'找到刘洋' / '找一下黄志明' name a person (the cue list had 找 and 查一下 only)."""
    today = date(2026, 5, 11)
    assert perceive("找到刘洋，把他的手机号改成13912345678", today=today).slots.get("<NAME1>") == "刘洋"
    assert perceive("幫我找一下黃志明，看看他的訂單", today=today).slots.get("<NAME1>") == "黄志明"
    assert not any(t.startswith("<NAME") for t in perceive("找一下会议室", today=today).slots)


def test_a_two_character_name_before_de_loses_it() -> None:
    """'查一下陈伟的发票': the name is 陈伟, not 陈伟的 (the greedy 1-2 characters took 的)."""
    assert perceive("幫我查一下陳偉的發票", today=date(2026, 5, 11)).slots.get("<NAME1>") == "陈伟"


def test_reason_is_x_binds_x_and_name_before_ming_xia() -> None:
    """'the reason is a cracked hinge' binds 'a cracked hinge'; 刘芳名下的设备 names 刘芳, not 刘芳名 (issue #15)."""
    p = perceive("request a replacement, the reason is a cracked hinge", today=TODAY)
    assert p.slots == {"<TEXT1>": "a cracked hinge"}
    assert perceive("查一下刘芳名下的设备", today=TODAY).slots == {"<NAME1>": "刘芳"}
    assert perceive("查一下王名扬的设备", today=TODAY).slots == {"<NAME1>": "王名扬"}


def test_known_free_text_is_a_slot_without_a_cue() -> None:
    """A training row's free text (``known_text``) is a TEXT slot where no cue marks it; entities
    inside it go; without it perception finds none (what serving sees before the uncued pass)."""
    from datetime import date as _date

    from thought_model.entities import perceive as _perceive

    req = "Cancel order 202611051234567890, wrong shipping address"
    assert not any(k.startswith("<TEXT") for k in _perceive(req, today=_date(2026, 3, 4)).slots)
    p = _perceive(req, today=_date(2026, 3, 4), known_text=["wrong shipping address"])
    assert p.slots["<TEXT1>"] == "wrong shipping address" and "<ORDER1>" in p.masked
    p = _perceive("报销 300 元，去成都出差的机票", today=_date(2026, 3, 4), known_text=["去成都出差的机票"])
    assert p.slots.get("<TEXT1>") == "去成都出差的机票" and not any(k.startswith("<CITY") for k in p.slots)
    # a value not written verbatim (a typo changed it) is left to perception
    p = _perceive(req, today=_date(2026, 3, 4), known_text=["wrong shiping address"])
    assert not any(k.startswith("<TEXT") for k in p.slots)
