"""Concurrency load tests of the buckets: Redis admissions per second with N client processes,
and over-admission trials (atomic Lua bucket vs a naive read-modify-write peer).

Each client is a separate process with its own connection (like separate gateway replicas);
the processes are started once (:class:`ClientPool`) and start every phase together on a barrier.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier

import redis

from router.bucket import BucketConfig, LocalBucket
from router.redis_bucket import RedisBucket, RedisBucketConfig

_barrier: Barrier | None = None


def _init(barrier: Barrier) -> None:
    global _barrier
    _barrier = barrier


def _wait_barrier() -> None:
    assert _barrier is not None, "set by the ClientPool initializer"
    _barrier.wait(120)


@dataclass(frozen=True)
class TrialConfig:
    capacity: float = 50_000.0
    window_s: float = 1.0e6  # refill 0.05 token*s per second: the trial is (almost) one fill
    attempts: int = 2000  # per client
    max_cost: int = 100


def _throughput_task(args: tuple) -> tuple[int, float, bool]:
    url, tenant, seconds = args
    b = RedisBucket(BucketConfig(1e15, 1.0), RedisBucketConfig(url=url), tenant=tenant)
    b.try_acquire(1.0)  # connect and load the script before the clock starts
    _wait_barrier()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(50):
            b.try_acquire(1.0)
        n += 50
    elapsed = time.perf_counter() - t0
    degraded = b.degraded
    b.close()
    return n, elapsed, degraded


def _naive_acquire(client: redis.Redis, key: str, cfg: TrialConfig, cost: float) -> bool:
    """The peer: GET, decide in the client, SET (not atomic): what a quick port of an in-process
    limiter to Redis looks like."""
    raw = client.get(key)
    level = cfg.capacity if raw is None else float(raw)
    if level >= cost:
        client.set(key, repr(level - cost))
        return True
    return False


def _trial_task(args: tuple) -> tuple[float, float]:
    kind, url, tenant, cfg, seed = args
    rng = random.Random(seed)
    admitted = 0.0
    acquire: Callable[[float], bool]
    close: Callable[[], None]
    if kind == "lua":
        b = RedisBucket(BucketConfig(cfg.capacity, cfg.window_s), RedisBucketConfig(url=url), tenant=tenant)
        b.try_acquire(0.0)
        acquire, close = (lambda cost: b.try_acquire(cost).ok), b.close
    else:
        client = redis.Redis.from_url(url)
        client.ping()
        key = f"naive:{{{tenant}}}"
        acquire, close = (lambda cost: _naive_acquire(client, key, cfg, cost)), client.close
    _wait_barrier()
    t0 = time.perf_counter()
    for _ in range(cfg.attempts):
        cost = float(rng.randint(1, cfg.max_cost))
        if acquire(cost):
            admitted += cost
    elapsed = time.perf_counter() - t0
    close()
    return admitted, elapsed


class ClientPool:
    """``clients`` spawned processes that run one task each per phase, released together."""

    def __init__(self, clients: int = 8) -> None:
        ctx = mp.get_context("spawn")
        self.clients = clients
        self._pool = ctx.Pool(clients, initializer=_init, initargs=(ctx.Barrier(clients),))

    def run(self, fn, args: list) -> list:
        assert len(args) == self.clients
        return self._pool.map(fn, args, chunksize=1)

    def close(self) -> None:
        self._pool.close()
        self._pool.join()

    def __enter__(self) -> ClientPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def redis_admissions_per_s(pool: ClientPool, url: str, seconds: float = 2.0) -> dict:
    """Admissions per second summed over the pool's processes hammering one tenant's bucket."""
    res = pool.run(_throughput_task, [(url, "throughput", seconds)] * pool.clients)
    total = sum(r[0] for r in res)
    rate = sum(r[0] / r[1] for r in res)
    return {
        "clients": pool.clients,
        "seconds": seconds,
        "admissions": total,
        "admissions_per_s": rate,
        "any_degraded": any(r[2] for r in res),
    }


def over_admission_trials(
    pool: ClientPool, url: str, kind: str, trials: int, cfg: TrialConfig = TrialConfig()
) -> dict:
    """``trials`` fresh buckets hammered by every client; a trial over-admits when the admitted sum
    exceeds capacity plus the refill over its duration."""
    over, worst = 0, 0.0
    for t in range(trials):
        tenant = f"trial-{kind}-{t}-{time.time_ns()}"
        got = pool.run(_trial_task, [(kind, url, tenant, cfg, 1000 * t + k) for k in range(pool.clients)])
        elapsed = max(g[1] for g in got)
        excess = sum(g[0] for g in got) - (cfg.capacity + elapsed * cfg.capacity / cfg.window_s + 1e-6)
        over += excess > 0
        worst = max(worst, excess)
    return {
        "kind": kind,
        "trials": trials,
        "clients": pool.clients,
        "over_admitted_trials": over,
        "worst_excess_token_s": round(max(worst, 0.0), 3),
        "capacity": cfg.capacity,
    }


def local_over_admission_trials(trials: int, threads: int = 8, cfg: TrialConfig = TrialConfig()) -> dict:
    over = 0
    for t in range(trials):
        bucket = LocalBucket(BucketConfig(cfg.capacity, cfg.window_s))
        sums = [0.0] * threads
        t0 = time.monotonic()

        def work(k: int, t: int = t, bucket: LocalBucket = bucket, sums: list[float] = sums) -> None:
            rng = random.Random(1000 * t + k)
            for _ in range(cfg.attempts):
                c = float(rng.randint(1, cfg.max_cost))
                if bucket.try_acquire(c).ok:
                    sums[k] += c

        ths = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        [th.start() for th in ths]
        [th.join() for th in ths]
        allowed = cfg.capacity + (time.monotonic() - t0) * cfg.capacity / cfg.window_s + 1e-6
        over += sum(sums) > allowed
    return {"kind": "local", "trials": trials, "threads": threads, "over_admitted_trials": over}
