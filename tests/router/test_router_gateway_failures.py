"""Gateway under upstream failures, through the real core middleware (request timeout) on a real
uvicorn, in front of real local fake upstreams: in-flight counts come back after timeouts, a
per-try timeout below the request timeout falls back and cools down, all-429 is a 429 with
``Retry-After``, and a model named explicitly is never silently substituted."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from fastapi import FastAPI

from router import CooldownConfig, HeuristicEstimator, RouterConfig, build_router
from router.forward import Forwarder
from router.testing.upstream import ServerThread, Upstream, UpstreamBehavior
from tao.server import routes_core, routes_gateway
from tao.server.config import ServerConfig
from tao.server.errors import install_error_handlers

MODELS = ("gpt-4o-mini", "gpt-4.1", "o3")
REQUEST_TIMEOUT_S = 1.0


def _profiles(path, urls: dict[str, str], *, mini_fallbacks: str = "", concurrency: int = 2) -> None:
    rows = []
    for tier, name in enumerate(MODELS, start=1):
        rows.append(
            f'[[model]]\nname = "{name}"\nendpoint = "{urls[name]}/v1"\nmax_input_tokens = 8000\n'
            f"max_output_tokens = 2000\nprice_in_per_1k = {0.001 * tier}\nprice_out_per_1k = {0.002 * tier}\n"
            f"tier = {tier}\nconcurrency = {concurrency}\n"
            f"strengths = {['fast', 'tool_call'] if tier == 1 else ['general']}\n".replace("'", '"')
            + (f"fallbacks = {mini_fallbacks}\n" if name == "gpt-4o-mini" and mini_fallbacks else "")
        )
    path.write_text("\n".join(rows))


@pytest.fixture(scope="module")
def upstreams():
    ups = {name: Upstream(name) for name in MODELS}
    servers = {name: ServerThread(u.app()).start() for name, u in ups.items()}
    yield ups, {name: s.url for name, s in servers.items()}
    for s in servers.values():
        s.stop()


@pytest.fixture
def gateway(upstreams, tmp_path):
    """The gateway with the serving middleware (request timeout 1 s); yields (url, app, ups, path)."""
    ups, urls = upstreams
    for u in ups.values():
        u.behavior = UpstreamBehavior()
        u.requests.clear()
    path = tmp_path / "profiles.toml"
    _profiles(path, urls)
    cfg = ServerConfig(router_config=path, load_model=False, request_timeout_s=REQUEST_TIMEOUT_S)
    app = FastAPI()
    install_error_handlers(app)
    routes_core.register(app, cfg)
    routes_gateway.register(app, cfg)
    app.state.gateway.router = _router(path)
    server = ServerThread(app, lifespan="on").start()
    yield server.url, app, ups, path
    server.stop()


def _router(path, **kw):
    return build_router(
        RouterConfig(profiles_path=path, capacity_token_s=1e7, cooldown=CooldownConfig(0.3, 0.6), **kw),
        estimator=HeuristicEstimator(),
    )


def chat(model: str = "auto", **kw) -> dict:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **kw}


async def _burst(url: str, body: dict, n: int) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=url, timeout=10) as c:
        return await asyncio.gather(*(c.post("/v1/chat/completions", json=body) for _ in range(n)))


def test_per_try_timeout_is_below_the_request_timeout(gateway) -> None:
    _, app, _, _ = gateway
    assert app.state.gateway.forwarder.timeout_s == pytest.approx(REQUEST_TIMEOUT_S / 2)
    assert app.state.gateway.request_timeout_s == REQUEST_TIMEOUT_S


def test_hung_upstream_falls_back_within_the_request_timeout_and_cools_down(gateway) -> None:
    url, _, ups, _ = gateway
    ups["gpt-4o-mini"].behavior = UpstreamBehavior(hang_s=5.0)
    with httpx.Client(base_url=url, timeout=10) as c:
        t0 = time.perf_counter()
        r = c.post("/v1/chat/completions", json=chat(task_type="tool_call"))
        elapsed = time.perf_counter() - t0
        assert r.status_code == 200, r.text
        assert r.headers["x-tao-model"] == "gpt-4.1" and r.headers["x-tao-fallback-from"] == "gpt-4o-mini"
        assert elapsed < REQUEST_TIMEOUT_S  # the first try gave up at the per-try timeout
        status = c.get("/v1/router/status").json()
        assert "gpt-4o-mini" in status["cooldowns"]
        assert status["inflight"] == {"gpt-4o-mini": 0, "gpt-4.1": 0}


def test_inflight_returns_to_zero_after_timeouts_and_the_model_is_usable_again(gateway) -> None:
    url, app, ups, _ = gateway
    for u in ups.values():
        u.behavior = UpstreamBehavior(hang_s=5.0)
    state = app.state.gateway
    # the old failure: the try outlives the request, so the server's own timeout cancels it mid-call
    state.forwarder, state.request_timeout_s = Forwarder(5.0), None
    try:
        for _ in range(3):  # rounds of concurrent requests naming the model, all cancelled at 1 s
            rs = asyncio.run(_burst(url, chat("gpt-4o-mini"), 4))
            assert sorted(r.status_code for r in rs) == [503, 503, 504, 504]  # 2 slots; 2 shed as busy
            for r in rs:
                assert r.json()["error"]["type"] in ("timeout", "model_busy")
                assert r.headers.get("x-tao-model") is None  # nobody else answered for it
            assert state.inflight["gpt-4o-mini"] == 0  # released in `finally`, even when cancelled
    finally:
        asyncio.run(state.forwarder.aclose())
    state.forwarder, state.request_timeout_s = Forwarder(0.3), REQUEST_TIMEOUT_S  # slack for a loaded VM
    # with the per-try timeout the gateway answers itself, typed, and still gives the slots back
    rs = asyncio.run(_burst(url, chat("gpt-4o-mini"), 2))
    assert [r.status_code for r in rs] == [504, 504]
    assert all(r.json()["error"]["type"] == "upstream_timeout" for r in rs)
    assert state.inflight["gpt-4o-mini"] == 0
    for u in ups.values():
        u.behavior = UpstreamBehavior()
    time.sleep(0.7)  # past the (test-short) cooldown
    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.post("/v1/chat/completions", json=chat("gpt-4o-mini"))
        assert r.status_code == 200 and r.headers["x-tao-model"] == "gpt-4o-mini"
        assert "x-tao-fallback-from" not in r.headers


def test_named_model_failing_is_not_substituted_without_a_declared_fallback(gateway) -> None:
    url, _, ups, _ = gateway
    ups["gpt-4o-mini"].behavior = UpstreamBehavior(fail_status=503, fail_times=-1)
    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.post("/v1/chat/completions", json=chat("gpt-4o-mini"))
        assert r.status_code == 502 and r.json()["error"]["tried"] == ["gpt-4o-mini"]
        r = c.post("/v1/chat/completions", json=chat("gpt-4o-mini"))  # cooling down: still not another
        assert r.status_code == 503 and r.json()["error"]["type"] == "no_model_available"
        assert int(r.headers["retry-after"]) >= 1
    assert not ups["gpt-4.1"].requests and not ups["o3"].requests


def test_named_model_with_a_declared_fallback_says_who_answered(gateway, upstreams) -> None:
    url, app, ups, path = gateway
    _profiles(path, upstreams[1], mini_fallbacks='["o3"]')
    app.state.gateway.router = _router(path)
    ups["gpt-4o-mini"].behavior = UpstreamBehavior(fail_status=500, fail_times=-1)
    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.post("/v1/chat/completions", json=chat("gpt-4o-mini"))
    assert r.status_code == 200
    assert r.headers["x-tao-model"] == "o3" and r.headers["x-tao-fallback-from"] == "gpt-4o-mini"
    assert not ups["gpt-4.1"].requests  # not the policy's next choice: the declared one
    assert ups["o3"].requests[-1]["model"] == "o3"


def test_all_upstreams_429_is_429_with_retry_after(gateway) -> None:
    url, app, ups, path = gateway
    app.state.gateway.router = build_router(
        RouterConfig(profiles_path=path, capacity_token_s=1e7, cooldown=CooldownConfig(5.0, 60.0)),
        estimator=HeuristicEstimator(),
    )
    for u in ups.values():
        u.behavior = UpstreamBehavior(fail_status=429, fail_times=-1, retry_after_s=3)
    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.post("/v1/chat/completions", json=chat())
        assert r.status_code == 429, r.text
        err = r.json()["error"]
        assert err["type"] == "upstream_rate_limited" and sorted(err["tried"]) == sorted(MODELS)
        assert r.headers["retry-after"] == "3" and err["retry_after_s"] == 3
        r = c.post("/v1/chat/completions", json=chat())  # all cooling down for rate limits: still 429
        assert r.status_code == 429 and r.json()["error"]["type"] == "upstream_rate_limited"
        assert 1 <= int(r.headers["retry-after"]) <= 5
        assert c.get("/v1/router/status").json()["inflight"] == {m: 0 for m in MODELS}
