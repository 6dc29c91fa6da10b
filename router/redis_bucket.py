"""Token-second bucket shared by several replicas through Redis.

One atomic Lua script per call (EVALSHA; reloaded on NOSCRIPT). Keys share the hash tag
``{<tenant as byte length.sha256 prefix>}`` so a Redis Cluster keeps them on one slot. Time comes from Redis itself
(``TIME`` inside the script), so replicas with skewed clocks still agree on the refill.

Faults (the fleet never admits more than the bound, ``capacity + rate * elapsed``):

* **Redis unreachable**: the bucket degrades to a local bucket holding this replica's *share*,
  ``capacity / replicas`` (``replicas`` = the larger of the configured count and the replicas
  seen alive through the heartbeat set ``{prefix}:replicas``, see :mod:`router.redis_fleet`), and
  that local bucket starts **empty**: the replicas together refill at the bucket's own rate
  (``degraded`` property, ``tao_router_bucket_degraded`` gauge, one warning log). Redis is tried
  again every ``reconnect_interval_s``; the first successful call ends degraded mode and charges
  what this replica admitted while degraded to the shared bucket (its level may go negative:
  debt, repaid at the rate).
* **Redis restarted** (or flushed): each bucket has an epoch key ``{prefix}:{<tenant part>}:epoch``, a
  random id written with the bucket. A missing epoch means Redis lost the bucket: the script
  writes a new epoch and the bucket starts **empty** (never full again) when this replica had
  seen the bucket before or any bucket of its connections saw a restart; a bucket this replica
  never saw (a new tenant) starts full unless ``cold_start_full=False``. An epoch that differs
  from the one this replica knew means another replica already re-created it (logged,
  ``tao_router_bucket_redis_restarts_total``). State that merely expired while idle (the epoch
  still there) starts full, as before.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import cast

import redis
import redis.asyncio as aredis
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError
from redis.retry import Retry

from router.bucket import Admission, BucketConfig, LocalBucket, _check_cost
from router.metrics import BUCKET_DEGRADED, BUCKET_RESTARTS
from router.redis_client import async_blocking_client, sync_blocking_client
from router.redis_fleet import Fleet, FleetConfig, key_part

log = logging.getLogger("tao.router.bucket")

# KEYS[1] state hash {level, ts}; KEYS[2] stats hash {admitted, admitted_n, rejected_n};
# KEYS[3] epoch (a random id, lives with the bucket; missing = Redis lost the bucket)
# ARGV: op ('a' acquire | 's' settle), capacity, rate, amount, ttl_ms, new_epoch, fresh_level,
#       debt (admitted while degraded, charged once), epoch_ttl_ms
# -> {ok, wait, level, epoch, fresh}
LUA = """
local cap = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local amt = tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local epoch = redis.call('GET', KEYS[3])
local fresh = 0
local level, ts
if not epoch then
  epoch = ARGV[6]
  fresh = 1
  level = tonumber(ARGV[7]); ts = now
else
  local s = redis.call('HMGET', KEYS[1], 'level', 'ts')
  level = tonumber(s[1])
  ts = tonumber(s[2])
  if level == nil or ts == nil then level = cap; ts = now end
end
redis.call('SET', KEYS[3], epoch, 'PX', ARGV[9])
if now > ts then level = math.min(cap, level + (now - ts) * rate); ts = now end
if fresh == 0 then level = level - tonumber(ARGV[8]) end
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
return {ok, string.format('%.17g', wait), string.format('%.17g', level), epoch, fresh}
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
    cold_start_full: bool = True  # a bucket this replica never saw, with no epoch in Redis, starts full
    epoch_ttl_s: float = 7 * 24 * 3600.0  # the epoch key outlives idle state (refreshed on every call)
    fleet: FleetConfig = field(default_factory=FleetConfig)  # heartbeat: replicas seen alive

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
    # look like an outage and wrongly switch to degraded mode). A cluster URL: per-node pools.
    return sync_blocking_client(
        cfg.url, max_connections=cfg.max_connections, pool_wait_s=cfg.pool_wait_s, **_client_kwargs(cfg)
    )


