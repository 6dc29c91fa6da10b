"""``tao.loop.intent.actions``: explicit asks are found (status questions and modifiers are not),
what a tool set performs comes from its names' verbs, a covered action is served, and the router
sends a request asking what its tools cannot do to the fallback branch (phrasings written for
these tests, not taken from any evaluation set)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tao.loop.intent.actions import Action, action_text, performed, requested, unserved
from tao.loop.intent.router import RouteBranch


def _asked(text: str) -> set[str]:
    return {a.value for a in requested(action_text(text))}


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("please void invoice INV2025010101, the total is wrong", "void"),
        ("把发票INV2025010101作废掉", "void"),
        ("Approve the travel claim Jo sent me", "approve"),
        ("帮我批准一下小王的请假", "approve"),
        ("reject that refund request", "reject"),
        ("把这张报销单驳回", "reject"),
        ("close TCK-100200, it's fixed", "close"),
        ("撤回我昨天提交的报销", "withdraw"),
        ("merge these two tickets", "merge"),
        ("move my 10am to Friday", "reschedule"),
        ("把周会改期到下周三", "reschedule"),
        ("check me in for the morning flight", "check_in"),
        ("add a note to the ticket saying the fan is loud", "note"),
        ("請把這張發票作廢", "void"),  # traditional characters
    ],
)
def test_an_explicit_ask_is_found(text: str, action: str) -> None:
    assert action in _asked(text)


@pytest.mark.parametrize(
    "text",
    [
        "was my leave approved?",  # a status question, not an ask
        "is invoice INV2025010101 void or issued?",
        "show me my most recent void invoice",
        "这张发票是不是已经作废了",
        "列出我被驳回的报销单",
        "已关闭的工单有哪些",
        "send Li an email, body: the meeting is rescheduled, please cancel your trip",  # dictated
        "发邮件给王总，内容是会议改到下周",
        "book the airport transfer as an expense",
        "plane check in time for my trip",
        "any update on my order?",
    ],
)
def test_status_questions_modifiers_and_dictated_text_ask_nothing_of_the_tools(text: str) -> None:
    assert _asked(text) == set(), text


def test_what_tools_perform_comes_from_their_names() -> None:
    assert performed(["cancel_order", "get_order_status"]) == {Action.CANCEL}
    assert performed(["update_user_profile", "reset_password"]) == {Action.CHANGE}
    assert performed(["get_invoice", "list_invoices", "create_invoice"]) == frozenset()


def test_a_covered_action_is_served_and_an_uncovered_one_is_not() -> None:
    # withdrawing / deleting a leave request is what cancel_leave_request does
    assert (
        unserved("withdraw my leave request LV-1", ["request_leave", "cancel_leave_request"]) == frozenset()
    )
    assert unserved("delete my leave request LV-1", ["cancel_leave_request"]) == frozenset()
    # no invoice tool voids or cancels anything
    assert unserved("void invoice INV1", ["get_invoice", "create_invoice"]) == {Action.VOID}
    # a user registry gets the same check from its own names
    assert unserved("approve expense E-1", ["get_expense", "approve_expense"]) == frozenset()


def test_the_router_sends_an_unserved_ask_to_the_fallback_branch(combined_router) -> None:
    text = "void invoice INV2025010101 please, it went out with the wrong amount"
    d = combined_router.route(text)
    assert d.branch is RouteBranch.FALLBACK and d.rule == "unserved_action:void", d.record()
    assert d.best is not None and d.best[0] in {"get_invoice", "list_invoices", "create_invoice"}
    off = replace(combined_router.config, action_check=False)
    saved = combined_router.config
    combined_router.config = off
    try:
        assert combined_router.route(text).routed  # the classifier alone routes it to the invoices
    finally:
        combined_router.config = saved
    served = combined_router.route("please cancel my leave request LV-2025-0042")
    assert served.routed and "cancel_leave_request" in served.tools


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("could you expedite the shipment of my order, I need it Monday", "expedite"),
        ("订单帮我加急配送一下", "expedite"),
        ("swap the jacket in my order for a size M", "exchange"),
        ("这件衣服我想换个颜色", "exchange"),
        ("add a late checkout to the booked hotel on my trip", "add"),
        ("发票上的备注栏里的抬头后面加上部门名称", "add"),
        ("what's the difference between the two refund options?", "policy"),
        ("差旅住宿的报销标准是多少", "policy"),
        ("what was the coldest day on record in Oslo, ever recorded?", "statistics"),
        ("广州往年十二月冷不冷", "statistics"),
        ("please export my leave history to a spreadsheet", "export"),
        ("把工资条打印出来", "export"),
        ("send an SMS to the driver that I'm late", "text_message"),
        ("给老板发条短信说我晚到", "text_message"),
        ("has MU5101 departed yet? it should be late", "flight_status"),
        ("get me a cab to the station at 7", "outside_service"),
        ("帮我订两张周日去苏州的动车", "outside_service"),
        ("read my inbox and summarise anything from legal", "read_inbox"),
        ("schedule an email to the vendor for Tuesday 8am", "schedule_send"),
        ("ok thanks, bye!", "small_talk"),
        ("好的，谢谢，辛苦了", "small_talk"),
        ("release the room booking for Thursday, we're done", "cancel"),
        ("把这个会议室退掉", "cancel"),
        ("move the intern to the design team: transfer her next week", "transfer"),
    ],
)
def test_round4_asks_are_found(text: str, action: str) -> None:
    assert action in _asked(text), _asked(text)


@pytest.mark.parametrize(
    "text",
    [
        "did my manager approve the trip?",  # a question about an action, not an ask
        "has anyone cancelled the offsite yet",
        "taxi to the airport yesterday, 120 yuan, please file it as an expense",  # a receipt, not a ride
        "上周打车去机场花了90，帮我报销",
        "thanks! now show me order 202611280011229834",  # thanks before a real ask
        "Weather forecast for a city. Not for historical climate.",  # a stated limit
        "my parcel is late, where is it?",  # a late parcel, not a flight
        "update me on the refund",  # "update me" asks for news
    ],
)
def test_round4_non_asks(text: str) -> None:
    assert _asked(text) == set(), text


def test_an_unsplit_second_ask_keeps_its_tools(combined_router) -> None:
    """Two asks the clause splitter keeps together: the change is served by the profile tool the
    classifier is as sure of, not sent to the fallback branch because the best tool is a room's."""
    d = combined_router.route(
        "reserve R210 for an hour on Monday at 10am. Also: update my email to kai@example.com"
    )
    assert d.routed and "update_user_profile" in d.tools, d.record()
