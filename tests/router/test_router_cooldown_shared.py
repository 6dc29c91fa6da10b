"""Model cooldowns shared through a real Redis: two RedisCooldowns are two gateway replicas."""

from __future__ import annotations

import logging
import time

import pytest
import redis

from router import HeuristicEstimator, RouterConfig, build_router
from router.cooldown import CooldownConfig
from router.cooldown_redis import RedisCooldowns, SharedCooldownConfig, cooldown_keys
from router.metrics import REGISTRY
from router.testing.redis_server import RedisServer

CFG = CooldownConfig(base_s=5.0, max_s=60.0)
NOW = SharedCooldownConfig(sync_interval_s=0.0)  # every read refreshes: the test sees at once


def _pair(url: str) -> tuple[RedisCooldowns, RedisCooldowns]:
    return RedisCooldowns.from_url(url, CFG, NOW), RedisCooldowns.from_url(url, CFG, NOW)


def test_a_failure_on_one_replica_cools_the_model_on_the_other(redis_server, tenant) -> None:
    model = f"gpt:{tenant}"
    a, b = _pair(redis_server.url)
    assert b.remaining(model) == 0
    assert a.fail(model, status="rate_limited") == pytest.approx(5.0)
    assert 4.5 < b.remaining(model) <= 5.0 and b.status(model) == "rate_limited"
    assert model in b.snapshot()
    # consecutive failures double fleet-wide, whichever replica sees them
    assert b.fail(model, status="timeout") == pytest.approx(10.0)
    assert 9.5 < a.remaining(model) <= 10.0 and a.status(model) == "timeout"
    # a success on either replica ends it for both
    a.ok(model)
    assert a.remaining(model) == 0 and b.remaining(model) == 0 and b.status(model) is None
    assert a.fail(model) == pytest.approx(5.0)  # the doubling started over
    a.close(), b.close()


def test_retry_after_is_kept_and_a_longer_cooldown_never_shortened(redis_server, tenant) -> None:
    model = f"m-{tenant}"
    a, b = _pair(redis_server.url)
    assert a.fail(model, retry_after_s=30.0, status="rate_limited") == pytest.approx(30.0)
    client = redis.Redis.from_url(redis_server.url)
    client.delete(cooldown_keys(model)[1])  # forget the count: the next one would be 5 s
    assert b.fail(model) == pytest.approx(30.0, abs=0.2)  # the running 30 s cooldown stays
    client.delete(*cooldown_keys(model))
    client.close(), a.close(), b.close()


def test_mirror_lags_at_most_the_sync_interval(redis_server, tenant) -> None:
    model = f"lag-{tenant}"
    slow = SharedCooldownConfig(sync_interval_s=0.3)
    a = RedisCooldowns.from_url(redis_server.url, CFG, NOW)
    b = RedisCooldowns.from_url(redis_server.url, CFG, slow)
    assert b.remaining(model) == 0  # first sight: refreshed at once
    a.fail(model)
    time.sleep(0.35)
    assert b.remaining(model) > 4.0
    a.ok(model)
    a.close(), b.close()


def _gauge() -> float | None:
    return REGISTRY.get_sample_value("tao_shared_state_degraded", {"piece": "cooldown"})


@pytest.mark.timeout(60)
def test_redis_down_keeps_cooling_locally(tenant, caplog) -> None:
    server = RedisServer().start()
    try:
        shared = SharedCooldownConfig(sync_interval_s=0.0, reconnect_interval_s=0.2, socket_timeout_s=0.2)
        a = RedisCooldowns.from_url(server.url, CFG, shared)
        model = f"down-{tenant}"
        assert a.remaining(model) == 0
        server.stop()
        with caplog.at_level(logging.WARNING, logger="tao.router.cooldown"):
            secs = a.fail(model, status="server_error")
        assert secs == pytest.approx(5.0) and a.remaining(model) > 4.5  # cooled here, no raise
        assert a.degraded and _gauge() == 1.0 and "shared cooldown store unreachable" in caplog.text
        server.start()
        time.sleep(0.25)
        a.remaining(model)  # the first refresh after the outage: Redis is the truth again
        assert not a.degraded and _gauge() == 0.0
        assert a.fail(model) == pytest.approx(5.0)  # an empty Redis: counted from 1
        a.close()
    finally:
        server.close()


async def test_gateway_routers_share_cooldowns(redis_server) -> None:
    routers = [
        build_router(
            RouterConfig(redis_url=redis_server.url, capacity_token_s=None), estimator=HeuristicEstimator()
        )
        for _ in range(2)
    ]
    r1, r2 = routers
    assert isinstance(r1.cooldowns, RedisCooldowns) and isinstance(r2.cooldowns, RedisCooldowns)
    model = next(iter(r1.profiles))
    r1.cooldowns.fail(model, status="server_error")
    r2.cooldowns.sync(force=True)
    assert r2.cooldowns.remaining(model) > 4.0
    r1.cooldowns.ok(model)
    for r in routers:
        await r.aclose()
