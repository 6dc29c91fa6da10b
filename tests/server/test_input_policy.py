"""One input policy for every JSON endpoint (tao.server.body), gzip bodies inside the body limit,
typed 404/405, and /readyz agreeing with /v1/plan on a --no-model server."""

from __future__ import annotations

import gzip
import zlib

import httpx
import pytest

from router.testing.upstream import ServerThread
from tao.server.app import create_app
from tao.server.config import ServerConfig

LIMIT = 4096
ENDPOINTS = ("/v1/plan", "/v1/run", "/v1/chat/completions", "/v1/observe")


@pytest.fixture(scope="module")
def base():
    app = create_app(ServerConfig(load_model=False, max_body_bytes=LIMIT, request_timeout_s=5))
    srv = ServerThread(app, lifespan="on").start()
    yield srv.url
    srv.stop()


def post(base: str, path: str, raw: bytes, **headers: str) -> httpx.Response:
    return httpx.post(
        base + path, content=raw, headers={"content-type": "application/json", **headers}, timeout=10
    )


@pytest.mark.parametrize("path", ENDPOINTS)
@pytest.mark.parametrize(
    "raw, etype",
    [
        (b'{"request": "a\xff"}', "invalid_utf8"),
        (b'{"request": "a", "request": "b"}', "duplicate_key"),
        (b'{"request": ', "malformed_json"),
    ],
)
def test_same_answer_on_every_json_endpoint(base, path, raw, etype):
    r = post(base, path, raw)
    assert r.status_code == 400 and r.json()["error"]["type"] == etype, (path, r.text)


@pytest.mark.parametrize("ch", ["\x00", "\u2028", "\u2029"])
def test_request_text_policy_is_shared_by_plan_and_run(base, ch):
    plan = httpx.post(base + "/v1/plan", json={"request": f"a{ch}b"})
    run = httpx.post(base + "/v1/run", json={"request": f"a{ch}b"})
    assert plan.status_code == run.status_code == 400
    assert plan.json()["error"]["type"] == run.json()["error"]["type"] == "invalid_text"


def test_gzip_body_is_inflated(base):
    raw = gzip.compress(b'{"request": "a", "request": "b"}')
    r = post(base, "/v1/plan", raw, **{"content-encoding": "gzip"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "duplicate_key"  # parsed after inflating
    r = post(
        base, "/v1/run", zlib.compress(b'{"request": "x", "bogus": 1}'), **{"content-encoding": "deflate"}
    )
    assert r.status_code == 422


def test_decompression_bomb_is_413(base):
    bomb = gzip.compress(b'{"request": "' + b"a" * (50 * LIMIT) + b'"}')
    assert len(bomb) < LIMIT
    r = post(base, "/v1/plan", bomb, **{"content-encoding": "gzip"})
    assert r.status_code == 413 and r.json()["error"]["type"] == "body_too_large"


def test_bad_and_unknown_encodings(base):
    r = post(base, "/v1/plan", b"not gzip", **{"content-encoding": "gzip"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "bad_encoding"
    r = post(base, "/v1/plan", b"{}", **{"content-encoding": "br"})
    assert r.status_code == 415


def test_typed_404_405(base):
    r = httpx.get(base + "/v1/nothing")
    assert r.status_code == 404 and set(r.json()["error"]) >= {"message", "type", "param", "code"}
    r = httpx.get(base + "/v1/run")
    assert r.status_code == 405 and r.json()["error"]["type"] == "method_not_allowed"


def test_readyz_agrees_with_plan_without_model(base):
    ready = httpx.get(base + "/readyz").json()
    assert ready["checks"]["plan_engine"] == "disabled (--no-model)"
    r = httpx.post(base + "/v1/plan", json={"request": "hello"})
    assert r.status_code == 503 and r.json()["error"]["type"] == "model_disabled"
    assert "loading" not in r.text
