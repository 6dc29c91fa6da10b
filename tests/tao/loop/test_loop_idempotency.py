"""A non-idempotent tool is never executed twice under timeouts and retries: side effects are
counted on the mock service itself."""

from __future__ import annotations

import asyncio

from action_helpers import demo_session, make_executor, make_loop, plan

from tao.action.executor import ExecContext
from tao.contracts import EventKind


def pending_orders(mock) -> list[str]:
    return [o for o, v in mock.data.orders.items() if v["status"] == "pending"]


async def test_timeouts_and_retries_never_repeat_a_side_effect(mock_tools) -> None:
    oid = pending_orders(mock_tools)[0]
    ex = make_executor(mock_tools.url, timeout_s=0.25)
    p = plan(("t1", "cancel_order", {"order_id": oid, "reason": "duplicate order"}))
    mock_tools.script("timeout", "timeout", tools=["cancel_order"])  # request done, response lost (twice)
    loop, _ = make_loop(
        ex, p, correction=__import__("tao.loop.correction", fromlist=["x"]).CorrectionBudget(retries=3)
    )
    rep = await loop.run("取消订单", demo_session(), approver=None)
    s = mock_tools.stats()
    assert rep.status == "success" and rep.answer["t1"] == {"cancelled": True}
    assert s["side_effects"] == {"cancel_order": 1}  # executed once ...
    assert s["calls"]["cancel_order"] == 3 and s["replays"] == {
        "cancel_order": 2
    }  # ... though called 3 times
    keys = {e.payload["idempotency_key"] for e in rep.events if e.kind is EventKind.TOOL_END}
    assert len(keys) == 1 and None not in keys
    # the same plan (same thought) run again: the local record answers, no call at all
    again, _ = make_loop(ex, dict(p, thought_id=rep.thought_id))
    rep2 = await again.run("取消订单", demo_session())
    assert rep2.status == "success" and rep2.steps[0].deduplicated
    assert mock_tools.stats()["calls"]["cancel_order"] == 3
    await ex.aclose()


async def test_concurrent_duplicates_and_distinct_thoughts(mock_tools) -> None:
    oids = pending_orders(mock_tools)[:2]
    ex = make_executor(mock_tools.url)
    ctx = ExecContext(thought_id="same-thought", step_id="t1")
    args = {"order_id": oids[0], "reason": "r"}
    results = await asyncio.gather(*[ex.execute("cancel_order", args, ctx) for _ in range(8)])
    assert all(r.error_info is None for r in results)
    assert mock_tools.stats()["side_effects"] == {"cancel_order": 1}
    # a different thought is a different request: it does run (the counter is not stuck at 1)
    other = await ex.execute(
        "submit_expense",
        {"amount": 12.5, "category": "meal", "date": "2026-11-14", "description": "lunch"},
        ExecContext(thought_id="a", step_id="t1"),
    )
    other2 = await ex.execute(
        "submit_expense",
        {"amount": 12.5, "category": "meal", "date": "2026-11-14", "description": "lunch"},
        ExecContext(thought_id="b", step_id="t1"),
    )
    await ex.aclose()
    assert other.parsed_data["expense_id"] != other2.parsed_data["expense_id"]
    assert mock_tools.stats()["side_effects"]["submit_expense"] == 2
