"""``/v1/run`` while its Redis is down: nothing non-idempotent runs without the shared records,
keyed requests and session turns get a typed 503 before anything runs, reads keep working, and
the server recovers when Redis comes back."""

from __future__ import annotations

import uuid

import httpx
import pytest
from action_helpers import plan
from test_tenants import Served

from router.testing.redis_server import RedisServer
from tao.server.config import ServerConfig

pytestmark = pytest.mark.slow

READ = plan(("t1", "get_weather", {"city": "北京", "date": "2026-11-16"}))
EXPENSE = plan(
    ("t1", "submit_expense", {"amount": 7.0, "category": "meal", "date": "2026-11-14", "description": "tea"})
)
EMAIL = plan(("t1", "send_email", {"to": "li.na@example.com", "subject": "s", "body": "b"}))


def test_redis_down_then_back(mock_tools) -> None:
    mock_tools.svc.state.dedup = False
    srv = RedisServer().start()
    s = Served(ServerConfig(load_model=False, tools_url=mock_tools.url, redis_url=srv.url))
    try:

        def run(p: dict, key: str | None = None, **session) -> httpx.Response:
            h = {"Idempotency-Key": key} if key else {}
            body = {"request": "x", "plan": p, "session": session}
            return httpx.post(s.url + "/v1/run", json=body, headers=h, timeout=30)

        assert run(READ, f"k-{uuid.uuid4()}").status_code == 200  # warm: the runtime exists
        srv.stop()
        r = run(READ, f"k-{uuid.uuid4()}")
        assert r.status_code == 503 and r.json()["error"]["type"] == "idempotency_unavailable"
        assert r.headers["retry-after"] == "1"
        r = run(READ, session_id="chat-1")
        assert r.status_code == 503 and r.json()["error"]["type"] == "session_store_unavailable"
        r = run(READ)
        assert r.status_code == 200 and r.json()["status"] == "success"  # reads need no shared record
        r = run(EXPENSE)
        out = r.json()
        assert r.status_code == 200 and out["status"] == "failed" and out["error_type"] == "TOOL_TRANSIENT"
        assert "idempotency store unavailable" in out["message"]
        r = run(EMAIL)
        assert r.status_code == 200 and r.json()["status"] == "needs_approval" and r.json()["run_id"] is None
        assert mock_tools.stats()["side_effects"] == {}
        assert "submit_expense" not in mock_tools.stats()["calls"]
        srv.start()  # back, on the same port: the same server recovers
        key = f"k-{uuid.uuid4()}"
        first = run(EXPENSE, key, session_id="chat-1")
        assert first.status_code == 200 and first.json()["status"] == "success", first.text
        again = run(EXPENSE, key, session_id="chat-1")
        assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
        assert mock_tools.stats()["side_effects"] == {"submit_expense": 1}
    finally:
        mock_tools.svc.state.dedup = True
        s.stop()
        srv.close()
