"""Fixtures of the action-layer / loop tests: one real mock tool service (uvicorn on a free
loopback port) per session, reset before each test, and helpers to build a stack over it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tao.mock_service import FaultConfig, RunningService, start_in_thread


@pytest.fixture(scope="session")
def mock_tools_service() -> RunningService:
    svc = start_in_thread()
    yield svc
    svc.stop()


@dataclass
class MockTools:
    """The running mock service plus helpers to script faults and read counters."""

    svc: RunningService

    @property
    def url(self) -> str:
        return self.svc.url

    def faults(self, **kw: Any) -> None:
        self.svc.state.faults = FaultConfig(hang_s=kw.pop("hang_s", 1.0), **kw)

    def script(self, *faults: str, tools: list[str] | None = None) -> None:
        self.faults(script=list(faults), tools=tools)

    def patch(self, tool: str, patch: dict[str, Any], *, over_http: bool = False) -> None:
        """Merge fields into a tool's replies (directly into the service state: cheaper than
        ``POST /_patch``, which :func:`test_admin_endpoints` covers)."""
        if over_http:
            httpx.post(
                self.url + "/_patch", json={"tool": tool, "patch": patch}, timeout=5
            ).raise_for_status()
        else:
            self.svc.state.patches[tool] = dict(patch)

    def stats(self) -> dict[str, Any]:
        return httpx.get(self.url + "/_stats", timeout=5).json()

    @property
    def data(self):
        return self.svc.state.data


@pytest.fixture
def mock_tools(mock_tools_service: RunningService) -> MockTools:
    from datetime import date

    st = mock_tools_service.state
    st.today = date(2026, 11, 15)
    st.faults = FaultConfig(hang_s=1.0)
    st.reset()
    return MockTools(mock_tools_service)
