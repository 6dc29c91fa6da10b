"""Prometheus metric objects shared by the route modules (one registry per process).

Route modules import the objects they need, e.g.::

    from tao.server.metrics import STAGE_LATENCY
    STAGE_LATENCY.labels(endpoint="/v1/plan", stage="decode").observe(seconds)

``/metrics`` (``tao.server.routes_core``) renders :data:`REGISTRY` (the router's metrics included).

Label cardinality is bounded: the ``endpoint`` label of :data:`REQUESTS` and
:data:`REQUEST_LATENCY` is the matched route *template* (``/v1/sessions/{session_id}``), never
the raw path; a path no route matches is :data:`UNMATCHED` (3,000 unauthenticated requests to
random paths used to add 3,000 series and grow ``/metrics`` from 32 KB to 7.35 MB).
:func:`endpoint_label` gives the template for an ASGI scope; the two metrics also map any raw
path they are handed onto the templates of the apps seen by :func:`endpoint_label` /
:func:`register_routes`, and when none is known yet they keep at most
:data:`MAX_ENDPOINT_SERIES` distinct values (the rest is :data:`UNMATCHED`). Per-tenant series
go through :data:`tenant_label` (the first :data:`MAX_TENANT_SERIES` tenants, then ``other``).
"""

from __future__ import annotations

import re
import threading
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from router.metrics import REGISTRY as ROUTER_REGISTRY

REGISTRY = CollectorRegistry(auto_describe=True)
REGISTRY.register(ROUTER_REGISTRY)  # the router keeps its own registry; /metrics shows both

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

UNMATCHED = "other"
"""The endpoint label of a request no route matches (one series, whatever the path)."""
OTHER = "other"
MAX_ENDPOINT_SERIES = 64
MAX_TENANT_SERIES = 50
MAX_CACHED_CHILDREN = 4096  # raw label sets whose child is remembered (the rest looked up each time)


class BoundedLabel:
    """Label values capped at ``cap`` distinct ones; later new values become ``other``."""

    def __init__(self, cap: int, other: str = OTHER) -> None:
        self.cap, self.other = cap, other
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, value: str) -> str:
        if value in self._seen or value == self.other:
            return value
        with self._lock:
            if len(self._seen) < self.cap:
                self._seen.add(value)
                return value
        return self.other


tenant_label = BoundedLabel(MAX_TENANT_SERIES)
"""``tenant_label(tenant)``: the label to use for a per-tenant series (bounded, see the module)."""

_templates: dict[str, re.Pattern[str]] = {}
_templates_lock = threading.Lock()
_fallback = BoundedLabel(MAX_ENDPOINT_SERIES, UNMATCHED)
_PARAM = re.compile(r"\{([^}:]+)(?::([^}]+))?\}")


def _template_regex(template: str) -> re.Pattern[str]:
    out, pos = [], 0
    for m in _PARAM.finditer(template):
        out.append(re.escape(template[pos : m.start()]))
        out.append(".+" if m.group(2) == "path" else "[^/]+")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out))


def register_routes(app: Any) -> None:
    """Learn the route templates of an ASGI app (FastAPI/Starlette ``app.routes``)."""
    paths = [getattr(r, "path_format", None) or getattr(r, "path", None) for r in getattr(app, "routes", ())]
    with _templates_lock:
        for p in paths:
            if isinstance(p, str) and p.startswith("/") and p not in _templates:
                _templates[p] = _template_regex(p)


def endpoint_label(scope: dict[str, Any]) -> str:
    """The route template the request of ``scope`` matches, else :data:`UNMATCHED`."""
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    if isinstance(template, str):
        return template
    app = scope.get("app")
    if app is not None:
        if not _templates:
            register_routes(app)
        from starlette.routing import Match

        for r in getattr(app, "routes", ()):
            matches = getattr(r, "matches", None)
            if matches is not None and matches(scope)[0] is not Match.NONE:  # PARTIAL: wrong method
                return getattr(r, "path_format", None) or getattr(r, "path", UNMATCHED)
    return _bound_endpoint(scope.get("path", ""))


def _bound_endpoint(value: str) -> str:
    """A bounded endpoint label for ``value`` (a template, or a raw path handed in by a caller)."""
    if value == UNMATCHED or value in _templates:
        return value
    if _templates:
        for template, rx in _templates.items():
            if rx.fullmatch(value):
                return template
        return UNMATCHED
    return _fallback(value)


