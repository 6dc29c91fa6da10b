"""HTTP tools: one pooled ``httpx.AsyncClient`` per tool, POST ``{base_url}/tools/{name}``.

Pools keep idle connections for ``idle_timeout_s`` — set below the upstream's keep-alive (uvicorn
closes idle connections after 5 s; we drop ours after 4 s) so a request never lands on a socket
the server is closing. Every call sends ``X-Request-ID``, ``X-Thought-ID``, a W3C
``traceparent`` when a span is active, and ``Idempotency-Key`` for non-idempotent tools; ids are
never truncated. Transport failures map to the error taxonomy, never to exceptions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from tao.action.normalize import from_http
from tao.contracts import ActionResult, ErrorInfo, ErrorType, ToolSpec


@dataclass
class CallContext:
    """Per-call facts the transport needs."""

    request_id: str
    thought_id: str | None = None
    step_id: str | None = None
    idempotency_key: str | None = None
    timeout_s: float = 5.0
    headers: dict[str, str] = field(default_factory=dict)  # e.g. traceparent, forwarded X-Mock-*


@dataclass
class HttpToolConfig:
    base_url: str
    idle_timeout_s: float = 4.0  # below the upstream keep-alive (uvicorn: 5 s)
    max_connections: int = 64
    max_keepalive: int = 16
    path_template: str = "/tools/{name}"


class HttpToolPool:
    """Pooled clients, one per tool name, created lazily inside the running event loop."""

    def __init__(self, config: HttpToolConfig) -> None:
        self.config = config
        self._clients: dict[str, httpx.AsyncClient] = {}

    def client(self, tool: str) -> httpx.AsyncClient:
        c = self._clients.get(tool)
        if c is None or c.is_closed:
            limits = httpx.Limits(
                max_connections=self.config.max_connections,
                max_keepalive_connections=self.config.max_keepalive,
                keepalive_expiry=self.config.idle_timeout_s,
            )
            c = self._clients[tool] = httpx.AsyncClient(
                base_url=self.config.base_url, limits=limits, trust_env=False
            )
        return c

    async def call(self, spec: ToolSpec, args: dict[str, Any], ctx: CallContext) -> ActionResult:
        headers = {"X-Request-ID": ctx.request_id, "Content-Type": "application/json", **ctx.headers}
        if ctx.thought_id:
            headers["X-Thought-ID"] = ctx.thought_id
        if ctx.idempotency_key:
            headers["Idempotency-Key"] = ctx.idempotency_key
        url = self.config.path_template.format(name=spec.name)
        t0 = time.perf_counter()
        try:
            resp = await self.client(spec.name).post(
                url, json=args, headers=headers, timeout=httpx.Timeout(ctx.timeout_s)
            )
        except httpx.TimeoutException:
            return _fail(spec, ctx, t0, ErrorType.TOOL_TIMEOUT, f"no response within {ctx.timeout_s:.3f} s")
        except httpx.TransportError as exc:
            return _fail(spec, ctx, t0, ErrorType.TOOL_TRANSIENT, f"transport error: {type(exc).__name__}")
        elapsed = (time.perf_counter() - t0) * 1000
        return from_http(spec.name, ctx.step_id, resp.status_code, resp.content, elapsed)

    async def aclose(self) -> None:
        for c in self._clients.values():
            await c.aclose()
        self._clients.clear()


def _fail(spec: ToolSpec, ctx: CallContext, t0: float, et: ErrorType, msg: str) -> ActionResult:
    return ActionResult(
        tool=spec.name,
        step_id=ctx.step_id,
        response_time_ms=round((time.perf_counter() - t0) * 1000, 3),
        error_info=ErrorInfo(error_type=et, message=msg, retryable=True),
    )
