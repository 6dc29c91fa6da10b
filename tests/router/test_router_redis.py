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
from router.redis_fleet import key_part
from router.testing.redis_server import RedisServer

CFG = BucketConfig(capacity=1000.0, window_s=10_000.0)


@pytest.mark.slow
def test_replicas_share_one_bucket(redis_server, tenant):
    a = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    b = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    a.reset()
    assert a.try_acquire(700).ok
    assert not b.try_acquire(700).ok  # b sees a's admission
    assert b.try_acquire(300).ok
    a.reset(), a.close(), b.close()


@pytest.mark.slow
def test_keys_share_one_hash_tag(redis_server, tenant):
    """The tenant is one encoded part (byte length + hash), so a tenant holding ``:``/``{``/``}``
    can neither meet another tenant's keys nor move its own to another slot."""
    bucket = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    tags = {k[k.index("{") : k.index("}") + 1] for k in bucket.keys}
    assert tags == {"{" + key_part(tenant) + "}"}
    bucket.try_acquire(1)
    client = redis.Redis.from_url(redis_server.url)
    assert len({key_slot(k.encode()) for k in bucket.keys}) == 1  # one Redis Cluster slot
    assert all(client.exists(k) for k in bucket.keys)
    client.close(), bucket.reset(), bucket.close()


@pytest.mark.slow
def test_script_reloaded_after_noscript(redis_server, tenant):
    bucket = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=tenant)
    bucket.reset()
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
        fast = BucketConfig(capacity=1000.0, window_s=10.0)  # refills 100 token*s per second
        bucket = RedisBucket(
            fast,
            RedisBucketConfig(url=server.url, replicas=4, reconnect_interval_s=0.2, socket_timeout_s=0.2),
            tenant=tenant,
        )
        bucket.reset()
        assert bucket.try_acquire(900).ok and not bucket.degraded
        server.stop()
        with caplog.at_level(logging.WARNING, logger="tao.router.bucket"):
            adm = bucket.try_acquire(100)
        assert bucket.degraded and _gauge(tenant) == 1.0
        assert not adm.ok and adm.backend == "degraded"  # the local share starts empty, never full
        assert "degraded" in caplog.text
        # the share is capacity / replicas = 250, refilled at rate / replicas = 25 per second
        time.sleep(1.0)
        adm = bucket.try_acquire(20)
        assert adm.ok and adm.backend == "degraded"
        assert not bucket.try_acquire(20).ok  # ~25 refilled, 20 taken
        bucket.settle(adm, 0)  # degraded admissions settle locally
        assert bucket.try_acquire(20).ok
        server.start()  # same port, empty state (no persistence): a restarted Redis
        time.sleep(0.25)
        adm = bucket.try_acquire(50)
        assert not adm.ok and adm.backend == "redis"  # not full again: refilled from empty
        assert not bucket.degraded and _gauge(tenant) == 0.0 and bucket.restarts_seen == 1
        time.sleep(0.6)
        assert bucket.try_acquire(50).ok  # the shared bucket refills at its rate
        bucket.close()
    finally:
        server.close()


@pytest.mark.timeout(60)
def test_blip_charges_what_was_admitted_while_degraded(tenant):
    """Redis unreachable but not restarted: the shared bucket refilled meanwhile, so what the
    replica admitted on its share is charged to it when Redis answers again."""
    server = RedisServer().start()
    try:
        cfg = BucketConfig(capacity=1000.0, window_s=10.0)
        rc = RedisBucketConfig(url=server.url, replicas=1, reconnect_interval_s=0.2, socket_timeout_s=0.2)
        a, other = RedisBucket(cfg, rc, tenant=tenant), RedisBucket(cfg, rc, tenant=tenant)
        a.reset()
        assert a.try_acquire(1000).ok
        client = redis.Redis.from_url(server.url)
        client.client_pause(1500, all=True)  # Redis stalls: the replica degrades, Redis keeps its state
        adm = a.try_acquire(10)
        assert a.degraded and adm.backend == "degraded" and not adm.ok
        time.sleep(1.0)
        taken = sum(100.0 for _ in range(5) if a.try_acquire(100).ok)
        assert 0 < taken <= 200.0  # about 1.3 s of the rate (100/s) at most
        time.sleep(1.0)  # the pause ends; the shared bucket has refilled ~250 meanwhile
        adm = a.try_acquire(1.0)
        assert adm.backend == "redis" and not a.degraded
        level = float(client.hget(a.keys[0], "level"))  # pyright: ignore[reportArgumentType]
        assert level <= 3.0 * 100 - taken + 30  # the degraded admissions were charged to it
        assert a.restarts_seen == 0 and other.try_acquire(1.0).backend == "redis"
        client.close(), a.close(), other.close()
    finally:
        server.close()


