"""ToolExecutor against the real mock service over loopback: permission gate, argument errors,
retries, idempotency, timeouts, normalization, truncation, headers."""

from __future__ import annotations

import asyncio

import pytest
from action_helpers import make_executor

from tao.action.executor import ExecContext
from tao.action.permissions import approve_tools
from tao.contracts import ErrorType, ToolSpec


def _order(mock_tools, status: str) -> str:
    return next(o for o, v in mock_tools.data.orders.items() if v["status"] == status)


async def test_read_tool_runs_and_headers_are_sent(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    r = await ex.execute(
        "get_user_profile",
        {"user_id": "U00000002"},
        ExecContext(thought_id="th-1", step_id="t1", trace_id="trace-abc"),
    )
    await ex.aclose()
    assert r.error_info is None and r.status_code == 200 and r.parsed_data["user_id"] == "U00000002"
    h = mock_tools.stats()["last_headers"]["get_user_profile"]
    assert h["x-request-id"] == "trace-abc-t1-a1" and h["x-thought-id"] == "th-1"
    assert "idempotency-key" not in h  # idempotent tools get no key


async def test_argument_errors_are_structured_and_no_call_is_made(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    r = await ex.execute("list_orders", {"user_id": "12345", "status": "lost"}, ExecContext())
    missing = await ex.execute("find_meeting_room", {"start": "2026-11-16 15:00"}, ExecContext())
    await ex.aclose()
    e = r.error_info
    assert e.error_type is ErrorType.TOOL_ARGUMENT_INVALID and e.field == "/user_id"
    assert "U[0-9]{8}" in e.expected and e.received == "'12345'" and "+1 more" in e.message
    assert (
        missing.error_info.field in ("/duration_min", "/capacity")
        and missing.error_info.received == "missing"
    )
    assert r.attempts == 0 and mock_tools.stats()["calls"] == {}


async def test_permission_levels_are_enforced_in_code(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    email = {"to": "li.na@example.com", "subject": "hi", "body": "hello"}
    denied = await ex.execute("send_email", email, ExecContext(step_id="t1"))
    wrong = await ex.execute(
        "send_email", email, ExecContext(step_id="t1", approver=approve_tools(["refund_payment"]))
    )

    def broken(_req):
        raise RuntimeError("approver down")

    crashed = await ex.execute("send_email", email, ExecContext(step_id="t1", approver=broken))
    assert mock_tools.stats()["calls"] == {}
    ok = await ex.execute(
        "send_email", email, ExecContext(step_id="t1", approver=approve_tools(["send_email"]))
    )

    async def async_yes(req):
        assert req.tool == "send_email" and req.permission.value == "high_risk"
        return True

    ok2 = await ex.execute(
        "send_email", dict(email, subject="second"), ExecContext(step_id="t2", approver=async_yes)
    )
    # write within its limit runs; over the limit needs approval (permission is checked first,
    # so 21 attendees are refused for approval before the schema's max of 20 is even looked at)
    attendees = [f"u{i}@example.com" for i in range(21)]
    ev = {"title": "all hands", "start": "2026-11-16 15:00", "duration_min": 30}
    small = await ex.execute(
        "create_calendar_event", dict(ev, attendees=attendees[:20]), ExecContext(step_id="t3")
    )
    big = await ex.execute("create_calendar_event", dict(ev, attendees=attendees), ExecContext(step_id="t4"))
    big_ok = await ex.execute(
        "create_calendar_event",
        dict(ev, attendees=attendees),
        ExecContext(step_id="t4", approver=approve_tools(["create_calendar_event"])),
    )
    await ex.aclose()
    for r in (denied, wrong, crashed, big):
        assert r.error_info.error_type is ErrorType.PERMISSION_DENIED and r.attempts == 0
    assert "approver failed" in crashed.error_info.message and "21 records" in big.error_info.message
    assert ok.error_info is None and ok2.error_info is None and small.error_info is None
    assert (
        big_ok.error_info.error_type is ErrorType.TOOL_ARGUMENT_INVALID
        and big_ok.error_info.field == "/attendees"
    )
    assert mock_tools.stats()["side_effects"] == {"send_email": 2, "create_calendar_event": 1}


async def test_write_limit_needs_approval_above_it(mock_tools) -> None:
    from tao.action.executor import ExecutorConfig, ToolExecutor
    from tao.action.registry import ToolRegistry
    from tao.domains.reference.registry import reference_registry

    spec = reference_registry()["create_calendar_event"].model_copy(update={"write_limit": 5})
    reg = ToolRegistry()
    reg.register_http([spec], mock_tools.url)
    ex = ToolExecutor(reg, ExecutorConfig())
    ev = {"title": "team", "start": "2026-11-16 15:00", "duration_min": 30}
    five = await ex.execute(
        "create_calendar_event", dict(ev, attendees=["a@example.com"] * 5), ExecContext(step_id="t1")
    )
    six = await ex.execute(
        "create_calendar_event", dict(ev, attendees=["a@example.com"] * 6), ExecContext(step_id="t2")
    )
    six_ok = await ex.execute(
        "create_calendar_event",
        dict(ev, attendees=["a@example.com"] * 6),
        ExecContext(step_id="t2", approver=approve_tools(["create_calendar_event"])),
    )
    await ex.aclose()
    assert five.error_info is None and six_ok.error_info is None
    assert (
        six.error_info.error_type is ErrorType.PERMISSION_DENIED
        and "6 records exceeds" in six.error_info.message
    )
    assert mock_tools.stats()["side_effects"] == {"create_calendar_event": 2}


async def test_idempotent_tool_retries_transient_failures_within_budget(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    mock_tools.script("500", "malformed", tools=["get_weather"])
    r = await ex.execute("get_weather", {"city": "上海", "date": "2026-11-16"}, ExecContext())
    assert r.error_info is None and r.attempts == 3
    mock_tools.script("500", "500", "500", "500", tools=["get_weather"])
    r2 = await ex.execute("get_weather", {"city": "上海", "date": "2026-11-16"}, ExecContext())
    await ex.aclose()
    assert r2.error_info.error_type is ErrorType.TOOL_TRANSIENT and r2.attempts == 3  # 1 + retry_budget 2
    assert mock_tools.stats()["calls"]["get_weather"] == 6


async def test_non_idempotent_tool_is_not_retried_and_repeats_are_deduplicated(mock_tools) -> None:
    ex = make_executor(mock_tools.url, timeout_s=0.3)
    oid = _order(mock_tools, "pending")
    args = {"order_id": oid, "reason": "changed my mind"}
    ctx = ExecContext(thought_id="th-cancel", step_id="t1")
    mock_tools.script("timeout", tools=["cancel_order"])
    first = await ex.execute("cancel_order", args, ctx)
    assert first.error_info.error_type is ErrorType.TOOL_TIMEOUT and first.attempts == 1
    again = await ex.execute("cancel_order", args, ctx)  # same step again: same key, server replays
    assert again.error_info is None and again.parsed_data == {"order_id": oid, "cancelled": True}
    third = await asyncio.gather(*[ex.execute("cancel_order", args, ctx) for _ in range(5)])
    await ex.aclose()
    assert all(t.attempts == 0 and t.error_info is None for t in third)  # local dedup, no call
    s = mock_tools.stats()
    assert s["side_effects"] == {"cancel_order": 1} and s["calls"]["cancel_order"] == 2
    assert s["replays"] == {"cancel_order": 1} and first.idempotency_key == again.idempotency_key
    assert s["last_headers"]["cancel_order"]["idempotency-key"] == first.idempotency_key
    assert ex.stats["dedup_hits"] == 5


async def test_without_keys_the_service_would_double_charge(mock_tools) -> None:
    """The counter the idempotency tests rely on can fail: two keyless calls make two effects."""
    import httpx

    oid = _order(mock_tools, "paid")
    async with httpx.AsyncClient() as c:
        for _ in range(2):
            await c.post(mock_tools.url + "/tools/refund_payment", json={"order_id": oid, "amount": 5})
    assert mock_tools.stats()["side_effects"] == {"refund_payment": 2}


async def test_timeouts_global_override_and_deadline(mock_tools) -> None:
    import time

    ex = make_executor(mock_tools.url, timeout_s=0.2, max_retries=0)
    mock_tools.script("slow", tools=["get_weather"])
    mock_tools.svc.state.faults.slow_s = 1.0
    t = time.perf_counter()
    r = await ex.execute("get_weather", {"city": "北京"}, ExecContext())
    assert r.error_info.error_type is ErrorType.TOOL_TIMEOUT and time.perf_counter() - t < 0.8
    past = await ex.execute("get_weather", {"city": "北京"}, ExecContext(deadline=time.monotonic() - 1))
    await ex.aclose()
    assert past.error_info.error_type is ErrorType.BUDGET_EXHAUSTED


@pytest.mark.parametrize(
    "fault,check",
    [
        ("xml", lambda r: r.error_info is None and r.parsed_data["response"]["user_id"] == "U00000003"),
        ("html", lambda r: r.error_info is None and r.parsed_data["html"]["title"] == "502 Bad Gateway"),
        ("malformed", lambda r: r.error_info.error_type is ErrorType.TOOL_MALFORMED_RESPONSE),
        (
            "401",
            lambda r: (
                r.error_info.error_type is ErrorType.TOOL_CLIENT_ERROR
                and "not an empty result" in r.error_info.message
            ),
        ),
        ("429", lambda r: r.error_info.error_type is ErrorType.RATE_LIMITED),
        ("504", lambda r: r.error_info.error_type is ErrorType.TOOL_TIMEOUT),
        ("503", lambda r: r.error_info.error_type is ErrorType.TOOL_TRANSIENT),
    ],
)
async def test_every_body_and_status_is_normalized(mock_tools, fault, check) -> None:
    ex = make_executor(mock_tools.url, max_retries=0)
    r = await ex.execute(
        "get_user_profile", {"user_id": "U00000003"}, ExecContext(headers={"X-Mock-Fault": fault})
    )
    await ex.aclose()
    assert check(r), r


async def test_results_are_truncated_with_a_note(mock_tools) -> None:
    specs = {
        s.name: s for s in __import__("tao.domains.reference.registry", fromlist=["x"]).reference_tools()
    }
    small = specs["list_orders"].model_copy(update={"max_result_tokens": 60})
    from tao.action.executor import ExecutorConfig, ToolExecutor
    from tao.action.registry import ToolRegistry

    reg = ToolRegistry()
    reg.register_http([small], mock_tools.url)
    ex = ToolExecutor(reg, ExecutorConfig())
    r = await ex.execute("list_orders", {"user_id": "U00000001"}, ExecContext())
    await ex.aclose()
    assert r.error_info is None and r.parsed_data["count"] == 8 and 1 <= len(r.parsed_data["orders"]) < 8
    assert r.truncated.startswith("/orders: kept ") and "of 8 items" in r.truncated


async def test_unknown_tool_and_python_tools() -> None:
    from pydantic import BaseModel

    from tao.action.executor import ToolExecutor
    from tao.action.registry import ToolError, ToolRegistry

    class Args(BaseModel):
        x: int

    reg = ToolRegistry()

    @reg.function(name="double", description="double x", args_model=Args)
    def double(x: int) -> dict:
        return {"y": 2 * x}

    @reg.function(name="adouble", description="async double x", args_model=Args)
    async def adouble(x: int) -> dict:
        return {"y": 2 * x}

    @reg.function(name="picky", description="rejects odd x", args_model=Args, retry_budget=0)
    def picky(x: int) -> dict:
        if x % 2:
            raise ToolError(ErrorType.TOOL_CLIENT_ERROR, "x must be even", 422)
        raise KeyError("bug")

    ex = ToolExecutor(reg)
    assert (await ex.execute("double", {"x": 2})).parsed_data == {"y": 4}
    assert (await ex.execute("adouble", {"x": 3})).parsed_data == {"y": 6}
    odd = await ex.execute("picky", {"x": 1})
    bug = await ex.execute("picky", {"x": 2})
    unknown = await ex.execute("nope", {})
    assert odd.error_info.error_type is ErrorType.TOOL_CLIENT_ERROR and odd.status_code == 422
    assert bug.error_info.error_type is ErrorType.TOOL_TRANSIENT and "KeyError" in bug.error_info.message
    assert unknown.error_info.error_type is ErrorType.TOOL_UNKNOWN and "double" in unknown.error_info.expected
    exported = {t["name"]: t for t in reg.export()}
    assert exported["double"]["args_schema"]["properties"]["x"]["type"] == "integer"
    assert exported["double"]["transport"] == "python" and isinstance(
        ToolSpec.model_validate({k: v for k, v in exported["double"].items() if k != "transport"}), ToolSpec
    )
