"""Admission control: a bound on the runs and plans in flight on this replica.

Every ``POST /v1/run`` and ``POST /v1/plan`` takes a slot of its gate before its body is read;
past the bound a request waits at most ``queue_wait_s`` (default 0: none) in a short queue of at
most ``max_queue`` entries, else it is answered at once with **503** ``overloaded`` and a
``Retry-After`` header (whole seconds, at least 1) from the gate's queue estimate: the time until
the slots ahead of it free up, from a moving average of the admitted requests' service time
(``slots ahead / bound × service time``). The body carries the precise ``retry_after_s`` and the
gate's ``limit``/``in_flight``. A shed request costs a few microseconds and never reaches the
route, so a replica offered twice its capacity keeps answering at its capacity instead of
queueing everything past its deadline.

Two plain ASGI layers share the gates:

* :class:`ShedFront`, the outermost layer of the app (in front of the error handler and the core
  middleware): while a gate cannot take another request (full, and no room or no wait in its
  queue) a ``POST`` to its path is answered right there, from the counter: no routing, no body
  read, no auth, no logging, no per-request task, only the typed 503 body (with a fresh trace id,
  or the one of the request's ``traceparent``; ``X-Request-ID`` echoed), ``Retry-After``, and the
  ``tao_admission_shed_total`` / ``tao_http_requests_total`` counters. While the gate is full any
  caller is refused this way, an unauthenticated one included (it takes no slot either way).
* :class:`AdmissionMiddleware`, *inside* the core middleware (``tao.server.routes_core``: request
  ids, auth, body limit, timeout), takes the slot (or waits in the queue, or sheds the request
  that found the gate full between the two layers), so an unauthenticated caller never takes a
  slot. A slot is released in ``finally``: a client that disconnects, a request that times out
  or raises gives its slot back.

Bounds: ``ServerConfig.max_inflight_runs`` / ``max_inflight_plans`` (``--max-inflight-runs``,
``--max-inflight-plans``, ``TAO_MAX_INFLIGHT_RUNS``, ``TAO_MAX_INFLIGHT_PLANS``; 0 = unbounded).
"""

from __future__ import annotations

import asyncio
import math
import re
import time
import uuid
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from prometheus_client import Counter, Gauge
from starlette.middleware import Middleware

from tao.server.metrics import REGISTRY, REQUEST_LATENCY, REQUESTS

if TYPE_CHECKING:
    from fastapi import FastAPI

    from tao.server.config import ServerConfig

SHED = Counter(
    "tao_admission_shed_total", "requests shed with 503 by admission control", ["endpoint"], registry=REGISTRY
)
ADMITTED_IN_FLIGHT = Gauge(
    "tao_admission_in_flight",
    "admitted requests in flight per gated endpoint",
    ["endpoint"],
    registry=REGISTRY,
)


@dataclass(frozen=True)
class GateConfig:
    """One endpoint's bound. ``limit`` 0: unbounded (the gate only counts)."""

    limit: int
    max_queue: int = 0  # requests allowed to wait for a slot
    queue_wait_s: float = 0.0  # how long one may wait before it is shed
    initial_service_s: float = 0.05  # service-time estimate before anything finished

    def __post_init__(self) -> None:
        if self.limit < 0 or self.max_queue < 0 or self.queue_wait_s < 0:
            raise ValueError("admission bounds must be >= 0")


class Overloaded(Exception):
    """The gate is full; ``retry_after_s`` is its queue estimate."""

    def __init__(self, retry_after_s: float, limit: int, in_flight: int) -> None:
        super().__init__(f"server busy: {in_flight} of {limit} slots in use")
        self.retry_after_s, self.limit, self.in_flight = retry_after_s, limit, in_flight


class Gate:
    """A counting gate with an optional short FIFO queue and a service-time estimate (EWMA).
    Single event loop: no lock needed (every mutation happens between awaits)."""

    ALPHA = 0.1  # weight of the newest service time in the moving average

    def __init__(self, config: GateConfig) -> None:
        self.config = config
        self.in_flight = 0
        self.service_s = config.initial_service_s
        self._waiters: deque[asyncio.Future[None]] = deque()

    def retry_after_s(self) -> float:
        """Seconds until a slot is expected free for a newcomer behind the current queue."""
        limit = max(1, self.config.limit)
        ahead = max(1, self.in_flight + len(self._waiters) - limit + 1)
        return ahead * self.service_s / limit

    def _full(self) -> bool:
        return 0 < self.config.limit <= self.in_flight

    def refuses(self) -> bool:
        """:meth:`acquire` would raise :class:`Overloaded` at once (no slot, no queue room)."""
        if not self._full() and not self._waiters:
            return False
        cfg = self.config
        return len(self._waiters) >= cfg.max_queue or cfg.queue_wait_s <= 0

    async def acquire(self) -> None:
        if not self._full() and not self._waiters:
            self.in_flight += 1
            return
        cfg = self.config
        if len(self._waiters) >= cfg.max_queue or cfg.queue_wait_s <= 0:
            raise Overloaded(self.retry_after_s(), cfg.limit, self.in_flight)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await asyncio.wait_for(asyncio.shield(fut), cfg.queue_wait_s)
        except TimeoutError:
            if fut.done() and not fut.cancelled():  # the slot arrived as the wait expired: keep it
                return
            fut.cancel()
            raise Overloaded(self.retry_after_s(), cfg.limit, self.in_flight) from None
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release(None)  # handed a slot while being cancelled: pass it on
            else:
                fut.cancel()
            raise
        finally:
            if fut in self._waiters:
                self._waiters.remove(fut)

    def release(self, service_s: float | None) -> None:
        if service_s is not None:
            self.service_s += self.ALPHA * (service_s - self.service_s)
        while self._waiters:  # hand the slot straight to the oldest live waiter
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return
        self.in_flight -= 1


