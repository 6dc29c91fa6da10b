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
