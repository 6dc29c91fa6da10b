"""Reading follow-up turns (tao/loop/followup.py): kinds, values, references. No model."""

from __future__ import annotations

from datetime import date

import pytest

from tao.loop.followup import CarryKind, find_months, read_followup

TODAY = date(2026, 6, 10)


def read(text: str, previous: str = "查询我上个月的订单", pending: bool = False):
    return read_followup(text, TODAY, has_previous=True, pending=pending, previous=previous)


@pytest.mark.parametrize(
    ("text", "previous", "kind"),
    [
        ("那3月呢？", "查询我上个月的订单", CarryKind.SWAP),
        ("那上海呢", "北京明天天气怎么样", CarryKind.SWAP),
        ("改成明天", "我今天有什么日程", CarryKind.SWAP),
        ("换成下周", "查询我上个月的订单", CarryKind.SWAP),
        ("same for last week", "list my orders last month", CarryKind.SWAP),
        ("make it 4pm instead", "find a room for 6 tomorrow at 3pm for 1 hour", CarryKind.SWAP),
        ("change it to the day after tomorrow", "what's on my calendar tomorrow", CarryKind.SWAP),
        ("and where is it now?", "status of order 202605121234567890", CarryKind.REFER),
        ("book the first one", "find a room for 6 tomorrow at 3pm for 1 hour", CarryKind.REFER),
        ("它的物流呢", "查询订单202605121234567890的状态", CarryKind.REFER),
        ("那个订单呢", "查询我上个月的订单", CarryKind.REFER),
        ("取消它，原因是不想要了", "查询订单202605121234567890的状态", CarryKind.REFER),
        # a new request is never carried: new content words, or no follow-up cue at all
        ("明天的日程呢", "北京明天天气怎么样", CarryKind.NEW),
        ("what about my calendar tomorrow?", "weather in Paris tomorrow", CarryKind.NEW),
        ("北京明天天气怎么样", "查询订单202605121234567890的物流", CarryKind.NEW),
        ("查询我上个月的订单", "北京明天天气怎么样", CarryKind.NEW),
    ],
)
def test_kinds(text: str, previous: str, kind: CarryKind) -> None:
    assert read(text, previous).kind is kind


def test_no_previous_turn_is_always_new() -> None:
    assert read_followup("那3月呢", TODAY, has_previous=False, pending=False).kind is CarryKind.NEW


def test_answer_to_a_pending_question() -> None:
    fu = read("明天上午10点，6个人，1小时", previous="找个会议室", pending=True)
    assert fu.kind is CarryKind.ANSWER
    assert {d.type for d in fu.deltas} == {"DATE", "NUM", "DUR"}


def test_values() -> None:
    assert [(d.type, d.value) for d in read("那3月呢").deltas] == [("DATE", "2026-03")]
    # "去年12月" is one month, not perception's "去年" (@last_year)
    assert [(d.type, d.value) for d in read("去年12月呢").deltas] == [("DATE", "2025-12")]
    assert [(d.type, d.value) for d in read("what about March?", "list my orders").deltas] == [
        ("DATE", "2026-03")
    ]
    clock = read("改成下午4点", "找一个明天下午2点的会议室").deltas
    assert clock[0].value == "@today T16:00" and clock[0].time_only
    day = read("改成明天下午4点", "找一个明天下午2点的会议室").deltas
    assert not day[0].time_only


def test_references() -> None:
    fu = read("book the second room", "find a room for 6 tomorrow at 3pm for 1 hour")
    assert (fu.ordinal, fu.ref_kind) == (2, "room")
    assert read("订第一个", "找个会议室").ordinal == 1
    assert read("the last one", "find a room").ordinal == -1
    # "last week" is a period, not an ordinal
    assert read("same for last week", "list my orders last month").ordinal is None
    assert read("那个订单呢").ref_kind == "order"
    # "这个月" is a period, not a pronoun
    assert read("这个月呢").kind is CarryKind.SWAP


def test_months_modal_may_is_not_a_month() -> None:
    assert find_months("you may book it", TODAY) == []
    assert [d.value for d in find_months("what about May?", TODAY)] == ["2026-05"]
