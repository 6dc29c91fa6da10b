"""Circuit breaker: opens after N consecutive failures, half-opens after the reset timeout,
closes on a successful probe; while open the fallback tool answers."""

from __future__ import annotations

from action_helpers import make_executor

from tao.action.breaker import BreakerConfig, BreakerState, CircuitBreaker
from tao.action.executor import ExecContext
from tao.contracts import ErrorType


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_state_machine() -> None:
    clock = Clock()
    b = CircuitBreaker(BreakerConfig(failure_threshold=3, reset_timeout_s=30), clock)
    for _ in range(2):
        assert b.allow()
        b.record_failure()
    assert b.state is BreakerState.CLOSED
    b.record_success()  # a success resets the count: failures must be consecutive
    for _ in range(3):
        assert b.allow()
        b.record_failure()
    assert b.state is BreakerState.OPEN and not b.allow() and 29 < b.retry_after_s() <= 30
    clock.t += 30
    assert b.state is BreakerState.HALF_OPEN
    assert b.allow() and not b.allow()  # one probe at a time
    b.record_failure()  # failed probe: open again for a full period
    assert b.state is BreakerState.OPEN
    clock.t += 30
    assert b.allow()
    b.record_success()
    assert b.state is BreakerState.CLOSED and b.allow()
    assert b.transitions == ["open", "half_open", "open", "half_open", "closed"]


async def test_breaker_over_http_with_fallback(mock_tools) -> None:
    clock = Clock()
    ex = make_executor(
        mock_tools.url, max_retries=0, breaker=BreakerConfig(failure_threshold=5, reset_timeout_s=30)
    )
    ex.breakers.clock = clock
    oid = next(o for o, v in mock_tools.data.orders.items() if v["status"] == "shipped")
    args = {"order_id": oid}
    mock_tools.faults(error_rate=1.0, tools=["get_logistics"])  # get_logistics is down, its fallback is not
    results = [await ex.execute("get_logistics", args, ExecContext(step_id=f"t{i}")) for i in range(5)]
    # each failure fell back to get_order_status, which answered
    assert all(
        r.error_info is None and r.from_fallback == "get_logistics" and r.tool == "get_order_status"
        for r in results
    )
    b = ex.breakers.get("get_logistics")
    assert b.state is BreakerState.OPEN
    calls_before = mock_tools.stats()["calls"].get("get_logistics", 0)
    open_result = await ex.execute("get_logistics", args, ExecContext())
    assert open_result.from_fallback == "get_logistics" and open_result.parsed_data["order_id"] == oid
    assert mock_tools.stats()["calls"]["get_logistics"] == calls_before  # refused without a call
    # without a fallback the open breaker is reported as such
    ex.config.use_fallback = False
    refused = await ex.execute("get_logistics", args, ExecContext())
    assert refused.error_info.error_type is ErrorType.TOOL_CIRCUIT_OPEN and refused.attempts == 0
    # half-open probe fails -> open again; next probe succeeds -> closed
    clock.t += 30
    probe = await ex.execute("get_logistics", args, ExecContext())
    assert probe.error_info.error_type is ErrorType.TOOL_TRANSIENT and b.state is BreakerState.OPEN
    mock_tools.faults()  # the service recovers
    clock.t += 30
    healed = await ex.execute("get_logistics", args, ExecContext())
    await ex.aclose()
    assert healed.error_info is None and healed.tool == "get_logistics" and b.state is BreakerState.CLOSED
    assert b.transitions == ["open", "half_open", "open", "half_open", "closed"]
    assert mock_tools.stats()["calls"]["get_logistics"] == calls_before + 2
