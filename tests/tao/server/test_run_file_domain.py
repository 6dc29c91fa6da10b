"""``tao serve --registry tools.yaml``: /v1/run over a contract-file domain calls the tools at
``--tools-url`` (the helpdesk mock on loopback here) and, without one, is a typed 503."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from test_request_field import Served

from tao.domains import load_domain
from tao.mock_service import MockState, start_in_thread
from tao.server.config import ServerConfig

FILE = str(Path(__file__).resolve().parents[3] / "tao" / "domains" / "helpdesk" / "tools.yaml")
PLAN = {
    "version": "1.0",
    "intent": "ticket",
    "steps": [
        {"step_id": "t1", "tool": "get_ticket", "arguments": {"ticket_id": "TCK-160816"}, "dependencies": []}
    ],
}
BODY = {"request": "status of TCK-160816", "session": {"user_id": "E108222"}, "plan": PLAN}


@pytest.fixture
def helpdesk_mock():
    svc = start_in_thread(MockState(domain=load_domain("tao.domains.helpdesk:registry")))
    yield svc
    svc.stop()


def test_file_domain_without_tools_url_is_a_typed_503() -> None:
    s = Served(ServerConfig(load_model=False, registry=FILE))
    try:
        tools = httpx.get(s.url + "/v1/tools", timeout=30).json()["tools"]
        assert "get_ticket" in {t["name"] for t in tools}
        r = httpx.post(s.url + "/v1/run", json=BODY, timeout=30)
        assert r.status_code == 503 and r.json()["error"]["type"] == "no_tool_service", r.text
        assert "--tools-url" in r.json()["error"]["message"]
    finally:
        s.stop()


def test_file_domain_calls_the_tools_url(helpdesk_mock) -> None:
    s = Served(ServerConfig(load_model=False, registry=FILE, tools_url=helpdesk_mock.url))
    try:
        r = httpx.post(s.url + "/v1/run", json=BODY, timeout=30)
        assert r.status_code == 200 and r.json()["status"] == "success", r.text
        assert r.json()["answer"]["t1"] == {"status": "waiting", "assignee": "Li Ming"}
        assert helpdesk_mock.state.calls["get_ticket"] == 1
    finally:
        s.stop()
