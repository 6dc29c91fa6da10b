"""Prometheus metrics of the router (default registry, created once per process)."""
from __future__ import annotations

from prometheus_client import Counter, Gauge

BUCKET_DEGRADED = Gauge(
    "tao_router_bucket_degraded",
    "1 while a Redis-backed token-second bucket runs on its local fallback (Redis unreachable)",
    ["tenant"],
)
ADMISSIONS = Counter(
    "tao_router_admissions_total", "Token-second bucket decisions", ["result"],  # admitted | rejected
)
ROUTED = Counter("tao_router_routed_total", "Requests routed, by chosen model", ["model"])
UPSTREAM_ERRORS = Counter(
    "tao_router_upstream_errors_total", "Upstream failures that put a model in cooldown", ["model", "kind"],
)
