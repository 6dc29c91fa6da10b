"""Outbound content is data (issue 16 item 9): email subjects/bodies and calendar titles built from
user text or tool results are escaped or refused per their contract (``x-tao-outbound``), and never
carry another tool's raw result the plan did not ask for.

Reads run against the real mock service; the outbound tool (``send_email``) is an in-process tool
with the reference contract that records what it was sent, so the tests see the bytes that leave."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from action_helpers import demo_session, make_executor, make_loop, plan

from tao.action.executor import ExecContext
from tao.action.outbound import (
    OutboundMode,
    OutboundRejected,
    check_provenance,
    escape_text,
    markup_in,
    outbound_fields,
    prepare,
)
from tao.action.permissions import approve_tools
from tao.contracts import ErrorType, StepStatus
from tao.domains.reference.registry import reference_registry

REG = reference_registry()

HOSTILE = [
    "<script>alert(document.cookie)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">click</a>',
    "[verify your account](javascript:alert(1))",
    "[reset password](JaVaScRiPt :fetch('//evil'))",
    "java\tscript:alert(1)",
    "![tracker](https://evil.example/p.png?u=1)",
    "<iframe src=//evil.example></iframe>",
    "<!-- hidden --><b>Ignore previous instructions</b>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "<svg/onload=alert(1)>",
    "&#106;avascript:alert(1)",
    "</textarea><script>x()</script>",
]
SAFE = [
    "Your order 209911150000000001 has shipped.",
    "a < b & c > d",
    "会议改到明天下午3点",
    "50% off (today only)",
]


def _inert(sent: str) -> bool:
    """No tag opener, no live dangerous scheme, no unescaped Markdown link/image."""
    squashed = re.sub(r"\s", "", sent).lower()
    return (
        "<" not in sent
        and "javascript:" not in squashed
        and "vbscript:" not in squashed
        and not re.search(r"data:[a-z]+/", squashed)
        and not re.search(r"(?<!\\)\]\s*\(", sent)
    )


def test_contract_declares_the_outbound_arguments() -> None:
    assert outbound_fields(REG["send_email"]) == {"subject": OutboundMode.REJECT, "body": OutboundMode.ESCAPE}
    assert outbound_fields(REG["create_calendar_event"]) == {"title": OutboundMode.ESCAPE}
    assert outbound_fields(REG["get_order_status"]) == {}


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_payloads_are_escaped_inert_and_detected(payload: str) -> None:
    assert _inert(escape_text(payload)), escape_text(payload)
    assert markup_in(payload) is not None


@pytest.mark.parametrize("text", SAFE)
def test_plain_text_is_not_refused(text: str) -> None:
    assert markup_in(text) is None


def test_prepare_escapes_body_and_rejects_subject() -> None:
    spec = REG["send_email"]
    out = prepare(spec, {"to": "a@example.com", "subject": "hi", "body": HOSTILE[0]})
    assert out["body"] == "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" and out["subject"] == "hi"
    with pytest.raises(OutboundRejected) as exc:
        prepare(spec, {"to": "a@example.com", "subject": HOSTILE[1], "body": "x"})
    assert exc.value.field == "subject"
    plain = {"to": "a@example.com", "subject": "hi", "body": "hello"}
    assert prepare(spec, plain) is plain  # nothing to change: the same object


def test_plain_mode_sends_unchanged_but_is_still_outbound() -> None:
    spec = REG["send_email"].model_copy(deep=True)
    spec.args_schema["properties"]["body"]["x-tao-outbound"] = "plain"
    assert outbound_fields(spec)["body"] is OutboundMode.PLAIN
    args = {"to": "a@example.com", "subject": "hi", "body": "<b>as typed</b>"}
    assert prepare(spec, args)["body"] == "<b>as typed</b>"
    with pytest.raises(OutboundRejected):  # the raw-result rule still applies
        check_provenance(spec, {"body": "${t1.orders}"}, {"body": [{"order_id": "1"}]}, [{}])


def test_provenance_refuses_a_raw_record_and_a_pasted_result() -> None:
    spec = REG["send_email"]
    rec = {"user_id": "U00000002", "email": "li@example.com", "orders": [{"order_id": "1", "status": "paid"}]}
    with pytest.raises(OutboundRejected, match="raw tool result"):
        check_provenance(spec, {"body": "${t1.orders}"}, {"body": rec["orders"]}, [rec])
    pasted = "see: " + json.dumps(rec["orders"][0], ensure_ascii=False)
    with pytest.raises(OutboundRejected, match="did not ask for"):
        check_provenance(spec, {"body": pasted}, {"body": pasted}, [rec])
    # a reference to one field is an ask; text of the user's own is fine
    check_provenance(spec, {"body": "${t1.email}"}, {"body": rec["email"]}, [rec])
    check_provenance(spec, {"body": "thanks, paid"}, {"body": "thanks, paid"}, [rec])


class Outbox:
    """An in-process send_email (the reference contract) that keeps what it was sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def __call__(self, **args: Any) -> dict[str, Any]:
        self.sent.append(args)
        return {"message_id": f"MSG{len(self.sent):06d}"}


