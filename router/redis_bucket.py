"""Token-second bucket shared by several replicas through Redis.

One atomic Lua script per call (EVALSHA; reloaded on NOSCRIPT). Keys share the hash tag
``{tenant}`` so a Redis Cluster keeps them on one slot. Time comes from Redis itself
(``TIME`` inside the script), so replicas with skewed clocks still agree on the refill.

If Redis is unreachable the bucket degrades to a local bucket of ``capacity / replicas``
(``degraded`` property, ``tao_router_bucket_degraded`` gauge, one warning log) and tries
Redis again every ``reconnect_interval_s``; the first successful call ends degraded mode.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import cast

import redis
import redis.asyncio as aredis
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError
from redis.retry import Retry

from router.bucket import Admission, BucketConfig, LocalBucket, _check_cost
from router.metrics import BUCKET_DEGRADED

log = logging.getLogger("tao.router.bucket")

# KEYS[1] state hash {level, ts}; KEYS[2] stats hash {admitted, admitted_n, rejected_n}
# ARGV: op ('a' acquire | 's' settle), capacity, rate, amount, ttl_ms
LUA = """
local cap = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local amt = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local s = redis.call('HMGET', KEYS[1], 'level', 'ts')
local level = tonumber(s[1])
local ts = tonumber(s[2])
if level == nil or ts == nil then level = cap; ts = now end
if now > ts then level = math.min(cap, level + (now - ts) * rate); ts = now end
local ok = 1
local wait = 0
if ARGV[1] == 'a' then
  if amt > cap then
    ok = 0; wait = -1
    redis.call('HINCRBY', KEYS[2], 'rejected_n', 1)
  elseif level >= amt then
    level = level - amt
    redis.call('HINCRBYFLOAT', KEYS[2], 'admitted', amt)
    redis.call('HINCRBY', KEYS[2], 'admitted_n', 1)
  else
    ok = 0; wait = (amt - level) / rate
    redis.call('HINCRBY', KEYS[2], 'rejected_n', 1)
  end
else
  level = math.min(cap, level + amt)
end
redis.call('HSET', KEYS[1], 'level', string.format('%.17g', level), 'ts', string.format('%.17g', ts))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {ok, string.format('%.17g', wait), string.format('%.17g', level)}
"""

_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)


@dataclass(frozen=True)
class RedisBucketConfig:
    """Connection and fallback settings of a Redis-backed bucket."""

    url: str = "redis://127.0.0.1:6379/0"
    prefix: str = "tao:tsb"
    replicas: int = 1  # fallback capacity = capacity / replicas while Redis is down
    reconnect_interval_s: float = 1.0
    socket_timeout_s: float = 1.0  # a slower reply counts as an outage (too low flaps under CPU load)
    max_connections: int = 64  # per client; callers beyond it wait up to pool_wait_s for a connection
    pool_wait_s: float = 5.0

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError("replicas must be >= 1")


def _client_kwargs(cfg: RedisBucketConfig) -> dict:
    return dict(
        socket_timeout=cfg.socket_timeout_s,
        socket_connect_timeout=cfg.socket_timeout_s,
        retry=Retry(NoBackoff(), 0),
        decode_responses=False,
    )


def _sync_client(cfg: RedisBucketConfig) -> redis.Redis:
    # Blocking pool: a burst of callers waits for a connection instead of failing (which would
    # look like an outage and wrongly switch to degraded mode).
    pool = redis.BlockingConnectionPool.from_url(
        cfg.url, max_connections=cfg.max_connections, timeout=cfg.pool_wait_s, **_client_kwargs(cfg)
    )
    return redis.Redis(connection_pool=pool)


def _async_client(cfg: RedisBucketConfig) -> aredis.Redis:
    pool = aredis.BlockingConnectionPool.from_url(
        cfg.url, max_connections=cfg.max_connections, timeout=cfg.pool_wait_s, **_client_kwargs(cfg)
    )
    return aredis.Redis.from_pool(pool)  # the client owns (and closes) the pool


class RedisConnections:
    """One sync client and one (lazy, per event loop) asyncio client, shared by many buckets —
    e.g. every tenant's bucket of one router — so tenants do not each open a pool."""

    def __init__(self, config: RedisBucketConfig) -> None:
        self.config = config
        self.sync = _sync_client(config)
        self._aio: aredis.Redis | None = None

    @property
    def aio(self) -> aredis.Redis:
        if self._aio is None:
            self._aio = _async_client(self.config)
        return self._aio

    def close(self) -> None:
        self.sync.close()
        self.sync.connection_pool.disconnect()

    async def aclose(self) -> None:
        if self._aio is not None:
            await self._aio.aclose()
            self._aio = None