def _async_client(cfg: RedisBucketConfig) -> aredis.Redis:
    return async_blocking_client(
        cfg.url, max_connections=cfg.max_connections, pool_wait_s=cfg.pool_wait_s, **_client_kwargs(cfg)
    )


class RedisConnections:
    """One sync client and one (lazy, per event loop) asyncio client, shared by many buckets —
    e.g. every tenant's bucket of one router — so tenants do not each open a pool."""

    def __init__(self, config: RedisBucketConfig) -> None:
        self.config = config
        self.sync = _sync_client(config)
        self._aio: aredis.Redis | None = None
        self.fleet = Fleet(config.prefix, config.fleet)
        self.restart_seen = False  # a bucket of these connections saw Redis lose its state

    @property
    def aio(self) -> aredis.Redis:
        if self._aio is None:
            self._aio = _async_client(self.config)
        return self._aio

    def close(self) -> None:
        self.sync.close()
        pool = getattr(self.sync, "connection_pool", None)  # a cluster client closes its node pools itself
        if pool is not None:
            pool.disconnect()

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
        tag = "{" + key_part(tenant) + "}"  # length + hash: any printable tenant, one cluster slot
        self.keys = (f"{rc.prefix}:{tag}:state", f"{rc.prefix}:{tag}:stats", f"{rc.prefix}:{tag}:epoch")
        self._ttl_ms = str(int(max(config.window_s * 4, 60.0) * 1000))
        self._epoch_ttl_ms = str(max(int(rc.epoch_ttl_s * 1000), int(self._ttl_ms)))
        self._cap, self._rate = repr(config.capacity), repr(config.rate)
        self._owns = connections is None  # shared connections are closed by their owner
        self._conns = connections or RedisConnections(rc)
        self._client = self._conns.sync
        self._sha: str | None = None  # loaded on first use and again after NOSCRIPT
        self._fallback = self._share_bucket()
        self._state_lock = threading.Lock()
        self._degraded = False
        self._retry_at = 0.0
        self._epoch: bytes | None = None  # the epoch this replica last saw (None: never)
        self._debt = 0.0  # admitted while degraded, not yet charged to the shared bucket
        self.script_loads = 0
        self.restarts_seen = 0
        BUCKET_DEGRADED.labels(tenant).set(0)

    # ----- degraded-mode bookkeeping -------------------------------------------------------
    @property
    def degraded(self) -> bool:
        """True while Redis is unreachable and the local fallback bucket is in use."""
        return self._degraded

    def _use_redis(self) -> bool:
        return not self._degraded or time.monotonic() >= self._retry_at

    def share(self) -> int:
        """How many replicas the bound is split over while Redis is down."""
        return max(self.redis_config.replicas, self._conns.fleet.seen)

    def _share_bucket(self) -> LocalBucket:
        """This replica's share of the bound, empty: the replicas refill at the bucket's rate."""
        cfg = BucketConfig(self.config.capacity / self.share(), self.config.window_s)
        return LocalBucket(cfg, tenant=self.tenant, backend="degraded", initial=0.0)

    def _went_down(self, exc: BaseException) -> None:
        with self._state_lock:
            self._retry_at = time.monotonic() + self.redis_config.reconnect_interval_s
            if not self._degraded:
                self._fallback = self._share_bucket()
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
    def _args(self, op: str, amount: float, debt: float) -> tuple:
        seen_before = self._epoch is not None or self._conns.restart_seen
        fresh = self._cap if self.redis_config.cold_start_full and not seen_before else "0"
        return (
            *self.keys,
            op,
            self._cap,
            self._rate,
            repr(amount),
            self._ttl_ms,
            uuid.uuid4().hex,
            fresh,
            repr(debt),
            self._epoch_ttl_ms,
        )

    def _take_debt(self) -> float:
        with self._state_lock:
            return self._debt

    def _observe(self, reply: list, debt: float) -> None:
        """Epoch bookkeeping after a reply: restarts are logged, a charged debt is cleared."""
        epoch, fresh = reply[3], int(reply[4]) == 1
        with self._state_lock:
            self._debt -= debt if not fresh else self._debt  # a fresh (empty) bucket forgets the debt
            known, self._epoch = self._epoch, epoch
        if known is not None and known != epoch:
            self.restarts_seen += 1
            self._conns.restart_seen = True
            BUCKET_RESTARTS.labels(self.tenant).inc()
            log.warning(
                "redis bucket %s lost its state (epoch changed: Redis restarted or flushed); "
                "refilled from %s",
                self.tenant,
                "empty" if fresh or float(reply[2]) <= 0 else "the level another replica re-created",
            )

    def _call(self, op: str, amount: float) -> list:
        debt = self._take_debt()
        args = self._args(op, amount, debt)
        reply: list | None = None
        if self._sha is not None:
            try:
                reply = cast("list", self._client.evalsha(self._sha, 3, *args))
            except NoScriptError:
                pass
        if reply is None:
            self._sha = self._client.script_load(LUA)
            self.script_loads += 1
            reply = cast("list", self._client.evalsha(self._sha, 3, *args))
        self._observe(reply, debt)
        self._conns.fleet.beat(self._client)
        return reply

    async def _acall(self, op: str, amount: float) -> list:
        client = self._conns.aio
        debt = self._take_debt()
        args = self._args(op, amount, debt)
        reply: list | None = None
        if self._sha is not None:
            try:
                reply = cast("list", await client.evalsha(self._sha, 3, *args))
            except NoScriptError:
                pass
        if reply is None:
            self._sha = await client.script_load(LUA)
            self.script_loads += 1
            reply = cast("list", await client.evalsha(self._sha, 3, *args))
        self._observe(reply, debt)
        await self._conns.fleet.abeat(client)
        return reply

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
        return self._degraded_acquire(cost)

    def settle(self, admission: Admission, actual_cost: float) -> None:
        if not admission.ok:
            return
        actual_cost = _check_cost(actual_cost)
        if admission.backend == "degraded":
            self._degraded_settle(admission, actual_cost)
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
        return self._degraded_acquire(cost)

    async def asettle(self, admission: Admission, actual_cost: float) -> None:
        if not admission.ok:
            return
        actual_cost = _check_cost(actual_cost)
        if admission.backend == "degraded":
            self._degraded_settle(admission, actual_cost)
            return
        if self._use_redis():
            try:
                await self._acall("s", admission.cost - actual_cost)
                self._came_back()
            except _DOWN as exc:
                self._went_down(exc)

    def _degraded_acquire(self, cost: float) -> Admission:
        adm = self._fallback.try_acquire(cost)
        if adm.ok:
            with self._state_lock:
                self._debt += cost
        return adm

    def _degraded_settle(self, admission: Admission, actual_cost: float) -> None:
        self._fallback.settle(admission, actual_cost)
        with self._state_lock:
            self._debt += actual_cost - admission.cost

    def stats(self) -> dict[str, float]:
        """Admitted cost/count and rejections recorded by the script (raises if Redis is down)."""
        # the clients are made without decode_responses: keys and values are bytes
        raw = cast("dict[bytes, bytes]", self._client.hgetall(self.keys[1]))
        return {k.decode(): float(v) for k, v in raw.items()}

    def reset(self) -> None:
        """Start this bucket over, full, in a new epoch (tests and benchmarks)."""
        epoch = uuid.uuid4().hex.encode()
        pipe = self._client.pipeline()
        for key in self.keys:  # one key per command: a cluster pipeline takes no multi-key DEL
            pipe.delete(key)
        pipe.set(self.keys[2], epoch, px=int(self._epoch_ttl_ms))
        pipe.execute()
        with self._state_lock:
            self._epoch, self._debt = epoch, 0.0

    def close(self) -> None:
        if self._owns:
            self._conns.close()

    async def aclose(self) -> None:
        if self._owns:
            await self._conns.aclose()
