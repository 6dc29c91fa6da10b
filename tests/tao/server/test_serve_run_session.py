"""``POST /v1/run`` keeps a conversation by ``session.session_id`` (Redis-backed sessions, the
default plan model on the CPU engine, uvicorn on loopback)."""

from __future__ import annotations

import time

import httpx
import pytest
from test_action_routes_run import Served

from tao.server.config import ServerConfig

S = {"user_id": "U00000001", "now": "2026-06-10T10:00:00+08:00"}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_follow_up_by_session_id(redis_server) -> None:
    srv = Served(ServerConfig(engine="cpu", redis_url=redis_server.url))
    try:
        with httpx.Client(base_url=srv.url, timeout=600) as c:
            for _ in range(600):  # the plan engine loads in the background
                if c.get("/readyz").status_code == 200:
                    break
                time.sleep(0.5)
            r1 = c.post(
                "/v1/run", json={"request": "北京明天天气怎么样", "session": {**S, "session_id": "web-1"}}
            )
            assert r1.status_code == 200, r1.text
            r2 = c.post("/v1/run", json={"request": "那上海呢", "session": {**S, "session_id": "web-1"}})
            assert r2.status_code == 200, r2.text
            steps = [(s["tool"], s["arguments"]) for s in r2.json()["plan"]["steps"]]
            assert steps == [("get_weather", {"city": "上海", "date": "2026-06-11"})]
            # another session id: a new conversation (the elliptical turn is not completed)
            r3 = c.post("/v1/run", json={"request": "那上海呢", "session": {**S, "session_id": "web-2"}})
            assert r3.status_code == 200
            assert (
                r3.json()["plan"] is None
                or r3.json()["plan"]["steps"][0]["arguments"].get("date") != "2026-06-11"
            )
    finally:
        srv.stop()
    import redis

    keys = [k.decode() for k in redis.Redis.from_url(redis_server.url).keys("tao:session:*web-1")]
    assert keys, "the snapshot lives in Redis"
