"""Circuit breakers shared by every replica through Redis (one per tool).

State of a tool's breaker, in one hash ``tao:brk:v1:{<part(tool)>}:state`` (the part is
:func:`tao.action.idempotency.part`: byte length + SHA-256 prefix, so any tool name is safe):

* ``fails`` — transient failures counted fleet-wide; the hash expires ``window_s`` after the first
  one, so failures further apart than the window never add up; any success resets them;
* ``until`` — open until this Redis time (ms); set when ``fails`` reaches ``failure_threshold``.

After ``until`` the breaker is half-open: one replica takes the probe slot
``tao:brk:v1:{<part(tool)>}:probe`` (``SET NX PX probe_ttl``, its owner token as value) and makes
the one probe call; the others are refused until the probe's outcome (success: the hash is
deleted, closed; failure: open again for ``reset_timeout_s``). A dead prober's slot frees after
``probe_ttl_s``; an open hash that nobody probes expires ``window_s`` after ``until`` (closed).
Times are Redis' own ``TIME`` (replicas with skewed clocks agree). Each decision is one Lua script
(EVALSHA) on one hash tag (one Redis Cluster slot).

Redis unreachable: the tool's per-process :class:`~tao.action.breaker.CircuitBreaker` decides
(it is fed every outcome all along, so it holds this replica's recent view), one warning log
``shared breaker store unreachable``, gauge ``tao_shared_state_degraded{piece="breaker"}`` = 1;
Redis is tried again every ``reconnect_interval_s`` and the first answer ends the fallback.
Nothing raises: a breaker never fails a call because its store is down.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import redis
import redis.asyncio as aredis
from redis.backoff import NoBackoff
from redis.retry import Retry

from router.metrics import SHARED_DEGRADED
from tao.action.breaker import BreakerBoard, BreakerConfig, CircuitBreaker, Permit
from tao.action.idempotency import part
from tao.action.idempotency_redis import once_more

log = logging.getLogger("tao.breaker")

PREFIX = "tao:brk:v1"

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""
# KEYS: state, probe. ARGV: token, probe_ttl_ms -> {0 refused | 1 closed | 2 probe, fails, retry_ms}
ALLOW = (
    _NOW
    + """
local s = redis.call('HMGET', KEYS[1], 'fails', 'until')
local fails = tonumber(s[1]) or 0
local untl = tonumber(s[2])
if untl == nil then return {1, fails, 0} end
if now < untl then return {0, fails, untl - now} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2, fails, 0} end
return {0, fails, math.max(1, redis.call('PTTL', KEYS[2]))}
"""
)
# KEYS: state, probe. ARGV: threshold, window_ms, reset_ms, probe (0|1), token -> {opened, fails}
FAILURE = (
    _NOW
    + """
local thr, win, reset = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'until', now + reset, 'fails', thr)
  redis.call('PEXPIRE', KEYS[1], reset + win)
  if redis.call('GET', KEYS[2]) == ARGV[5] then redis.call('DEL', KEYS[2]) end
  return {1, thr}
end
if redis.call('HEXISTS', KEYS[1], 'until') == 1 then
  return {0, tonumber(redis.call('HGET', KEYS[1], 'fails')) or 0}
end
local fails = redis.call('HINCRBY', KEYS[1], 'fails', 1)
if fails == 1 then redis.call('PEXPIRE', KEYS[1], win) end
if fails >= thr then
  redis.call('HSET', KEYS[1], 'until', now + reset)
  redis.call('PEXPIRE', KEYS[1], reset + win)
  return {1, fails}
end
return {0, fails}
"""
)
# KEYS: state, probe. Closes the breaker (a success, or the probe's success).
SUCCESS = """
redis.call('DEL', KEYS[1], KEYS[2])
return 1
"""
# KEYS: probe. ARGV: token. Frees the probe slot of a probe that was never made.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)


@dataclass(frozen=True)
class SharedBreakerConfig:
    prefix: str = PREFIX
    reconnect_interval_s: float = 1.0  # while degraded, Redis is tried again this often
    socket_timeout_s: float = 1.0


def breaker_keys(tool: str, prefix: str = PREFIX) -> tuple[str, str]:
    """The state hash and the probe slot of one tool's breaker (one hash tag)."""
    tag = "{" + part(tool) + "}"
    return f"{prefix}:{tag}:state", f"{prefix}:{tag}:probe"


