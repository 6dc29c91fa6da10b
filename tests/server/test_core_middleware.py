"""Core middleware through a real uvicorn server: request/trace ids, API key, body limit,
per-request timeout, typed error bodies, /healthz, /metrics, OpenAPI."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
from serve_helpers import ThreadServer

from tao.server.app import create_app
from tao.server.config import ServerConfig

KEY = "s3cret-key"


@pytest.fixture(scope="module")
def server():
    cfg = ServerConfig(load_model=False, api_key=KEY, max_body_bytes=2048, request_timeout_s=0.5)
    app = create_app(cfg)

    async def slow() -> dict:
        await asyncio.sleep(3)
        return {"done": True}

    async def logs() -> dict:
        logging.getLogger("tao.test").warning("inside a request")
        return {"ok": True}

    app.add_api_route("/v1/test/slow", slow, methods=["GET"])
    app.add_api_route("/v1/test/log", logs, methods=["GET"])
    with ThreadServer(app) as srv:
        yield srv


def _auth(extra: dict | None = None) -> dict:
    return {"Authorization": f"Bearer {KEY}", **(extra or {})}


def test_healthz_open_and_ids_echoed(server):
    r = httpx.get(server.base + "/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    assert len(r.headers["x-trace-id"]) == 32 and r.headers["x-request-id"]


def test_request_id_echoed_untruncated(server):
    rid = "req-" + "x" * 3000
    r = httpx.post(server.base + "/v1/plan", json={"request": "hi"}, headers=_auth({"X-Request-ID": rid}))
    assert r.headers["x-request-id"] == rid


def test_traceparent_sets_trace_id(server):
    tid = "4bf92f3577b34da6a3ce929d0e0e4736"
    r = httpx.get(server.base + "/healthz", headers={"traceparent": f"00-{tid}-00f067aa0ba902b7-01"})
    assert r.headers["x-trace-id"] == tid


def test_api_key_required_on_v1(server):
    r = httpx.post(server.base + "/v1/plan", json={"request": "hi"})
    assert r.status_code == 401
    body = r.json()
    assert body["error"]["type"] == "unauthorized" and body["trace_id"] == r.headers["x-trace-id"]
    assert (
        httpx.post(
            server.base + "/v1/plan", json={"request": "hi"}, headers={"Authorization": "Bearer wrong"}
        ).status_code
        == 401
    )
    ok = httpx.post(server.base + "/v1/plan", json={"request": "hi"}, headers={"X-API-Key": KEY})
    assert ok.status_code == 503  # authorized; the model is disabled on this server
    assert ok.json()["error"]["type"] == "model_disabled"


def test_body_limit_by_length_and_by_stream(server):
    big = b'{"request":"' + b"a" * 5000 + b'"}'
    r = httpx.post(server.base + "/v1/plan", content=big, headers=_auth({"content-type": "application/json"}))
    assert r.status_code == 413 and r.json()["error"]["type"] == "body_too_large"

    def chunks():
        for _ in range(10):
            yield b"a" * 1000

    r = httpx.post(
        server.base + "/v1/plan", content=chunks(), headers=_auth({"content-type": "application/json"})
    )
    assert r.status_code == 413


def test_request_timeout_is_typed_504(server):
    r = httpx.get(server.base + "/v1/test/slow", headers=_auth(), timeout=10)
    assert r.status_code == 504 and r.json()["error"]["type"] == "timeout"
    assert httpx.get(server.base + "/healthz").status_code == 200  # still serving


def test_log_records_carry_trace_id(server, caplog):
    caplog.set_level(logging.WARNING, logger="tao.test")
    r = httpx.get(server.base + "/v1/test/log", headers=_auth({"X-Request-ID": "log-req-1"}))
    rec = [x for x in caplog.records if x.getMessage() == "inside a request"][-1]
    assert rec.trace_id == r.headers["x-trace-id"] and rec.request_id == "log-req-1"


def test_readyz_reports_without_model(server):
    r = httpx.get(server.base + "/readyz")
    assert r.status_code == 200 and r.json()["status"] == "ready"


def test_metrics_and_openapi(server):
    httpx.get(server.base + "/healthz")
    text = httpx.get(server.base + "/metrics").text
    assert 'tao_http_requests_total{endpoint="/healthz",method="GET",status="200"}' in text
    assert "tao_http_request_seconds_bucket" in text
    spec = httpx.get(server.base + "/openapi.json").json()
    for path in ("/v1/plan", "/v1/observe", "/v1/observe/batch", "/healthz", "/readyz", "/metrics"):
        assert path in spec["paths"], path
    assert "requestBody" in spec["paths"]["/v1/plan"]["post"]


def test_unknown_path_is_typed_404_and_bounded_label(server):
    r = httpx.get(server.base + "/nope/" + "z" * 100)
    assert r.status_code == 404
    assert 'endpoint="other"' in httpx.get(server.base + "/metrics").text
