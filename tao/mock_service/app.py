"""The mock tool service: an ASGI (Starlette) app serving ``POST /tools/{name}``.

Fault injection, configured at start (:class:`FaultConfig` rates drawn from a seeded RNG, so a
run is reproducible) or per request with the ``X-Mock-Fault`` header:

``timeout`` (the side effect happens, then the reply hangs ``hang_s`` and is a 504 — the
classic "request done, response lost"), ``504``, ``500``, ``503``, ``malformed`` (truncated JSON),
``slow`` (``slow_s`` delay, then normal), ``empty`` (``{}``), ``html`` (an HTML error page),
``xml`` (the normal body as XML), ``401``, ``429``, ``none``. ``FaultConfig.script`` lists faults for the
next calls in order (deterministic sequences, e.g. ``["timeout", "none"]``).

Non-idempotent calls carrying an ``Idempotency-Key`` are deduplicated: a repeated key returns
the recorded reply without a second side effect — unless the service runs with ``dedup=False``
(``--no-dedup``): then it ignores the header and every call performs its side effect, so tests
prove that the runtime alone prevents duplicates. ``GET /_stats`` reports calls, side effects,
deduplicated replays and faults per tool; ``POST /_reset`` clears them and the data;
``POST /_config`` changes fault rates; ``POST /_patch`` merges fields into a tool's replies
(used to plant injected instructions in results).
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any
from xml.sax.saxutils import escape

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tao.contracts.domain import Domain
from tao.domains import load_domain

FAULTS = ("none", "timeout", "504", "500", "503", "429", "malformed", "slow", "empty", "html", "xml", "401")
_TRACE_HEADERS = ("x-request-id", "x-thought-id", "idempotency-key", "traceparent")


@dataclass
class FaultConfig:
    timeout_rate: float = 0.0
    malformed_rate: float = 0.0
    error_rate: float = 0.0  # 5xx
    slow_rate: float = 0.0
    hang_s: float = 10.0
    slow_s: float = 1.5
    seed: int = 7
    tools: list[str] | None = None  # restrict random faults to these tools (None = all)
    script: list[str] = field(default_factory=list)  # faults for the next calls, in order, before the rates


@dataclass
class MockState:
    faults: FaultConfig = field(default_factory=FaultConfig)
    data_seed: int = 7
    today: date | None = None
    data: Any = field(init=False)  # the domain's mock_data(seed, today)
    rng: random.Random = field(init=False)
    calls: Counter = field(default_factory=Counter)
    side_effects: Counter = field(default_factory=Counter)
    replays: Counter = field(default_factory=Counter)
    fault_counts: Counter = field(default_factory=Counter)
    keys: dict[str, tuple[int, Any]] = field(default_factory=dict)
    patches: dict[str, dict[str, Any]] = field(default_factory=dict)
    last_headers: dict[str, dict[str, str]] = field(default_factory=dict)
    dedup: bool = True  # False (--no-dedup): Idempotency-Key is ignored, every call has its effect
    domain: Domain | None = None
    """Whose tools to serve (default: ``TAO_REGISTRY`` / the reference domain); needs its
    ``mock_handlers`` and ``mock_data``."""
    handlers: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        if self.domain is None:
            self.domain = load_domain()
        if not self.domain.mock_handlers or self.domain.mock_data is None:
            raise ValueError(f"domain {self.domain.ref or self.domain.name!r} has no mock handlers/data")
        self.handlers = dict(self.domain.mock_handlers)
        self.reset()

    def reset(self) -> None:
        assert self.domain is not None and self.domain.mock_data is not None
        self.data = self.domain.mock_data(self.data_seed, self.today)
        self.rng = random.Random(self.faults.seed)
        for c in (self.calls, self.side_effects, self.replays, self.fault_counts):
            c.clear()
        self.keys.clear()
        self.patches.clear()
        self.last_headers.clear()

    def draw_fault(self, tool: str) -> str:
        f = self.faults
        if f.tools is not None and tool not in f.tools:
            return "none"
        if f.script:
            return f.script.pop(0)
        x = self.rng.random()
        for name, rate in (
            ("timeout", f.timeout_rate),
            ("malformed", f.malformed_rate),
            ("500", f.error_rate),
            ("slow", f.slow_rate),
        ):
            if x < rate:
                return name
            x -= rate
        return "none"


def _json(status: int, body: Any) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _xml(body: Any, tag: str = "response") -> str:
    if isinstance(body, dict):
        inner = "".join(_xml(v, k) for k, v in body.items())
    elif isinstance(body, list):
        inner = "".join(_xml(v, "item") for v in body)
    else:
        inner = escape("" if body is None else str(body))
    return f"<{tag}>{inner}</{tag}>"


def create_app(state: MockState | None = None) -> Starlette:
    st = state or MockState()

    async def call_tool(request: Request) -> Response:
        name = request.path_params["name"]
        handler = st.handlers.get(name)
        if handler is None:
            return _json(404, {"error": "unknown_tool", "message": f"no tool {name}"})
        try:
            args = orjson.loads(await request.body() or b"{}")
        except orjson.JSONDecodeError:
            return _json(400, {"error": "bad_request", "message": "body must be JSON"})
        if not isinstance(args, dict):
            return _json(400, {"error": "bad_request", "message": "body must be a JSON object"})
        st.calls[name] += 1
        st.last_headers[name] = {h: request.headers[h] for h in _TRACE_HEADERS if h in request.headers}
        fault = request.headers.get("x-mock-fault", "").lower() or st.draw_fault(name)
        if fault not in FAULTS:
            fault = "none"
        st.fault_counts[fault] += 1
        if fault in ("504", "500", "503", "429", "401"):
            return _json(int(fault), {"error": "injected", "message": f"injected HTTP {fault}"})
        if fault == "html":
            return Response(
                "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
                "<body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>",
                200,
                media_type="text/html",
            )
        key = request.headers.get("idempotency-key") if st.dedup else None
        scoped = f"{name}:{key}" if key else None
        if scoped and scoped in st.keys:
            st.replays[name] += 1
            status, body = st.keys[scoped]
        else:
            try:
                status, body, effect = handler(st.data, args)
            except (KeyError, TypeError, ValueError) as exc:
                status, body, effect = (
                    400,
                    {"error": "bad_request", "message": f"{type(exc).__name__}: {exc}"},
                    False,
                )
            if effect:
                st.side_effects[name] += 1
            if scoped and status < 500:
                st.keys[scoped] = (status, body)
        if status == 200 and name in st.patches and isinstance(body, dict):
            body = {**body, **st.patches[name]}
        if fault == "timeout":
            await asyncio.sleep(st.faults.hang_s)
            return _json(504, {"error": "gateway_timeout"})
        if fault == "slow":
            await asyncio.sleep(st.faults.slow_s)
        if fault == "malformed":
            raw = orjson.dumps(body)
            return Response(raw[: max(1, len(raw) // 2)], status_code=status, media_type="application/json")
        if fault == "empty":
            return _json(200, {})
        if fault == "xml":
            return Response(_xml(body), status_code=status, media_type="application/xml")
        return _json(status, body)

    async def stats(request: Request) -> Response:
        return _json(
            200,
            {
                "calls": dict(st.calls),
                "side_effects": dict(st.side_effects),
                "replays": dict(st.replays),
                "faults": dict(st.fault_counts),
                "last_headers": st.last_headers,
                "config": asdict(st.faults),
                "dedup": st.dedup,
            },
        )

    async def reset(request: Request) -> Response:
        st.reset()
        return _json(200, {"ok": True})

    async def config(request: Request) -> Response:
        try:
            upd = orjson.loads(await request.body() or b"{}")
            st.faults = FaultConfig(**{**asdict(st.faults), **upd})
        except (orjson.JSONDecodeError, TypeError) as exc:
            return _json(400, {"error": "bad_request", "message": str(exc)})
        st.rng = random.Random(st.faults.seed)
        return _json(200, asdict(st.faults))

    async def patch(request: Request) -> Response:
        try:
            req = orjson.loads(await request.body())
            st.patches[str(req["tool"])] = dict(req["patch"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            return _json(400, {"error": "bad_request", "message": str(exc)})
        return _json(200, {"ok": True})

    async def health(request: Request) -> Response:
        return _json(200, {"ok": True, "tools": len(st.handlers)})

    app = Starlette(
        routes=[
            Route("/tools/{name}", call_tool, methods=["POST"]),
            Route("/_stats", stats, methods=["GET"]),
            Route("/_reset", reset, methods=["POST"]),
            Route("/_config", config, methods=["POST"]),
            Route("/_patch", patch, methods=["POST"]),
            Route("/healthz", health, methods=["GET"]),
        ]
    )
    app.state.mock = st
    return app