@dataclass
class SharedBreaker:
    """One tool's shared breaker; the same async interface as :class:`CircuitBreaker`."""

    board: RedisBreakerBoard
    tool: str
    local: CircuitBreaker
    keys: tuple[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.keys = breaker_keys(self.tool, self.board.shared.prefix)

    async def aallow(self) -> Permit:
        b = self.board
        if b.use_redis():
            token = uuid.uuid4().hex
            try:
                r = await once_more(
                    b.client, lambda: b.allow_script(keys=list(self.keys), args=[token, b.probe_ttl_ms])
                )
            except _DOWN as exc:
                b.went_down(exc)
            else:
                b.came_back()
                code, fails, retry_ms = int(r[0]), int(r[1]), float(r[2])
                return Permit(code > 0, code == 2, retry_ms / 1000.0, fails, "redis", token)
        return await self.local.aallow()

    async def asuccess(self, permit: Permit) -> None:
        self.local.record_success()
        if permit.backend != "redis" or not (permit.probe or permit.fails > 0):
            return  # closed with no failures counted when it was let in: nothing to reset
        await self._write(self.board.success_script, list(self.keys), [])

    async def afailure(self, permit: Permit) -> None:
        if permit.backend != "redis":
            self.local.record_failure()
            return
        self.local.record_failure()  # the local view stays current for a Redis outage
        cfg = self.board.config
        args = [
            cfg.failure_threshold,
            max(1, int(cfg.window_s * 1000)),
            max(1, int(cfg.reset_timeout_s * 1000)),
            "1" if permit.probe else "0",
            permit.token,
        ]
        r = await self._write(self.board.failure_script, list(self.keys), args)
        if r is not None and int(r[0]) == 1:
            log.warning("breaker of %s opened for every replica (%s failures)", self.tool, r[1])

    async def arelease(self, permit: Permit) -> None:
        if permit.backend != "redis":
            self.local.release()
        elif permit.probe:
            await self._write(self.board.release_script, [self.keys[1]], [permit.token])

    async def _write(self, script, keys: list[str], args: list) -> list | None:
        try:
            out = await once_more(self.board.client, lambda: script(keys=keys, args=args))
        except _DOWN as exc:
            self.board.went_down(exc)
            return None
        self.board.came_back()
        return out

    @property
    def state(self):
        """This replica's local view (the shared state is in Redis)."""
        return self.local.state


class RedisBreakerBoard:
    """The breakers of a registry, shared through Redis; per-process fallback while it is down."""

    def __init__(
        self,
        client: aredis.Redis,
        config: BreakerConfig | None = None,
        shared: SharedBreakerConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.config = config or BreakerConfig()
        self.shared = shared or SharedBreakerConfig()
        self.local = BreakerBoard(self.config, clock)
        self.probe_ttl_ms = max(1, int(self.config.probe_ttl_s * 1000))
        self.allow_script = client.register_script(ALLOW)
        self.failure_script = client.register_script(FAILURE)
        self.success_script = client.register_script(SUCCESS)
        self.release_script = client.register_script(RELEASE)
        self.breakers: dict[str, SharedBreaker] = {}
        self.degraded = False
        self._retry_at = 0.0
        SHARED_DEGRADED.labels("breaker").set(0)

    @classmethod
    def from_url(
        cls, url: str, config: BreakerConfig | None = None, shared: SharedBreakerConfig | None = None
    ) -> RedisBreakerBoard:
        sc = shared or SharedBreakerConfig()
        from router.redis_client import async_client

        client = async_client(
            url,
            socket_timeout=sc.socket_timeout_s,
            socket_connect_timeout=sc.socket_timeout_s,
            retry=Retry(NoBackoff(), 0),
        )
        return cls(client, config, sc)

    def get(self, tool: str) -> SharedBreaker:
        b = self.breakers.get(tool)
        if b is None:
            b = self.breakers[tool] = SharedBreaker(self, tool, self.local.get(tool))
        return b

    def use_redis(self) -> bool:
        return not self.degraded or time.monotonic() >= self._retry_at

    def went_down(self, exc: BaseException) -> None:
        self._retry_at = time.monotonic() + self.shared.reconnect_interval_s
        if not self.degraded:
            self.degraded = True
            SHARED_DEGRADED.labels("breaker").set(1)
            log.warning(
                "shared breaker store unreachable (%s); each replica's own breakers decide until it answers",
                type(exc).__name__,
            )

    def came_back(self) -> None:
        if self.degraded:
            self.degraded = False
            SHARED_DEGRADED.labels("breaker").set(0)
            log.warning("shared breaker store reachable again; breakers shared across replicas")

    async def aclose(self) -> None:
        await self.client.aclose()
