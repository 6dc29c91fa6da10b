"""Prometheus metrics of the router.

They live in the serving binary's registry (``tao.server.metrics.REGISTRY``, rendered at
``/metrics``) when that module is present, else in prometheus_client's default registry.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge

try:
    from tao.server.metrics import REGISTRY
except ImportError:  # router used as a library without the server package
    from prometheus_client import REGISTRY

BUCKET_DEGRADED = Gauge(
    "tao_router_bucket_degraded",
    "1 while a Redis-backed token-second bucket runs on its local fallback (Redis unreachable)",
    ["tenant"],
    registry=REGISTRY,
)
ADMISSIONS = Counter(
    "tao_router_admissions_total",
    "Token-second bucket decisions (admitted | rejected)",
    ["result"],
    registry=REGISTRY,
)
ROUTED = Counter("tao_router_routed_total", "Requests routed, by chosen model", ["model"], registry=REGISTRY)
UPSTREAM_ERRORS = Counter(
    "tao_router_upstream_errors_total",
    "Upstream failures that put a model in cooldown",
    ["model", "kind"],
    registry=REGISTRY,
)
UPSTREAM_TOKENS = Counter(
    "tao_router_upstream_tokens_total",
    "Tokens reported by upstream usage",
    ["model", "kind"],
    registry=REGISTRY,
)