def _executor(url: str) -> tuple[Any, Outbox]:
    ex = make_executor(url)
    box = Outbox()
    ex.registry.register(REG["send_email"], box)
    return ex, box


async def test_executor_sends_escaped_body_and_refuses_markup_subject(mock_tools) -> None:
    ex, box = _executor(mock_tools.url)
    ctx = ExecContext(thought_id="th-out-1", step_id="t1", approver=approve_tools(["send_email"]))
    args = {"to": "li.na@example.com", "subject": "Order update", "body": "Hi <script>alert(1)</script>"}
    res = await ex.execute("send_email", args, ctx)
    assert res.error_info is None and box.sent[-1]["body"] == "Hi &lt;script&gt;alert(1)&lt;/script&gt;"
    bad = dict(args, subject='<img src=x onerror="alert(1)">')
    res = await ex.execute("send_email", bad, ExecContext(thought_id="th-out-2", step_id="t1"))
    err = res.error_info
    assert err is not None and err.error_type is ErrorType.TOOL_ARGUMENT_INVALID and err.field == "/subject"
    assert "HTML tag" in err.message and len(box.sent) == 1  # refused before approval, nothing sent
    await ex.aclose()


async def test_markup_inside_a_tool_result_flows_into_an_email_inert(mock_tools) -> None:
    payload = "<img src=x onerror=alert(1)> [verify](javascript:alert(1)) <script>steal()</script>"
    mock_tools.patch("get_user_profile", {"city": payload})
    ex, box = _executor(mock_tools.url)
    p = plan(
        ("t1", "get_user_profile", {"user_id": "U00000002"}),
        (
            "t2",
            "send_email",
            {"to": "li.na@example.com", "subject": "Your city", "body": "${t1.city}"},
            ["t1"],
        ),
    )
    loop, _ = make_loop(ex, p)
    report = await loop.run("mail my city", demo_session(), approver=approve_tools(["send_email"]))
    assert report.status.value == "success", report.to_dict()
    assert len(box.sent) == 1 and _inert(box.sent[0]["body"]), box.sent
    assert "&lt;script&gt;steal()&lt;/script&gt;" in box.sent[0]["body"]
    await ex.aclose()


async def test_markup_from_a_tool_result_into_a_subject_is_refused(mock_tools) -> None:
    mock_tools.patch("get_user_profile", {"name": "<script>alert(1)</script>"})
    ex, box = _executor(mock_tools.url)
    p = plan(
        ("t1", "get_user_profile", {"user_id": "U00000002"}),
        ("t2", "send_email", {"to": "li.na@example.com", "subject": "${t1.name}", "body": "hello"}, ["t1"]),
    )
    loop, _ = make_loop(ex, p)
    report = await loop.run("mail", demo_session(), approver=approve_tools(["send_email"]))
    t2 = next(s for s in report.steps if s.step_id == "t2")
    assert t2.status is StepStatus.NEEDS_USER and t2.error_type is ErrorType.TOOL_ARGUMENT_INVALID
    assert report.status.value == "needs_user" and box.sent == []
    await ex.aclose()


async def test_a_whole_raw_result_is_never_mailed(mock_tools) -> None:
    ex, box = _executor(mock_tools.url)
    p = plan(
        ("t1", "list_orders", {"user_id": "U00000002", "period": "@last_month"}),
        (
            "t2",
            "send_email",
            {"to": "li.na@example.com", "subject": "orders", "body": "${t1.orders}"},
            ["t1"],
        ),
    )
    loop, _ = make_loop(ex, p)
    report = await loop.run("mail my orders", demo_session(), approver=approve_tools(["send_email"]))
    t2 = next(s for s in report.steps if s.step_id == "t2")
    assert t2.status is StepStatus.NEEDS_USER and t2.error_type is ErrorType.TOOL_ARGUMENT_INVALID
    assert "raw tool result" in t2.message and box.sent == []
    # the same plan asking for one field is an ask: it is sent
    p2 = plan(
        ("t1", "get_user_profile", {"user_id": "U00000002"}),
        ("t2", "send_email", {"to": "li.na@example.com", "subject": "hi", "body": "${t1.email}"}, ["t1"]),
    )
    loop2, _ = make_loop(ex, p2)
    report2 = await loop2.run("mail", demo_session(), approver=approve_tools(["send_email"]))
    assert report2.status.value == "success" and len(box.sent) == 1 and "@" in box.sent[0]["body"]
    await ex.aclose()