class _EndpointBounded:
    """A labelled metric whose ``endpoint`` label goes through :func:`_bound_endpoint`."""

    def __init__(self, metric: Any) -> None:
        self._metric = metric
        # (args, kwargs) as given -> the child: a request's labels are looked up once, not bounded,
        # validated and locked again (prometheus_client's labels() does all three on every call)
        self._children: dict[tuple, Any] = {}

    def labels(self, *args: str, **kwargs: str) -> Any:
        key = (args, tuple(kwargs.items()))
        child = self._children.get(key)
        if child is not None:
            return child
        if args:
            args = (_bound_endpoint(args[0]), *args[1:])
        elif "endpoint" in kwargs:
            kwargs["endpoint"] = _bound_endpoint(kwargs["endpoint"])
        child = self._metric.labels(*args, **kwargs)
        if len(self._children) < MAX_CACHED_CHILDREN:
            self._children[key] = child
        return child

    def __getattr__(self, name: str) -> Any:
        return getattr(self._metric, name)


REQUESTS = _EndpointBounded(
    Counter(
        "tao_http_requests_total",
        "HTTP requests by endpoint (route template), method and status code",
        ["endpoint", "method", "status"],
        registry=REGISTRY,
    )
)
REQUEST_LATENCY = _EndpointBounded(
    Histogram(
        "tao_http_request_seconds",
        "HTTP request latency by endpoint (route template)",
        ["endpoint"],
        buckets=_LATENCY_BUCKETS,
        registry=REGISTRY,
    )
)
IN_FLIGHT = Gauge("tao_http_in_flight_requests", "requests being served", registry=REGISTRY)
STAGE_LATENCY = Histogram(
    "tao_stage_seconds",
    "latency of one stage of an endpoint (parse, decode, check, ...)",
    ["endpoint", "stage"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
PLAN_TOKENS = Counter(
    "tao_plan_tokens_total",
    "plan model tokens by kind (prompt, generated, jump_forward)",
    ["kind"],
    registry=REGISTRY,
)
PLAN_FORWARD_PASSES = Counter("tao_plan_forward_passes_total", "plan model forward passes", registry=REGISTRY)
PLAN_JUMP_FORWARD_RATIO = Gauge(
    "tao_plan_jump_forward_ratio",
    "share of generated plan tokens appended by jump-forward (cumulative)",
    registry=REGISTRY,
)
PLAN_RESULTS = Counter(
    "tao_plan_results_total",
    "plan outcomes (plan, insufficient_context, or error type)",
    ["outcome"],
    registry=REGISTRY,
)
OBSERVATIONS = Counter(
    "tao_observations_total", "observation checks by tool and validity", ["tool", "valid"], registry=REGISTRY
)
ENGINE_READY = Gauge("tao_plan_engine_ready", "1 when the plan engine is loaded", registry=REGISTRY)


class DecodeProcessCollector(Collector):
    """The plan engine's decode process (``tao serve`` decodes in a child process), read at
    scrape time: ``tao_plan_decode_process_up`` (1 while a child is serving, 0 while it restarts
    or after a failed restart), ``tao_plan_decode_process_exits_total`` (children that ended while
    the engine was open: crashes, OOM kills) and ``tao_plan_decode_process_restarts_total``
    (children started again). Nothing is exported when decoding runs in the server process."""

    def __init__(self) -> None:
        self._engine: Any = None

    def set_engine(self, engine: Any) -> None:
        self._engine = engine

    def collect(self) -> list[Metric]:
        proc = getattr(self._engine, "decode_process", None)
        if proc is None:
            return []
        up = GaugeMetricFamily("tao_plan_decode_process_up", "1 while the plan decode process serves")
        up.add_metric([], 1.0 if proc.alive else 0.0)
        exits = CounterMetricFamily(
            "tao_plan_decode_process_exits", "plan decode processes that ended while the engine was open"
        )
        exits.add_metric([], float(proc.exits))
        restarts = CounterMetricFamily(
            "tao_plan_decode_process_restarts", "plan decode processes started again after one ended"
        )
        restarts.add_metric([], float(proc.restarts))
        return [up, exits, restarts]


DECODE_PROCESS = DecodeProcessCollector()
REGISTRY.register(DECODE_PROCESS)


def record_plan_stats(
    prompt_tokens: int, generated_tokens: int, jump_forward_tokens: int, forward_passes: int
) -> None:
    """Add one generation's token counts and update the cumulative jump-forward ratio."""
    PLAN_TOKENS.labels(kind="prompt").inc(prompt_tokens)
    PLAN_TOKENS.labels(kind="generated").inc(generated_tokens)
    PLAN_TOKENS.labels(kind="jump_forward").inc(jump_forward_tokens)
    PLAN_FORWARD_PASSES.inc(forward_passes)
    gen = PLAN_TOKENS.labels(kind="generated")._value.get()
    jf = PLAN_TOKENS.labels(kind="jump_forward")._value.get()
    PLAN_JUMP_FORWARD_RATIO.set(jf / gen if gen else 0.0)
