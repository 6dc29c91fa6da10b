"""``POST /v1/run`` and ``GET /v1/tools`` in the real serving app (uvicorn on loopback)."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
import uvicorn
from action_helpers import plan

from tao.domains.reference.registry import reference_tools
from tao.server.app import create_app
from tao.server.config import ServerConfig


class Served:
    def __init__(self, config: ServerConfig) -> None:
        self.app = create_app(config)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", ws="none", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)


@pytest.fixture
def served(mock_tools):
    s = Served(ServerConfig(load_model=False, tools_url=mock_tools.url, extra={"test_fault_headers": "1"}))
    yield s
    s.stop()


@pytest.mark.slow
def test_run_with_replayed_plan(served, mock_tools) -> None:
    p = plan(
        ("t1", "list_orders", {"user_id": "U00000001", "period": "@last_month"}),
        ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
        intent="order_status",
    )
    body = {
        "request": "查询上个月的订单状态",
        "session": {"session_id": "b1", "user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
        "plan": p,
    }
    with httpx.Client(base_url=served.url, timeout=30) as c:
        r = c.post("/v1/run", json=body)
        assert r.status_code == 200
        out = r.json()
        assert set(out) >= {
            "trace_id",
            "thought_id",
            "status",
            "error_type",
            "answer",
            "stages_ms",
            "steps",
            "events",
        }
        assert out["status"] == "success" and out["answer"]["t2"]["status"]
        assert set(out["stages_ms"]) == {"thought", "action", "observation", "total"}
        assert out["events"] >= 8 and out["steps"][0]["arguments"]["period"] == "2026-10-01/2026-10-31"
        # per-request fault injection travels to the tool calls (the server runs with the test flag)
        r = c.post("/v1/run", json=body, headers={"X-Mock-Fault": "401"})
        assert r.json()["status"] == "needs_user" and r.json()["error_type"] == "TOOL_CLIENT_ERROR"
        # the load tester's broken dependency
        broken = plan(
            ("t1", "get_user_profile", {"user_id": "U00000002"}),
            ("t2", "get_order_status", {"order_id": "${t1.never_produced}"}, ["t1"]),
        )
        r = c.post("/v1/run", json=dict(body, plan=broken))
        assert (r.json()["status"], r.json()["error_type"]) == ("failed", "DEPENDENCY_MISSING")
        # a high-risk call waits for its bound approval (never the request's approve list)
        email = plan(("t1", "send_email", {"to": "li.na@example.com", "subject": "s", "body": "b"}))
        out = c.post("/v1/run", json=dict(body, plan=email, approve=["send_email"])).json()
        assert out["status"] == "needs_approval" and len(out["pending_approvals"]) == 1
        [pend] = out["pending_approvals"]
        r = c.post(f"/v1/runs/{out['run_id']}/approve", json={"step_id": "t1", "digest": pend["digest"]})
        assert r.status_code == 200 and r.json()["status"] == "success"
        # a plan that is not a plan is the model's fault, reported as such
        r = c.post("/v1/run", json=dict(body, plan={"steps": "nope"}))
        assert r.status_code == 200 and r.json()["error_type"] == "LLM_OUTPUT_MALFORMED"
    assert mock_tools.stats()["side_effects"] == {"send_email": 1}


def test_bad_requests_get_typed_errors(served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as c:
        r = c.post("/v1/run", content=b"{oops", headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["type"] == "malformed_json"
        r = c.post("/v1/run", json={"request": "x", "unknown": 1})
        assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_request"
        r = c.post("/v1/run", json={"request": "   "})
        assert r.status_code == 422
        r = c.post("/v1/run", json={"request": "查询上个月的订单状态"})  # no plan, no model loaded
        assert r.status_code == 503 and r.json()["error"]["type"] == "model_not_ready"
        assert "Traceback" not in r.text
        tools = c.get("/v1/tools").json()
        assert tools["count"] == len(reference_tools()) and {t["name"] for t in tools["tools"]} >= {
            "send_email",
            "list_orders",
        }
        assert next(t for t in tools["tools"] if t["name"] == "send_email")["permission"] == "high_risk"


def test_fault_headers_are_not_forwarded_without_the_test_flag(mock_tools) -> None:
    s = Served(ServerConfig(load_model=False, tools_url=mock_tools.url))
    try:
        p = plan(("t1", "get_order_status", {"order_id": next(iter(mock_tools.data.orders))}))
        for fault in ("timeout", "401", "500"):
            r = httpx.post(
                s.url + "/v1/run",
                json={"request": "订单状态", "plan": p},
                headers={"X-Mock-Fault": fault, "X-Mock-Anything": "1"},
                timeout=30,
            )
            assert r.status_code == 200 and r.json()["status"] == "success", r.text
        st = mock_tools.stats()
        assert st["faults"] == {"none": 3}
        assert not any(k.startswith("x-mock") for h in st["last_headers"].values() for k in h)
    finally:
        s.stop()


@pytest.mark.slow
def test_in_process_mock_when_no_tools_url() -> None:
    s = Served(ServerConfig(load_model=False, tools_url=None))
    try:
        p = plan(("t1", "get_weather", {"city": "北京", "date": "@tomorrow"}))
        r = httpx.post(s.url + "/v1/run", json={"request": "明天北京天气", "plan": p}, timeout=30)
        assert r.status_code == 200 and r.json()["status"] == "success"
        rt = s.app.state.run_holder.runtime
        assert rt.mock is not None and rt.tools_url.startswith("http://127.0.0.1:")
        mock_thread = rt.mock.thread
    finally:
        s.stop()
    assert s.app.state.run_holder.runtime is None and not mock_thread.is_alive()  # stopped at shutdown
