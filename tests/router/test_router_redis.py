"""Redis-only behaviour: shared state across replicas, NOSCRIPT reload, hash tags, failure
and recovery against a real redis-server that the test stops and restarts."""

from __future__ import annotations

import logging
import time

import pytest
import redis
from redis.crc import key_slot

from router.bucket import BucketConfig
from router.metrics import REGISTRY
from router.redis_bucket import RedisBucket, RedisBucketConfig
from router.testing.redis_server import RedisServer

CFG = BucketConfig(capacity=1000.0, window_s=10_000.0)


@pytest.mark.slow
def test_replicas_share_one_bucket(redis_server, tenant):
    a = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    b = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    assert a.try_acquire(700).ok
    assert not b.try_acquire(700).ok  # b sees a's admission
    assert b.try_acquire(300).ok
    a.reset(), a.close(), b.close()


@pytest.mark.slow
def test_keys_share_one_hash_tag(redis_server, tenant):
    bucket = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    tags = {k[k.index("{") : k.index("}") + 1] for k in bucket.keys}
    assert tags == {"{" + tenant + "}"}
    bucket.try_acquire(1)
    client = redis.Redis.from_url(redis_server.url)
    assert len({key_slot(k.encode()) for k in bucket.keys}) == 1  # one Redis Cluster slot
    assert all(client.exists(k) for k in bucket.keys)
    client.close(), bucket.reset(), bucket.close()


@pytest.mark.slow
def test_script_reloaded_after_noscript(redis_server, tenant):
    bucket = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    assert bucket.try_acquire(10).ok and bucket.script_loads == 1
    client = redis.Redis.from_url(redis_server.url)
    client.script_flush()
    assert bucket.try_acquire(10).ok and bucket.script_loads == 2
    assert bucket.stats()["admitted"] == pytest.approx(20)
    client.close(), bucket.reset(), bucket.close()


def _gauge(tenant: str) -> float | None:
    return REGISTRY.get_sample_value("tao_router_bucket_degraded", {"tenant": tenant})


@pytest.mark.timeout(60)
def test_degrades_when_redis_stops_and_recovers_when_it_returns(tenant, caplog):
    server = RedisServer().start()
    try:
        bucket = RedisBucket(
            CFG,
            RedisBucketConfig(url=server.url, replicas=4, reconnect_interval_s=0.2, socket_timeout_s=0.2),
            tenant=tenant,
        )
        assert bucket.try_acquire(900).ok and not bucket.degraded
        server.stop()
        with caplog.at_level(logging.WARNING, logger="tao.router.bucket"):
            adm = bucket.try_acquire(100)
        assert bucket.degraded and _gauge(tenant) == 1.0
        assert adm.ok and adm.backend == "degraded"
        assert "degraded" in caplog.text
        # local fallback holds capacity / replicas = 250: 100 taken, 150 left
        assert bucket.try_acquire(150).ok and not bucket.try_acquire(10).ok
        bucket.settle(adm, 0)  # degraded admissions settle locally
        assert bucket.try_acquire(100).ok
        server.start()  # same port, empty state (no persistence)
        time.sleep(0.25)
        adm = bucket.try_acquire(1000)
        assert adm.ok and adm.backend == "redis"
        assert not bucket.degraded and _gauge(tenant) == 0.0
        bucket.close()
    finally:
        server.close()


async def test_async_path_degrades_too(tenant):
    server = RedisServer().start()
    try:
        bucket = RedisBucket(
            CFG,
            RedisBucketConfig(url=server.url, replicas=2, reconnect_interval_s=60, socket_timeout_s=0.2),
            tenant=tenant,
        )
        assert (await bucket.atry_acquire(10)).backend == "redis"
        server.stop()
        adm = await bucket.atry_acquire(10)
        assert adm.ok and adm.backend == "degraded" and bucket.degraded
        await bucket.aclose()
        bucket.close()
    finally:
        server.close()


@pytest.mark.slow
async def test_per_tenant_redis_buckets_share_one_connection_pool(redis_server):
    from router import HeuristicEstimator, RouterConfig, build_router

    r = build_router(
        RouterConfig(capacity_token_s=1e6, redis_url=redis_server.url, per_tenant=True),
        estimator=HeuristicEstimator(),
    )
    req = {"messages": [{"role": "user", "content": "hi"}], "task_type": "tool_call"}
    da, db = await r.aroute(req, tenant="pool-a"), await r.aroute(req, tenant="pool-b")
    assert da.admitted and db.admitted and da.admission.backend == db.admission.backend == "redis"
    a, b = r.bucket("pool-a"), r.bucket("pool-b")
    assert a is not b and a._conns is b._conns
    a.reset(), b.reset()
    await r.aclose()
