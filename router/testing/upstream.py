"""A local OpenAI-compatible upstream for tests, benchmarks and trying the gateway, served by a
real uvicorn (``tao upstream-mock --port 9100``: the port the default profiles point at).

It answers ``POST /v1/chat/completions`` (plain and SSE streaming) with a configurable number
of completion tokens, a delay, and injected errors (status codes, hangs), and counts requests.
Function calling: when the request offers ``tools`` (and ``tool_choice`` is not ``"none"``) and
the last message is not a tool result, it answers with a call of the chosen tool (the named one,
else the first) whose arguments fill the schema's required properties; after a ``tool`` message it
answers in text. ``api_key``: when set, requests without ``Authorization: Bearer KEY`` get 401.
``GET /v1/models`` lists the model names it was asked for (plus its own name).
"""

from __future__ import annotations

import argparse
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
    api_key: str | None = None  # require `Authorization: Bearer KEY` (else 401, OpenAI's error body)


def _sample(schema: dict) -> object:
    """A small value that fits a JSON Schema (enough for the tool-call arguments of the mock)."""
    if schema.get("enum"):
        return schema["enum"][0]
    t = schema.get("type")
    t = t[0] if isinstance(t, list) and t else t
    if t == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {k: _sample(props.get(k) or {}) for k in schema.get("required") or list(props)[:1]}
    return {"integer": 1, "number": 1.0, "boolean": True, "array": [], "null": None}.get(str(t), "x")


def _tool_call(body: dict) -> dict | None:
    """The tool call the mock answers with, or None for a text answer."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") == "function"]
    choice = body.get("tool_choice", "auto")
    msgs = body.get("messages") or []
    if (
        not tools
        or choice == "none"
        or (msgs and isinstance(msgs[-1], dict) and msgs[-1].get("role") == "tool")
    ):
        return None
    fn = tools[0]["function"]
    if isinstance(choice, dict) and (choice.get("function") or {}).get("name"):
        fn = next(
            (t["function"] for t in tools if t["function"].get("name") == choice["function"]["name"]), fn
        )
    args = _sample(fn.get("parameters") or {"type": "object"})
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": fn["name"], "arguments": orjson.dumps(args).decode()},
    }


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

    def _unauthorized(self, request: Request) -> Response | None:
        key = self.behavior.api_key
        if key is None or request.headers.get("authorization", "") == f"Bearer {key}":
            return None
        body = {
            "error": {
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
        }
        return Response(orjson.dumps(body), 401, media_type="application/json")

    async def models(self, request: Request) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
        names = sorted({self.name, *(str(r.get("model")) for r in self.requests if r.get("model"))})
        data = [{"id": n, "object": "model", "created": 0, "owned_by": "mock"} for n in names]
        return Response(orjson.dumps({"object": "list", "data": data}), media_type="application/json")

    async def chat(self, request: Request) -> Response:
        denied = self._unauthorized(request)
        if denied is not None:
            return denied
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
        call = _tool_call(body)
        if body.get("stream"):
            return StreamingResponse(
                self._stream(rid, created, model, n, usage, body, call), media_type="text/event-stream"
            )
        if b.delay_s:
            await asyncio.sleep(b.delay_s)
        message: dict = {"role": "assistant", "content": " ".join(["tok"] * n)}
        if call is not None:
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
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
                            "finish_reason": "tool_calls" if call else "stop",
                            "message": message,
                            "logprobs": None,
                        }
                    ],
                    "usage": usage,
                }
            ),
            media_type="application/json",
        )

    async def _stream(
        self, rid: str, created: int, model: str, n: int, usage: dict, body: dict, call: dict | None = None
    ):
        base = {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model}
        step = self.behavior.delay_s / max(n, 1)
        if call is not None:  # a tool call in two deltas (name, then the arguments), as OpenAI sends it
            head = {
                "index": 0,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            tail = {"index": 0, "function": {"arguments": call["function"]["arguments"]}}
            for delta in (
                {"role": "assistant", "content": None, "tool_calls": [head]},
                {"tool_calls": [tail]},
            ):
                chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                yield b"data: " + orjson.dumps(chunk) + b"\n\n"
            n = 0
        for i in range(n):
            if step:
                await asyncio.sleep(step)
            delta = {"role": "assistant", "content": "tok"} if i == 0 else {"content": " tok"}
            chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            yield b"data: " + orjson.dumps(chunk) + b"\n\n"
        yield (
            b"data: "
            + orjson.dumps(
                {
                    **base,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if call else "stop"}],
                }
            )
            + b"\n\n"
        )
        if (body.get("stream_options") or {}).get("include_usage"):
            yield b"data: " + orjson.dumps({**base, "choices": [], "usage": usage}) + b"\n\n"
        yield b"data: [DONE]\n\n"

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
            ]
        )


class IsolatedConfig(uvicorn.Config):
    """A ``uvicorn.Config`` that leaves the process's logging alone. uvicorn's own
    ``configure_logging`` sets the *global* ``uvicorn.access`` / ``uvicorn.error`` loggers (level,
    handlers, propagation), so one in-process helper server started with ``log_level="warning"``
    or ``access_log=False`` silenced the access log of the real server in the same process
    (``tao serve`` after its first ``/v1/run`` started the mock tool service). Here ``access_log``
    and the level only apply to this server's own connections."""

    def configure_logging(self) -> None:
        return None


class ServerThread:
    """Run an ASGI app under uvicorn in a background thread on 127.0.0.1 (free port)."""

    def __init__(
        self, app, port: int | None = None, *, lifespan: Literal["auto", "on", "off"] = "off"
    ) -> None:
        self.port = port or free_port()
        self.server = uvicorn.Server(
            IsolatedConfig(app, host="127.0.0.1", port=self.port, lifespan=lifespan, access_log=False)
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


def main(argv: list[str] | None = None) -> int:
    """``tao upstream-mock [--host 127.0.0.1] [--port 9100] [--tokens 20] [--delay-s 0] [--api-key K]``:
    the mock upstream as a process (try the gateway with ``tao serve`` and the default profiles)."""
    ap = argparse.ArgumentParser(prog="tao upstream-mock", description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=9100, help="default 9100, where default.toml points")
    ap.add_argument("--tokens", type=int, default=20, help="completion tokens per answer")
    ap.add_argument("--delay-s", type=float, default=0.0, help="seconds per answer (spread over a stream)")
    ap.add_argument("--api-key", default=None, help="require this bearer key (else 401)")
    a = ap.parse_args(argv)
    up = Upstream("mock", UpstreamBehavior(completion_tokens=a.tokens, delay_s=a.delay_s, api_key=a.api_key))
    print(f"mock OpenAI upstream on http://{a.host}:{a.port}/v1", flush=True)
    uvicorn.run(up.app(), host=a.host, port=a.port, log_level="info")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
