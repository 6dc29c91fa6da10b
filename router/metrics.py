"""Prometheus metrics of the router.

They live in the router's own :data:`REGISTRY`; the serving binary adds that registry to its own
(``tao.server.metrics``), so they show at ``/metrics``. The router never imports the server.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge

REGISTRY = CollectorRegistry(auto_describe=True)

BUCKET_DEGRADED = Gauge(
    "tao_router_bucket_degraded",
    "1 while a Redis-backed token-second bucket runs on its local fallback (Redis unreachable)",
    ["tenant"],
    registry=REGISTRY,
)
BUCKET_RESTARTS = Counter(
    "tao_router_bucket_redis_restarts_total",
    "Times a Redis-backed bucket found its epoch gone or changed (Redis restarted or flushed)",
    ["tenant"],
    registry=REGISTRY,
)
SHARED_DEGRADED = Gauge(
    "tao_shared_state_degraded",
    "1 while a Redis-shared piece (breaker | cooldown) runs on its per-process fallback (Redis unreachable)",
    ["piece"],
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
