"""Typed router configuration and the one function that assembles a :class:`Router` from it."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from router.bucket import Bucket, BucketConfig, LocalBucket
from router.cooldown import CooldownConfig, Cooldowns
from router.core import Router
from router.estimate import Estimator
from router.policy import POLICIES
from router.profile import load_profiles
from router.redis_bucket import RedisBucket, RedisBucketConfig, RedisConnections


@dataclass
class RouterConfig:
    """``capacity_token_s`` per ``window_s``: the shared token-second budget (None: no admission)."""

    profiles_path: Path | None = None  # None: router/profiles/default.toml
    capacity_token_s: float | None = 2.0e7
    window_s: float = 60.0
    redis_url: str | None = None  # set: share the bucket across replicas through Redis
    replicas: int = 1
    per_tenant: bool = False
    policy: str = "default"
    latency_bound_s: float | None = None
    cooldown: CooldownConfig = field(default_factory=CooldownConfig)
    upstream_timeout_s: float = 30.0  # per attempt, gateway only
    max_attempts: int = 3  # gateway: first choice + fallbacks

    @classmethod
    def from_env(cls, **overrides) -> RouterConfig:
        """Defaults, then ``TAO_ROUTER_*`` variables, then explicit non-None overrides.

        TAO_ROUTER_CONFIG (profiles file), TAO_REDIS_URL, TAO_ROUTER_CAPACITY (token*s, "none"
        disables admission), TAO_ROUTER_WINDOW_S, TAO_ROUTER_REPLICAS, TAO_ROUTER_PER_TENANT (0/1),
        TAO_ROUTER_POLICY, TAO_ROUTER_LATENCY_BOUND_S, TAO_UPSTREAM_TIMEOUT_S, TAO_ROUTER_MAX_ATTEMPTS.
        """
        env, cfg = os.environ, cls()
        if env.get("TAO_ROUTER_CONFIG"):
            cfg.profiles_path = Path(env["TAO_ROUTER_CONFIG"])
        cfg.redis_url = env.get("TAO_REDIS_URL") or None
        cap = env.get("TAO_ROUTER_CAPACITY")
        if cap:
            cfg.capacity_token_s = None if cap.lower() == "none" else float(cap)
        for name, key, conv in (
            ("window_s", "TAO_ROUTER_WINDOW_S", float),
            ("replicas", "TAO_ROUTER_REPLICAS", int),
            ("policy", "TAO_ROUTER_POLICY", str),
            ("latency_bound_s", "TAO_ROUTER_LATENCY_BOUND_S", float),
            ("upstream_timeout_s", "TAO_UPSTREAM_TIMEOUT_S", float),
            ("max_attempts", "TAO_ROUTER_MAX_ATTEMPTS", int),
        ):
            if env.get(key):
                setattr(cfg, name, conv(env[key]))
        if env.get("TAO_ROUTER_PER_TENANT"):
            cfg.per_tenant = env["TAO_ROUTER_PER_TENANT"] not in ("0", "false", "no")
        for k, v in overrides.items():
            if v is not None:
                setattr(cfg, k, v)
        return cfg


def build_router(config: RouterConfig | None = None, *, estimator: Estimator | None = None) -> Router:
    cfg = config or RouterConfig()
    if cfg.policy not in POLICIES:
        raise ValueError(f"unknown policy {cfg.policy!r}; one of {sorted(POLICIES)}")
    factory: Callable[[str], Bucket] | None = None
    resources: list[Any] = []
    if cfg.capacity_token_s is not None:
        bcfg = BucketConfig(cfg.capacity_token_s, cfg.window_s)
        if cfg.redis_url:
            rcfg = RedisBucketConfig(url=cfg.redis_url, replicas=cfg.replicas)
            conns = RedisConnections(rcfg)  # one pool for every tenant's bucket
            resources.append(conns)

            def redis_factory(tenant: str) -> Bucket:
                return RedisBucket(bcfg, rcfg, tenant=tenant, connections=conns)

            factory = redis_factory
        else:

            def local_factory(tenant: str) -> Bucket:
                return LocalBucket(bcfg, tenant=tenant)

            factory = local_factory

    cooldowns = Cooldowns(cfg.cooldown)
    if cfg.redis_url:  # one cooldown per model for every replica
        from router.cooldown_redis import RedisCooldowns

        cooldowns = RedisCooldowns.from_url(cfg.redis_url, cfg.cooldown)
        resources.append(cooldowns)
    return Router(
        load_profiles(cfg.profiles_path),
        estimator=estimator,
        policy=POLICIES[cfg.policy](),
        bucket_factory=factory,
        per_tenant=cfg.per_tenant,
        cooldowns=cooldowns,
        latency_bound_s=cfg.latency_bound_s,
        resources=resources,
    )
