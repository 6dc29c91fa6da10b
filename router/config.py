"""Typed router configuration and the one function that assembles a :class:`Router` from it."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from router.bucket import Bucket, BucketConfig, LocalBucket
from router.cooldown import CooldownConfig, Cooldowns
from router.core import Router
from router.estimate import Estimator
from router.policy import POLICIES
from router.profile import load_profiles
from router.redis_bucket import RedisBucket, RedisBucketConfig


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


def build_router(config: RouterConfig | None = None, *, estimator: Estimator | None = None) -> Router:
    cfg = config or RouterConfig()
    if cfg.policy not in POLICIES:
        raise ValueError(f"unknown policy {cfg.policy!r}; one of {sorted(POLICIES)}")
    factory = None
    if cfg.capacity_token_s is not None:
        bcfg = BucketConfig(cfg.capacity_token_s, cfg.window_s)
        if cfg.redis_url:
            rcfg = RedisBucketConfig(url=cfg.redis_url, replicas=cfg.replicas)

            def factory(tenant: str) -> Bucket:
                return RedisBucket(bcfg, rcfg, tenant=tenant)
        else:
            def factory(tenant: str) -> Bucket:
                return LocalBucket(bcfg, tenant=tenant)
    return Router(load_profiles(cfg.profiles_path), estimator=estimator, policy=POLICIES[cfg.policy](),
                  bucket_factory=factory, per_tenant=cfg.per_tenant, cooldowns=Cooldowns(cfg.cooldown),
                  latency_bound_s=cfg.latency_bound_s)
