"""A local OpenAI-compatible upstream for tests and benchmarks, served by a real uvicorn.

It answers ``POST /v1/chat/completions`` (plain and SSE streaming) with a configurable number
of completion tokens, a delay, and injected errors (status codes, hangs), and counts requests.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Literal

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from router.testing.redis_server import free_port


@dataclass
class UpstreamBehavior:
    """Mutable knobs a test sets between requests."""

    completion_tokens: int = 20
    delay_s: float = 0.0
    fail_status: int | None = None  # answer this status ...
    fail_times: int = 0  # ... for this many requests (-1: always)
    retry_after_s: float | None = None  # Retry-After header on 429
    hang_s: float = 0.0  # sleep this long before answering (to trigger client timeouts)


@dataclass
class Upstream:
    name: str = "upstream"
    behavior: UpstreamBehavior = field(default_factory=UpstreamBehavior)
    requests: list[dict] = field(default_factory=list)

    def _maybe_fail(self) -> Response | None:
        b = self.behavior
        if b.fail_status is None or b.fail_times == 0:
            return None
        if b.fail_times > 0:
            b.fail_times -= 1
        headers = {"Retry-After": f"{b.retry_after_s:g}"} if b.retry_after_s is not None else None
        body = {"error": {"message": f"injected {b.fail_status}", "type": "upstream_error"}}
        return Response(orjson.dumps(body), b.fail_status, headers=headers, media_type="application/json")

    async def chat(self, request: Request) -> Response:
        body = orjson.loads(await request.body())
        self.requests.append(body)
        b = self.behavior
        if b.hang_s:
            await asyncio.sleep(b.hang_s)
        failed = self._maybe_fail()
        if failed is not None:
            return failed
        prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1
        n = min(b.completion_tokens, body.get("max_tokens") or b.completion_tokens)
        usage = {"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n}
        rid, created, model = f"chatcmpl-{len(self.requests)}", int(time.time()), body.get("model", self.name)
        if body.get("stream"):
            return StreamingResponse(
                self._stream(rid, created, model, n, usage, body), media_type="text/event-stream"
            )
        if b.delay_s:
            await asyncio.sleep(b.delay_s)
        return Response(
            orjson.dumps(
                {
                    "id": rid,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": " ".join(["tok"] * n)},
                        }
                    ],
                    "usage": usage,
                }
            ),
            media_type="application/json",
        )

    async def _stream(self, rid: str, created: int, model: str, n: int, usage: dict, body: dict):
        base = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model}
        step = self.behavior.delay_s / max(n, 1)
        for i in range(n):
            if step:
                await asyncio.sleep(step)
            delta = {"role": "assistant", "content": "tok"} if i == 0 else {"content": " tok"}
            chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            yield b"data: " + orjson.dumps(chunk) + b"\n\n"
        yield (
            b"data: "
            + orjson.dumps({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            + b"\n\n"
        )
        if (body.get("stream_options") or {}).get("include_usage"):
            yield b"data: " + orjson.dumps({**base, "choices": [], "usage": usage}) + b"\n\n"
        yield b"data: [DONE]\n\n"

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])


class ServerThread:
    """Run an ASGI app under uvicorn in a background thread on 127.0.0.1 (free port)."""

    def __init__(
        self, app, port: int | None = None, *, lifespan: Literal["auto", "on", "off"] = "off"
    ) -> None:
        self.port = port or free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(
                app,
                host="127.0.0.1",
                port=self.port,
                log_level="warning",
                lifespan=lifespan,
                access_log=False,
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 10.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"server on port {self.port} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
