"""Token-second bucket semantics, identical for the in-process and the Redis backend."""

from __future__ import annotations

import asyncio
import math
import threading

import pytest

from router.bucket import BucketConfig, LocalBucket
from router.redis_bucket import RedisBucket, RedisBucketConfig

SLOW = BucketConfig(capacity=1000.0, window_s=10_000.0)  # refills 0.1 token*s per second


@pytest.fixture(params=["local", "redis"])
def make_bucket(request, tenant):
    made = []

    def make(cfg: BucketConfig = SLOW, **kw):
        if request.param == "local":
            b = LocalBucket(cfg, **kw)
        else:
            server = request.getfixturevalue("redis_server")
            b = RedisBucket(cfg, RedisBucketConfig(url=server.url), tenant=kw.get("tenant", tenant))
            b.reset()
        made.append(b)
        return b

    yield make
    for b in made:
        if isinstance(b, RedisBucket):
            b.reset()
            b.close()


def test_starts_full_and_rejects_with_computed_wait(make_bucket):
    b = make_bucket()
    assert b.try_acquire(600).ok
    assert b.try_acquire(400).ok
    adm = b.try_acquire(50)
    assert not adm.ok
    assert adm.wait_s == pytest.approx(50 / SLOW.rate, rel=0.05)  # 500 s at 0.1/s


def test_cost_above_capacity_never_fits(make_bucket):
    adm = make_bucket().try_acquire(1001)
    assert not adm.ok and adm.too_large and math.isinf(adm.wait_s)


def test_settle_refunds_an_over_estimate(make_bucket):
    b = make_bucket()
    adm = b.try_acquire(1000)
    assert adm.ok and not b.try_acquire(300).ok
    b.settle(adm, 600)  # actual cost 600: 400 refunded
    assert b.try_acquire(300).ok
    assert not b.try_acquire(300).ok


def test_settle_charges_an_under_estimate_as_debt(make_bucket):
    b = make_bucket()
    adm = b.try_acquire(100)
    b.settle(adm, 1500)  # 1400 more than admitted: level 900 - 1400 = -500
    nxt = b.try_acquire(10)
    assert not nxt.ok
    assert nxt.wait_s == pytest.approx(510 / SLOW.rate, rel=0.05)


def test_refill_is_continuous(make_bucket):
    b = make_bucket(BucketConfig(capacity=100.0, window_s=1.0))  # 100 token*s per second
    assert b.try_acquire(100).ok
    adm = b.try_acquire(20)
    assert not adm.ok and 0.05 < adm.wait_s <= 0.2
    import time

    time.sleep(adm.wait_s + 0.05)
    assert b.try_acquire(20).ok


def test_rejected_admission_settle_is_a_no_op(make_bucket):
    b = make_bucket()
    assert b.try_acquire(1000).ok
    rejected = b.try_acquire(10)
    b.settle(rejected, 0)
    assert not b.try_acquire(10).ok


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_bad_costs_raise_value_error(make_bucket, bad):
    with pytest.raises(ValueError):
        make_bucket().try_acquire(bad)


def test_no_over_admission_under_threads(make_bucket):
    b = make_bucket()
    admitted: list[float] = []
    lock = threading.Lock()

    def worker(k: int) -> None:
        for i in range(60):
            cost = 1.0 + (i * 7 + k) % 13
            if b.try_acquire(cost).ok:
                with lock:
                    admitted.append(cost)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    total = sum(admitted)
    # capacity plus at most a few seconds of refill at 0.1/s
    assert 1000 - 13 <= total <= 1000 + 5
    if isinstance(b, RedisBucket):
        assert b.stats()["admitted"] == pytest.approx(total)


async def test_no_over_admission_under_asyncio_tasks(make_bucket):
    b = make_bucket()

    async def one(i: int) -> float:
        cost = 3.0 + i % 5
        return cost if (await b.atry_acquire(cost)).ok else 0.0

    try:
        got = await asyncio.gather(*(one(i) for i in range(400)))
    finally:
        if isinstance(b, RedisBucket):
            await b.aclose()
    assert not getattr(b, "degraded", False)
    assert 1000 - 7 <= sum(got) <= 1000 + 5


def test_local_bucket_exact_with_frozen_clock():
    now = [0.0]
    b = LocalBucket(BucketConfig(100.0, 10.0), clock=lambda: now[0])
    assert [b.try_acquire(30).ok for _ in range(4)] == [True, True, True, False]
    now[0] = 2.0  # +20
    assert b.available() == pytest.approx(30.0)
    assert b.try_acquire(30).ok and not b.try_acquire(0.5).ok
