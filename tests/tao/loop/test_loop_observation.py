"""Observation in the loop (issue 16 item 8): the call's resolved arguments reach the Rust checker
as expectations (a tool that echoes another id is OBSERVATION_INCONSISTENT, decided by the
checker's own ``consistency`` audit entry, no Python copy), and low confidence fires in a real run
(the soft check reads a 200 body as an error → LOW_CONFIDENCE → escalate_human → needs_user)."""

from __future__ import annotations

from typing import Any, cast

from action_helpers import demo_session, make_executor, make_loop, plan
from pydantic import BaseModel

import tao.loop.steps as steps_module
from tao.contracts import ErrorType, EventKind, StepStatus
from tao.domains.reference.registry import reference_registry
from tao.loop.loop import LoopConfig, TaoLoop
from tao.loop.planner import ReplayPlanner
from tao.observe.observer import Observer
from tao.observe.soft import SoftObserver
from tao.trace.trajectory import MemorySink

REG = reference_registry()
ORDER = "209911150000000007"
OTHER = "209901010000000000"


def corrections(report) -> list[tuple[str, str, str]]:
    return [
        (e.payload["error_type"], e.payload["handler"], e.payload["action"])
        for e in report.events
        if e.kind is EventKind.CORRECTION
    ]


def consistency_audit(report) -> list[dict[str, Any]]:
    return [
        a
        for e in report.events
        if e.kind is EventKind.OBSERVATION
        for a in e.payload["audit"]
        if a["check"] == "consistency"
    ]


def test_the_python_copy_is_gone() -> None:
    assert not hasattr(steps_module, "consistency_errors")


async def test_a_tool_echoing_another_id_is_inconsistent(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    echoed: list[str] = []

    def lying_status(order_id: str) -> dict[str, Any]:  # answers for another order than asked
        echoed.append(order_id)
        return {"order_id": OTHER, "status": "shipped", "amount": 12.0}

    ex.registry.register(REG["get_order_status"], lying_status)
    loop, _ = make_loop(ex, plan(("t1", "get_order_status", {"order_id": ORDER})))
    report = await loop.run("where is my order", demo_session())
    assert echoed == [ORDER]
    assert report.status.value == "needs_user" and report.error_type is ErrorType.OBSERVATION_INCONSISTENT
    assert ("OBSERVATION_INCONSISTENT", "cross_check_fallback", "escalate") in corrections(report)
    audit = consistency_audit(report)
    assert audit and not audit[0]["passed"] and OTHER in audit[0]["detail"], audit
    await ex.aclose()


async def test_an_honest_echo_and_an_absent_echo_are_consistent(mock_tools) -> None:
    ex = make_executor(mock_tools.url)

    def honest(order_id: str) -> dict[str, Any]:
        return {"order_id": order_id, "status": "paid", "amount": 30}

    ex.registry.register(REG["get_order_status"], honest)
    loop, _ = make_loop(ex, plan(("t1", "get_order_status", {"order_id": ORDER})))
    report = await loop.run("status", demo_session())
    assert report.status.value == "success", report.to_dict()
    assert consistency_audit(report)[0]["passed"]
    assert report.steps[0].confidence == 1.0
    await ex.aclose()


class QuoteArgs(BaseModel):
    sku: str
    amount: int


class Quote(BaseModel):
    sku: str | None = None
    amount: float
    price: float


async def test_numbers_compare_by_value_and_a_silent_tool_passes(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    calls: list[dict[str, Any]] = []

    @ex.registry.function(
        name="quote", description="price of an amount", args_model=QuoteArgs, response_model=Quote
    )
    def quote(sku: str, amount: int) -> dict[str, Any]:
        calls.append({"sku": sku, "amount": amount})
        if sku == "wrong":
            return {"sku": sku, "amount": amount + 1.0, "price": 1.0}
        return {"amount": float(amount), "price": 2.5 * amount}  # sku not echoed; amount as a float

    loop, _ = make_loop(ex, plan(("t1", "quote", {"sku": "A-1", "amount": 4})))
    ok = await loop.run("quote", demo_session())
    assert ok.status.value == "success", ok.to_dict()
    loop2, _ = make_loop(ex, plan(("t1", "quote", {"sku": "wrong", "amount": 4})))
    bad = await loop2.run("quote", demo_session())
    assert (
        bad.error_type is ErrorType.OBSERVATION_INCONSISTENT
        and "/amount" in consistency_audit(bad)[0]["detail"]
    )
    await ex.aclose()


def _soft_loop(ex: Any, p: dict[str, Any], **cfg: Any) -> TaoLoop:
    return TaoLoop(
        ReplayPlanner(p),
        ex,
        observer=cast(Observer, SoftObserver(Observer())),  # duck-typed: observe() with the soft score
        config=LoopConfig(retry_jitter_s=(0.005, 0.02), **cfg),
        sinks=[MemorySink()],
    )


async def test_low_confidence_fires_in_a_real_run(mock_tools) -> None:
    """A 200 whose body carries a rate-limit error: every hard check passes, the soft check reads
    it as ``rate_limited`` (≥ 0.95), confidence 0.7 < the default floor 0.75 → escalate_human."""
    ex = make_executor(mock_tools.url)
    p = plan(("t1", "get_user_profile", {"user_id": "U00000002"}))
    clean = await _soft_loop(ex, p).run("my profile", demo_session())
    assert clean.status.value == "success" and clean.steps[0].confidence == 1.0, clean.to_dict()
    mock_tools.patch("get_user_profile", {"error": "rate limit exceeded, retry after 60 seconds"})
    report = await _soft_loop(ex, p).run("my profile", demo_session())
    assert report.status.value == "needs_user" and report.error_type is ErrorType.LOW_CONFIDENCE, (
        report.to_dict()
    )
    assert report.steps[0].status is StepStatus.NEEDS_USER
    assert ("LOW_CONFIDENCE", "escalate_human", "escalate") in corrections(report)
    obs = next(e for e in report.events if e.kind is EventKind.OBSERVATION)
    assert obs.payload["confidence"] < LoopConfig().min_confidence
    assert mock_tools.stats()["calls"]["get_user_profile"] == 2  # escalated, not retried
    # with the floor below 0.7 the same result is accepted: the floor is what decides
    lenient = await _soft_loop(ex, p, min_confidence=0.5).run("my profile", demo_session())
    assert lenient.status.value == "success"
    await ex.aclose()
