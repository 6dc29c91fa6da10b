"""The HTTP tool transport (aiohttp pool) against real local servers: the idle timeout drops below
an upstream's advertised ``Keep-Alive: timeout=N``, transport failures are typed, and a pool
keeps working across idle periods and event loops."""

from __future__ import annotations

import asyncio
import socket

import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from router.testing.upstream import ServerThread
from tao.action.http_tools import CallContext, HttpToolConfig, HttpToolPool, keep_alive_timeout
from tao.contracts import ErrorType, ToolSpec

SPEC = ToolSpec(
    name="echo",
    description="echo",
    args_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
    idempotent=True,
)


def _app(keep_alive: str | None, delay_s: float = 0.0) -> Starlette:
    async def echo(request: Request) -> Response:
        if delay_s:
            await asyncio.sleep(delay_s)
        body = orjson.loads(await request.body())
        headers = {"Keep-Alive": keep_alive} if keep_alive else None
        out = {"echo": body, "request_id": request.headers.get("x-request-id")}
        return Response(orjson.dumps(out), media_type="application/json", headers=headers)

    return Starlette(routes=[Route("/tools/echo", echo, methods=["POST"])])


@pytest.mark.parametrize(
    "header, seconds",
    [
        ("timeout=5, max=100", 5.0),
        ("max=100, timeout=2", 2.0),
        ("Timeout=1.5", 1.5),
        ("max=3", None),
        (None, None),
    ],
)
def test_keep_alive_header_parsing(header, seconds) -> None:
    assert keep_alive_timeout(header) == seconds


def test_idle_timeout_follows_the_upstreams_keep_alive() -> None:
    with ServerThread(_app("timeout=2, max=100")) as srv:
        pool = HttpToolPool(HttpToolConfig(base_url=srv.url, idle_timeout_s=4.0))

        async def go() -> None:
            r = await pool.call(SPEC, {"x": 1}, CallContext(request_id="r-1" * 40))
            assert r.error_info is None and r.parsed_data["echo"] == {"x": 1}
            assert r.parsed_data["request_id"] == "r-1" * 40  # never truncated
            assert pool.idle_timeout_s == pytest.approx(1.0)  # 2 s advertised, 1 s margin
            conn = pool.client("echo").connector
            assert conn is not None and conn._keepalive_timeout == pytest.approx(1.0)  # type: ignore[attr-defined]
            await asyncio.sleep(2.2)  # past the upstream's keep-alive: our idle socket is gone first
            r = await pool.call(SPEC, {"x": 2}, CallContext(request_id="r-2"))
            assert r.error_info is None and r.parsed_data["echo"] == {"x": 2}
            await pool.aclose()

        asyncio.run(go())


def test_a_longer_advertised_keep_alive_does_not_raise_ours() -> None:
    with ServerThread(_app("timeout=30")) as srv:
        pool = HttpToolPool(HttpToolConfig(base_url=srv.url, idle_timeout_s=4.0))

        async def go() -> None:
            assert (await pool.call(SPEC, {"x": 1}, CallContext(request_id="r"))).error_info is None
            assert pool.idle_timeout_s == 4.0
            await pool.aclose()

        asyncio.run(go())


def test_timeouts_and_refused_connections_are_typed() -> None:
    with ServerThread(_app(None, delay_s=1.0)) as srv:
        pool = HttpToolPool(HttpToolConfig(base_url=srv.url))

        async def go() -> None:
            r = await pool.call(SPEC, {"x": 1}, CallContext(request_id="r", timeout_s=0.2))
            assert r.error_info is not None and r.error_info.error_type is ErrorType.TOOL_TIMEOUT
            assert r.error_info.retryable and 150 <= r.response_time_ms < 900
            await pool.aclose()

        asyncio.run(go())
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pool = HttpToolPool(HttpToolConfig(base_url=f"http://127.0.0.1:{port}"))

    async def refused() -> None:
        r = await pool.call(SPEC, {"x": 1}, CallContext(request_id="r"))
        assert r.error_info is not None and r.error_info.error_type is ErrorType.TOOL_TRANSIENT
        await pool.aclose()

    asyncio.run(refused())


def test_a_closed_pool_reopens_in_a_new_event_loop() -> None:
    with ServerThread(_app(None)) as srv:
        pool = HttpToolPool(HttpToolConfig(base_url=srv.url))
        for i in range(2):  # two asyncio.run() loops, the pool closed at the end of each

            async def go(i: int = i) -> None:
                r = await pool.call(SPEC, {"x": i}, CallContext(request_id="r"))
                assert r.error_info is None and r.parsed_data["echo"] == {"x": i}
                await pool.aclose()

            asyncio.run(go())