class RedisBucket:
    """Same semantics as :class:`LocalBucket`, state kept in Redis (sync + asyncio clients)."""

    def __init__(
        self,
        config: BucketConfig,
        redis_config: RedisBucketConfig | None = None,
        *,
        tenant: str = "default",
        connections: RedisConnections | None = None,
    ) -> None:
        self.config = config
        self.redis_config = rc = redis_config or RedisBucketConfig()
        self.tenant = tenant
        tag = "{" + tenant + "}"
        self.keys = (f"{rc.prefix}:{tag}:state", f"{rc.prefix}:{tag}:stats")
        self._ttl_ms = str(int(max(config.window_s * 4, 60.0) * 1000))
        self._cap, self._rate = repr(config.capacity), repr(config.rate)
        self._owns = connections is None  # shared connections are closed by their owner
        self._conns = connections or RedisConnections(rc)
        self._client = self._conns.sync
        self._sha: str | None = None  # loaded on first use and again after NOSCRIPT
        self._fallback = LocalBucket(
            BucketConfig(config.capacity / rc.replicas, config.window_s), tenant=tenant, backend="degraded"
        )
        self._state_lock = threading.Lock()
        self._degraded = False
        self._retry_at = 0.0
        self.script_loads = 0
        BUCKET_DEGRADED.labels(tenant).set(0)

    # ----- degraded-mode bookkeeping -------------------------------------------------------
    @property
    def degraded(self) -> bool:
        """True while Redis is unreachable and the local fallback bucket is in use."""
        return self._degraded

    def _use_redis(self) -> bool:
        return not self._degraded or time.monotonic() >= self._retry_at

    def _went_down(self, exc: BaseException) -> None:
        with self._state_lock:
            self._retry_at = time.monotonic() + self.redis_config.reconnect_interval_s
            if not self._degraded:
                self._degraded = True
                BUCKET_DEGRADED.labels(self.tenant).set(1)
                log.warning(
                    "redis bucket %s unreachable (%s); degraded to local bucket of %.1f token*s",
                    self.tenant,
                    type(exc).__name__,
                    self._fallback.config.capacity,
                )

    def _came_back(self) -> None:
        if self._degraded:
            with self._state_lock:
                if self._degraded:
                    self._degraded = False
                    BUCKET_DEGRADED.labels(self.tenant).set(0)
                    log.warning("redis bucket %s reachable again; leaving degraded mode", self.tenant)

    # ----- script calls --------------------------------------------------------------------
    def _args(self, op: str, amount: float) -> tuple:
        return (*self.keys, op, self._cap, self._rate, repr(amount), self._ttl_ms)

    def _call(self, op: str, amount: float) -> list:
        args = self._args(op, amount)
        if self._sha is not None:
            try:
                return self._client.evalsha(self._sha, 2, *args)
            except NoScriptError:
                pass
        self._sha = self._client.script_load(LUA)
        self.script_loads += 1
        return self._client.evalsha(self._sha, 2, *args)

    async def _acall(self, op: str, amount: float) -> list:
        client = self._conns.aio
        args = self._args(op, amount)
        if self._sha is not None:
            try:
                return await client.evalsha(self._sha, 2, *args)
            except NoScriptError:
                pass
        self._sha = await client.script_load(LUA)
        self.script_loads += 1
        return await client.evalsha(self._sha, 2, *args)

    def _admission(self, reply: list, cost: float) -> Admission:
        ok, wait = int(reply[0]) == 1, float(reply[1])
        return Admission(ok, math.inf if wait < 0 else wait, cost, "redis", self.tenant)

    # ----- public API ----------------------------------------------------------------------
    def try_acquire(self, cost: float) -> Admission:
        cost = _check_cost(cost)
        if self._use_redis():
            try:
                reply = self._call("a", cost)
            except _DOWN as exc:
                self._went_down(exc)
            else:
                self._came_back()
                return self._admission(reply, cost)
        return self._fallback.try_acquire(cost)

    def settle(self, admission: Admission, actual_cost: float) -> None:
        if not admission.ok:
            return
        actual_cost = _check_cost(actual_cost)
        if admission.backend == "degraded":
            self._fallback.settle(admission, actual_cost)
            return
        if self._use_redis():
            try:
                self._call("s", admission.cost - actual_cost)
                self._came_back()
            except _DOWN as exc:  # the difference is lost; Redis state lives on without it
                self._went_down(exc)

    async def atry_acquire(self, cost: float) -> Admission:
        cost = _check_cost(cost)
        if self._use_redis():
            try:
                reply = await self._acall("a", cost)
            except _DOWN as exc:
                self._went_down(exc)
            else:
                self._came_back()
                return self._admission(reply, cost)
        return self._fallback.try_acquire(cost)

    async def asettle(self, admission: Admission, actual_cost: float) -> None:
        if not admission.ok:
            return
        actual_cost = _check_cost(actual_cost)
        if admission.backend == "degraded":
            self._fallback.settle(admission, actual_cost)
            return
        if self._use_redis():
            try:
                await self._acall("s", admission.cost - actual_cost)
                self._came_back()
            except _DOWN as exc:
                self._went_down(exc)

    def stats(self) -> dict[str, float]:
        """Admitted cost/count and rejections recorded by the script (raises if Redis is down)."""
        # the clients are made without decode_responses: keys and values are bytes
        raw = cast("dict[bytes, bytes]", self._client.hgetall(self.keys[1]))
        return {k.decode(): float(v) for k, v in raw.items()}

    def reset(self) -> None:
        """Delete this bucket's keys (tests and benchmarks)."""
        self._client.delete(*self.keys)

    def close(self) -> None:
        if self._owns:
            self._conns.close()

    async def aclose(self) -> None:
        if self._owns:
            await self._conns.aclose()