@pytest.mark.timeout(60)
def test_restarted_redis_never_admits_above_the_bound(tenant):
    """Three replicas' buckets, Redis killed and restarted mid-run: everything admitted (Redis and
    degraded) stays within capacity + rate * elapsed."""
    server = RedisServer().start()
    try:
        cfg = BucketConfig(capacity=300.0, window_s=3.0)  # 100 token*s per second
        rc = RedisBucketConfig(url=server.url, replicas=3, reconnect_interval_s=0.2, socket_timeout_s=0.2)
        buckets = [RedisBucket(cfg, rc, tenant=tenant) for _ in range(3)]
        buckets[0].reset()
        admitted = 0.0
        t0 = time.monotonic()
        phase_end = [t0 + 1.5, t0 + 3.0, t0 + 5.0]  # Redis up, down, up again (restarted)
        for i, end in enumerate(phase_end):
            if i == 1:
                server.stop()
            if i == 2:
                server.start()
            while time.monotonic() < end:
                for b in buckets:
                    if b.try_acquire(10.0).ok:
                        admitted += 10.0
                time.sleep(0.005)
        elapsed = time.monotonic() - t0
        bound = cfg.capacity + cfg.rate * elapsed
        assert admitted <= bound, (admitted, bound)
        assert admitted >= 0.5 * bound  # and it did keep admitting
        assert sum(b.restarts_seen for b in buckets) >= 1
        for b in buckets:
            b.close()
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
        assert not adm.ok and adm.backend == "degraded" and bucket.degraded  # the share starts empty
        assert adm.wait_s == pytest.approx(10 / (CFG.rate / 2), rel=0.05)  # refilled at rate / replicas
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


@pytest.mark.timeout(60)
def test_replicas_discovered_through_the_heartbeat_set_the_share(tenant):
    """Configured replicas=1, three replicas alive: each one's degraded share is a third."""
    server = RedisServer().start()
    try:
        cfg = BucketConfig(capacity=900.0, window_s=9.0)
        rc = RedisBucketConfig(url=server.url, replicas=1, reconnect_interval_s=60, socket_timeout_s=0.2)
        buckets = [RedisBucket(cfg, rc, tenant=tenant) for _ in range(3)]  # 3 processes' connections
        buckets[0].reset()
        for b in buckets:
            b.try_acquire(1.0)  # each says it is alive
        buckets[0]._conns.fleet._next = 0.0  # let the first one read the count again now
        buckets[0].try_acquire(1.0)
        assert buckets[0].share() == 3
        server.stop()
        adm = buckets[0].try_acquire(1.0)
        assert adm.backend == "degraded" and buckets[0]._fallback.config.capacity == pytest.approx(300.0)
        for b in buckets:
            b.close()
    finally:
        server.close()


@pytest.mark.parametrize(
    ("name", "other"), [("acme:prod", "acme"), ("a}:state", "a"), ("{x}", "x"), ("租户", "租")]
)
def test_odd_tenant_names_keep_one_slot_and_own_keys(redis_server, name, other):
    odd = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=name)
    plain = RedisBucket(CFG, RedisBucketConfig(url=redis_server.url), tenant=other)
    assert len({key_slot(k.encode()) for k in odd.keys}) == 1
    assert not set(odd.keys) & set(plain.keys)
    odd.close(), plain.close()
