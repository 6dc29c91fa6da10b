"""How many replicas share a Redis bucket: a heartbeat set ``{prefix}:replicas``.

Each process (one :class:`router.redis_bucket.RedisConnections`) adds its random id to a sorted
set scored by Redis time, at most every ``interval_s``, drops members older than ``ttl_s`` and
reads the count: the replicas alive. A bucket that loses Redis keeps the last count it saw and
takes ``capacity / max(configured, seen)`` as its share. Nothing here raises on a Redis outage
(the bucket's own call notices it).
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from dataclasses import dataclass

import redis
import redis.asyncio as aredis


def key_part(value: str) -> str:
    """One part of a Redis key, encoded unambiguously: ``{byte length}.{sha256 prefix}`` (tenant
    and model names may hold ``:``, ``{`` or ``}``; the encoded part holds none of them, so it is
    also a safe Redis Cluster hash tag)."""
    raw = value.encode()
    return f"{len(raw)}.{hashlib.sha256(raw).hexdigest()[:32]}"


# KEYS[1] the set; ARGV: member, ttl_ms -> the members alive
HEARTBEAT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
"""

_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)


@dataclass(frozen=True)
class FleetConfig:
    interval_s: float = 2.0  # how often a replica says it is alive
    ttl_s: float = 10.0  # a replica silent for this long is no longer counted


class Fleet:
    """This replica's heartbeat and the count of replicas seen alive (>= 1)."""

    def __init__(self, prefix: str, config: FleetConfig | None = None) -> None:
        self.config = config or FleetConfig()
        self.key = f"{prefix}:replicas"
        self.member = uuid.uuid4().hex
        self.seen = 1
        self._next = 0.0
        self._lock = threading.Lock()

    def _due(self) -> bool:
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                return False
            self._next = now + self.config.interval_s
            return True

    def _args(self) -> list:
        return [self.member, max(1, int(self.config.ttl_s * 1000))]

    def beat(self, client: redis.Redis) -> None:
        if not self._due():
            return
        try:
            n = client.eval(HEARTBEAT, 1, self.key, *self._args())
        except _DOWN:
            return
        self.seen = max(1, int(n))  # pyright: ignore[reportArgumentType]

    async def abeat(self, client: aredis.Redis) -> None:
        if not self._due():
            return
        try:
            n = await client.eval(HEARTBEAT, 1, self.key, *self._args())  # pyright: ignore[reportGeneralTypeIssues]
        except _DOWN:
            return
        self.seen = max(1, int(n))
