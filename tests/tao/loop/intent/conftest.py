"""Fixtures of the routing / planning-decision tests: the combined 41-tool registry, its router
(the shipped fitted model; refit if stale) and a real mock service serving all 41 tools."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tao.contracts.domain import Domain
from tao.domains import load_domain
from tao.loop.intent import IntentRouter, router_for
from tao.mock_service.app import MockState
from tao.mock_service.server import RunningService, start_in_thread


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
