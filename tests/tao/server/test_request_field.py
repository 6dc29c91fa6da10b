"""One name for the request text: ``request`` on /v1/plan and /v1/run, ``text`` a deprecated alias
(Deprecation + Warning headers, a log line, 422 when both disagree, both in the OpenAPI document)."""

from __future__ import annotations

import logging
import socket
import threading
import time

import httpx
import pytest
import uvicorn
from action_helpers import plan

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
    s = Served(ServerConfig(load_model=False, tools_url=mock_tools.url))
    yield s
    s.stop()


PLAN = plan(("t1", "get_user_profile", {"user_id": "U00000001"}), intent="profile")
SESSION = {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"}


def _err(r: httpx.Response) -> tuple[int, str, str | None]:
    e = r.json()["error"]
    return r.status_code, e["type"], e["param"]


def test_run_takes_request_and_the_deprecated_text(served, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="tao.server.request_text")
    with httpx.Client(base_url=served.url, timeout=30) as c:
        new = c.post("/v1/run", json={"request": "我的资料", "session": SESSION, "plan": PLAN})
        assert new.status_code == 200 and new.json()["status"] == "success", new.text
        assert "deprecation" not in new.headers and "warning" not in new.headers
        old = c.post("/v1/run", json={"text": "我的资料", "session": SESSION, "plan": PLAN})
        assert old.status_code == 200 and old.json()["status"] == "success", old.text
        assert old.headers["deprecation"] == "true"
        assert old.headers["warning"].startswith("299 - ") and "'request'" in old.headers["warning"]
        assert any("deprecated body field 'text'" in r.getMessage() for r in caplog.records)
        same = c.post(
            "/v1/run", json={"text": "我的资料", "request": "我的资料", "session": SESSION, "plan": PLAN}
        )
        assert same.status_code == 200 and same.headers["deprecation"] == "true"
        both = c.post(
            "/v1/run", json={"text": "我的资料", "request": "别的", "session": SESSION, "plan": PLAN}
        )
        assert _err(both) == (422, "conflicting_fields", "/text")
        # errors point at the field the client sent
        assert _err(c.post("/v1/run", json={"text": "   ", "plan": PLAN})) == (
            422,
            "invalid_request",
            "/text",
        )
        assert _err(c.post("/v1/run", json={"text": "a\u2028b", "plan": PLAN})) == (
            400,
            "invalid_text",
            "/text",
        )
        assert _err(c.post("/v1/run", json={"text": 7, "plan": PLAN})) == (422, "invalid_request", "/text")
        assert _err(c.post("/v1/run", json={"plan": PLAN}))[:2] == (422, "invalid_request")


def test_plan_parses_both_names_before_the_engine(served) -> None:
    """Without a model /v1/plan answers 503 model_disabled once the body passed; a bad body is
    refused before that, with the pointer of the field used."""
    with httpx.Client(base_url=served.url, timeout=30) as c:
        for body in ({"request": "查我的订单"}, {"text": "查我的订单"}, {"text": "查", "request": "查"}):
            assert _err(c.post("/v1/plan", json=body))[:2] == (503, "model_disabled"), body
        assert _err(c.post("/v1/plan", json={"text": "a", "request": "b"})) == (
            422,
            "conflicting_fields",
            "/text",
        )
        assert _err(c.post("/v1/plan", json={"text": ""})) == (422, "invalid_request", "/text")
        assert _err(c.post("/v1/plan", json={"request": "  "})) == (422, "invalid_request", "/request")
        assert _err(c.post("/v1/plan", json={"text": "a\x00b"})) == (400, "invalid_text", "/text")
        assert _err(c.post("/v1/plan", json={"request": "a\x00b"})) == (400, "invalid_text", "/request")
        assert _err(c.post("/v1/plan", json={"tools": ["get_weather"]}))[:2] == (422, "invalid_request")


def test_openapi_lists_both_names_text_deprecated(served) -> None:
    doc = httpx.get(served.url + "/openapi.json", timeout=30).json()
    for path in ("/v1/plan", "/v1/run"):
        schema = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        props = schema["properties"]
        assert props["text"]["deprecated"] is True and "deprecated" not in props["request"]
        assert props["text"]["type"] == props["request"]["type"] == "string"
        assert "request" not in schema.get("required", [])
        assert schema["anyOf"] == [{"required": ["request"]}, {"required": ["text"]}]


@pytest.mark.slow
def test_plan_answers_with_the_deprecation_header(tiny_checkpoint) -> None:
    s = Served(ServerConfig(checkpoint=tiny_checkpoint, engine="cpu", extra={"codec": "generic"}))
    try:
        with httpx.Client(base_url=s.url, timeout=60) as c:
            deadline = time.monotonic() + 120
            while c.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, c.get("/readyz").text
                time.sleep(0.2)
            body = {"tools": ["get_weather"], "session": {"user_id": "U12345678"}}
            new = c.post("/v1/plan", json={**body, "request": "weather in Paris tomorrow"})
            old = c.post("/v1/plan", json={**body, "text": "weather in Paris tomorrow"})
            assert new.status_code == old.status_code == 200, (new.text, old.text)
            assert "deprecation" not in new.headers
            assert old.headers["deprecation"] == "true" and "'request'" in old.headers["warning"]
            assert old.json()["engine"] == new.json()["engine"]
    finally:
        s.stop()