def retry_after_header(seconds: float) -> str:
    return str(max(1, math.ceil(seconds))) if math.isfinite(seconds) else "60"


class AdmissionMiddleware:
    """ASGI middleware gating ``POST`` requests to the paths of ``gates``."""

    def __init__(self, app: Any, gates: dict[str, Gate]) -> None:
        self.app, self.gates = app, gates
        # the labelled gauge of each gated path, looked up once (labels() locks and hashes)
        self._in_flight = {path: ADMITTED_IN_FLIGHT.labels(endpoint=path) for path in gates}

    async def __call__(self, scope, receive, send) -> None:
        gate = self.gates.get(scope.get("path", "")) if scope["type"] == "http" else None
        if gate is None or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        path = scope["path"]
        try:
            await gate.acquire()
        except Overloaded as exc:
            SHED.labels(endpoint=path).inc()
            return await _reply_overloaded(scope, send, exc)
        in_flight = self._in_flight.get(path) or ADMITTED_IN_FLIGHT.labels(endpoint=path)
        in_flight.inc()
        t0 = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            in_flight.dec()
            gate.release(time.perf_counter() - t0)


_TRACEPARENT = re.compile(rb"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")


class ShedFront:
    """Outermost ASGI layer: a ``POST`` to a gated path whose gate :meth:`Gate.refuses` is answered
    503 before anything else of the app runs (module docstring)."""

    def __init__(self, app: Any, gates: dict[str, Gate]) -> None:
        self.app, self.gates = app, gates
        self._counters: dict[str, tuple[Any, Any, Any]] = {}

    def _metrics(self, path: str) -> tuple[Any, Any, Any]:
        got = self._counters.get(path)
        if got is None:  # the labelled children, looked up once per gated path
            got = self._counters[path] = (
                SHED.labels(endpoint=path),
                REQUESTS.labels(endpoint=path, method="POST", status="503"),
                REQUEST_LATENCY.labels(endpoint=path),
            )
        return got

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST":
            gate = self.gates.get(scope.get("path", ""))
            if gate is not None and gate.refuses():
                return await self._shed(scope, send, gate)
        return await self.app(scope, receive, send)

    async def _shed(self, scope, send, gate: Gate) -> None:
        t0 = time.perf_counter()
        request_id = trace_id = None
        for k, v in scope.get("headers", ()):
            lk = k.lower()
            if lk == b"x-request-id":
                request_id = v
            elif lk == b"traceparent":
                m = _TRACEPARENT.match(v)
                trace_id = m.group(1).decode() if m else None
        trace_id = trace_id or uuid.uuid4().hex
        exc = Overloaded(gate.retry_after_s(), gate.config.limit, gate.in_flight)
        extra = [
            (b"x-request-id", request_id or uuid.uuid4().hex.encode()),
            (b"x-trace-id", trace_id.encode()),
        ]
        await _send_overloaded(send, exc, trace_id, extra)
        shed, requests, latency = self._metrics(scope["path"])
        shed.inc()
        requests.inc()
        latency.observe(time.perf_counter() - t0)


async def _reply_overloaded(scope, send, exc: Overloaded) -> None:
    await _send_overloaded(send, exc, (scope.get("state") or {}).get("trace_id"), [])


async def _send_overloaded(send, exc: Overloaded, trace_id: str | None, extra: list) -> None:
    err = {
        "message": f"{exc}; retry in {exc.retry_after_s:.3f}s",
        "type": "overloaded",
        "param": None,
        "code": "overloaded",
        "retry_after_s": round(exc.retry_after_s, 3),
        "limit": exc.limit,
        "in_flight": exc.in_flight,
    }
    body = orjson.dumps({"error": err, "trace_id": trace_id})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", retry_after_header(exc.retry_after_s).encode()),
        *extra,
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def gates_for(config: ServerConfig) -> dict[str, Gate]:
    wait, queue = config.admission_queue_wait_s, config.admission_max_queue
    return {
        "/v1/run": Gate(GateConfig(config.max_inflight_runs, queue, wait)),
        "/v1/plan": Gate(GateConfig(config.max_inflight_plans, queue, wait, initial_service_s=0.1)),
    }


def register(app: FastAPI, config: ServerConfig) -> None:
    """Install the gates innermost (inside the core middleware, whatever the module order)."""
    gates = gates_for(config)
    app.state.admission = gates
    app.user_middleware.append(Middleware(AdmissionMiddleware, gates=gates))
    build = app.build_middleware_stack

    def build_with_front() -> Any:  # ShedFront outermost, in front of Starlette's error handler
        return ShedFront(build(), gates)

    app.build_middleware_stack = build_with_front  # type: ignore[method-assign]
