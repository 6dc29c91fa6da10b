"""Prometheus metric objects shared by the route modules (one registry per process).

Route modules import the objects they need, e.g.::

    from tao.server.metrics import STAGE_LATENCY
    STAGE_LATENCY.labels(endpoint="/v1/plan", stage="decode").observe(seconds)

``/metrics`` (``tao.server.routes_core``) renders :data:`REGISTRY` (the router's metrics included).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from router.metrics import REGISTRY as ROUTER_REGISTRY

REGISTRY = CollectorRegistry(auto_describe=True)
REGISTRY.register(ROUTER_REGISTRY)  # the router keeps its own registry; /metrics shows both

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter(
    "tao_http_requests_total",
    "HTTP requests by endpoint, method and status code",
    ["endpoint", "method", "status"],
    registry=REGISTRY,
)
REQUEST_LATENCY = Histogram(
    "tao_http_request_seconds",
    "HTTP request latency by endpoint",
    ["endpoint"],
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
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
