"""The Redis backend of :class:`tao.action.idempotency.IdempotencyBackend`, shared by replicas.

Locks are ``SET key owner NX PX ttl``; refresh and release are Lua scripts that act only when the
value is still the caller's owner token (a replica whose lock expired can never extend or delete
the next owner's lock). Records are ``SET key value PX ttl`` (``NX`` for :meth:`put_new`). Any
connection error or timeout raises :class:`~tao.action.idempotency.BackendUnavailable`: callers
then refuse to run a side effect rather than run it without the shared record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis
import redis.asyncio as aredis
from redis.backoff import NoBackoff
from redis.retry import Retry

from tao.action.idempotency import BackendUnavailable

T = TypeVar("T")

_REFRESH = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)


async def once_more(client: aredis.Redis, call: Callable[[], Awaitable[T]]) -> T:
    """``call()``; after a restarted Redis every pooled connection is dead and the first command
    on each fails with ``ConnectionError`` (redis-py's asyncio client does not retry it), so:
    drop the idle pooled connections and try once more on a fresh one. A second failure (Redis
    really down) propagates. Found by the chaos run: a reply written just after a Redis restart
    was silently not recorded."""
    try:
        return await call()
    except redis.ConnectionError:
        with contextlib.suppress(Exception):
            await client.connection_pool.disconnect(inuse_connections=False)
        return await call()


class RedisIdempotency:
    name = "redis"

    def __init__(self, client: aredis.Redis) -> None:
        self.client = client
        self._refresh = client.register_script(_REFRESH)
        self._release = client.register_script(_RELEASE)

    @classmethod
    def from_url(cls, url: str, *, socket_timeout_s: float = 2.0) -> RedisIdempotency:
        from router.redis_client import async_client

        client = async_client(
            url,
            socket_timeout=socket_timeout_s,
            socket_connect_timeout=socket_timeout_s,
            retry=Retry(NoBackoff(), 1),
        )
        return cls(client)

    async def acquire(self, key: str, owner: str, ttl_ms: int) -> bool:
        try:
            return bool(
                await once_more(self.client, lambda: self.client.set(key, owner, nx=True, px=max(1, ttl_ms)))
            )
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def refresh(self, key: str, owner: str, ttl_ms: int) -> bool:
        try:
            return bool(
                await once_more(self.client, lambda: self._refresh(keys=[key], args=[owner, max(1, ttl_ms)]))
            )
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def release(self, key: str, owner: str) -> None:
        try:
            await once_more(self.client, lambda: self._release(keys=[key], args=[owner]))
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def lock_ttl_ms(self, key: str) -> int:
        try:
            return max(0, int(await once_more(self.client, lambda: self.client.pttl(key))))
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def get(self, key: str) -> bytes | None:
        try:
            raw = await once_more(self.client, lambda: self.client.get(key))
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc
        return raw.encode() if isinstance(raw, str) else raw

    async def put(self, key: str, value: bytes, ttl_ms: int) -> None:
        try:
            await once_more(self.client, lambda: self.client.set(key, value, px=max(1, ttl_ms)))
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def put_new(self, key: str, value: bytes, ttl_ms: int) -> bool:
        try:
            return bool(
                await once_more(self.client, lambda: self.client.set(key, value, nx=True, px=max(1, ttl_ms)))
            )
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def delete(self, key: str) -> None:
        try:
            await once_more(self.client, lambda: self.client.delete(key))
        except _DOWN as exc:
            raise BackendUnavailable(f"redis: {type(exc).__name__}") from exc

    async def aclose(self) -> None:
        await self.client.aclose()
