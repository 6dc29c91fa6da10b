"""Fixtures of the routing / planning-decision tests: the combined 41-tool registry, its router
(the shipped fitted model; refit if stale) and a real mock service serving all 41 tools."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from tao.action.executor import ExecutorConfig, ToolExecutor
from tao.action.registry import ToolRegistry
from tao.contracts.domain import Domain
from tao.domains import load_domain
from tao.loop.intent import IntentRouter, PlanningConfig, router_for
from tao.loop.intent.decision import DecisionPoint
from tao.loop.loop import LoopConfig, TaoLoop
from tao.mock_service.app import MockState
from tao.mock_service.server import RunningService, start_in_thread
from tao.trace.trajectory import MemorySink


@pytest.fixture(scope="session")
def combined() -> Domain:
    return load_domain("tao.domains.combined:registry")


@pytest.fixture(scope="session")
def combined_router(combined: Domain) -> IntentRouter:
    return router_for(combined)


@pytest.fixture(scope="session")
def combined_service(combined: Domain) -> Iterator[RunningService]:
    from datetime import date

    svc = start_in_thread(MockState(domain=combined, today=date(2026, 11, 15)))
    yield svc
    svc.stop()


@pytest.fixture
async def stack(
    combined: Domain, combined_router: IntentRouter, combined_service: RunningService
) -> AsyncIterator[Callable[..., TaoLoop]]:
    """``make(planner, config=None)``: a loop over the real mock of the 41 tools with the decision
    point (routing, bypass, fallback planner) of ``config`` in front of ``planner``."""
    combined_service.state.reset()
    reg = ToolRegistry()
    reg.register_http(combined.tools, combined_service.url)
    ex = ToolExecutor(reg, ExecutorConfig(timeout_override_s=2.0, jitter_s=(0.001, 0.002)))

    def make(planner: object, config: PlanningConfig | None = None) -> TaoLoop:
        dp = DecisionPoint(combined, config or PlanningConfig(), combined_router)
        return TaoLoop(
            planner,  # pyright: ignore[reportArgumentType]
            ex,
            config=LoopConfig(retry_jitter_s=(0.001, 0.002)),
            sinks=[MemorySink()],
            decision=dp,
        )

    yield make
    await ex.aclose()
