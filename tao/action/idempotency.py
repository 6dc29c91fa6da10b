"""Idempotency keys and the shared records that stop a side effect from happening twice.

A key is derived from ``tenant + thought_id + step_id + tool + the arguments' digest`` (SHA-256 of
their sorted-key compact JSON, :func:`args_digest`), so the same step of the same plan always carries the same key, whoever
retries it and on whichever replica. It is sent to non-idempotent tools (``Idempotency-Key``
header, and the ``idempotency_key`` parameter of Python tools).

The records live behind one small interface, :class:`IdempotencyBackend`: a lock with an owner
and a TTL (``SET NX PX``, refreshed by its live owner, released only by it) and plain records with
a TTL. :class:`MemoryIdempotency` keeps them in the process (one replica);
:class:`tao.action.idempotency_redis.RedisIdempotency` keeps them in Redis, shared by every
replica. :mod:`tao.action.dedup` (one tool call) and :mod:`tao.server.run_idempotency` (one
``POST /v1/run`` with an ``Idempotency-Key``) are built on it.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

PREFIX = "tao:idem:v1"


def canonical_args(args: dict[str, Any]) -> bytes:
    return orjson.dumps(args, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def args_digest(args: dict[str, Any]) -> str:
    """SHA-256 (hex) of a call's canonical arguments: what its idempotency key is derived from, and
    what a trajectory records per step (``tool_start.args_digest``) so that a replay of redacted
    arguments still carries the original call's key."""
    return hashlib.sha256(canonical_args(args)).hexdigest()


def idempotency_key(
    thought_id: str | None,
    step_id: str | None,
    tool: str,
    args: dict[str, Any] | str,
    tenant: str | None = None,
) -> str:
    """The key of one step's call; ``args`` are the arguments or their :func:`args_digest`. The
    tenant is part of it (two tenants that send the same thought id never share a record);
    ``None`` / ``"default"`` keep the one-tenant derivation."""
    h = hashlib.sha256()
    if tenant and tenant != "default":
        h.update(b"tenant\x1f" + str(len(tenant.encode())).encode() + b":" + tenant.encode() + b"\x1f")
    for part in (thought_id or "-", step_id or "-", tool):
        h.update(part.encode())
        h.update(b"\x1f")
    h.update((args if isinstance(args, str) else args_digest(args)).encode())
    return "tao-" + h.hexdigest()[:40]


def part(value: str) -> str:
    """One part of a record key, encoded unambiguously: ``{byte length}.{sha256 prefix}`` of any
    string (tenant names may hold ``:``; ``acme:prod``+``42`` never meets ``acme``+``prod:42``)."""
    raw = value.encode()
    return f"{len(raw)}.{hashlib.sha256(raw).hexdigest()[:32]}"


def record_key(kind: str, *parts: str) -> str:
    """``tao:idem:v1:{kind}:{part}:{part}…`` with each part encoded by :func:`part`."""
    return ":".join([PREFIX, kind, *(part(p) for p in parts)])


class BackendUnavailable(RuntimeError):
    """The shared store cannot be reached; callers refuse to run a side effect blind."""


class IdempotencyBackend(Protocol):
    """Locks with owners and records with TTLs (milliseconds)."""

    name: str

    async def acquire(self, key: str, owner: str, ttl_ms: int) -> bool: ...
    async def refresh(self, key: str, owner: str, ttl_ms: int) -> bool: ...
    async def release(self, key: str, owner: str) -> None: ...
    async def lock_ttl_ms(self, key: str) -> int: ...
    async def get(self, key: str) -> bytes | None: ...
    async def put(self, key: str, value: bytes, ttl_ms: int) -> None: ...
    async def put_new(self, key: str, value: bytes, ttl_ms: int) -> bool: ...
    async def delete(self, key: str) -> None: ...
    async def aclose(self) -> None: ...


@dataclass
class MemoryIdempotency:
    """The in-process backend (one replica; what a server without ``TAO_REDIS_URL`` uses)."""

    max_entries: int = 100_000
    clock: Callable[[], float] = time.monotonic
    name: str = "memory"
    _locks: dict[str, tuple[str, float]] = field(default_factory=dict)
    _data: dict[str, tuple[float, bytes]] = field(default_factory=dict)

    def _live_lock(self, key: str) -> tuple[str, float] | None:
        hit = self._locks.get(key)
        if hit is not None and self.clock() >= hit[1]:
            del self._locks[key]
            return None
        return hit

    async def acquire(self, key: str, owner: str, ttl_ms: int) -> bool:
        if self._live_lock(key) is not None:
            return False
        self._locks[key] = (owner, self.clock() + ttl_ms / 1000)
        return True

    async def refresh(self, key: str, owner: str, ttl_ms: int) -> bool:
        hit = self._live_lock(key)
        if hit is None or hit[0] != owner:
            return False
        self._locks[key] = (owner, self.clock() + ttl_ms / 1000)
        return True

    async def release(self, key: str, owner: str) -> None:
        hit = self._live_lock(key)
        if hit is not None and hit[0] == owner:
            del self._locks[key]

    async def lock_ttl_ms(self, key: str) -> int:
        hit = self._live_lock(key)
        return 0 if hit is None else max(1, int((hit[1] - self.clock()) * 1000))

    async def get(self, key: str) -> bytes | None:
        hit = self._data.get(key)
        if hit is None:
            return None
        if self.clock() >= hit[0]:
            del self._data[key]
            return None
        return hit[1]

    async def put(self, key: str, value: bytes, ttl_ms: int) -> None:
        self._data.pop(key, None)
        self._data[key] = (self.clock() + ttl_ms / 1000, value)
        while len(self._data) > self.max_entries:  # oldest insertion first
            del self._data[next(iter(self._data))]

    async def put_new(self, key: str, value: bytes, ttl_ms: int) -> bool:
        if await self.get(key) is not None:
            return False
        await self.put(key, value, ttl_ms)
        return True

    async def delete(self, key: str) -> None:
        self._data.pop(key, None)

    async def aclose(self) -> None:
        return None


@dataclass
class LocalLocks:
    """asyncio locks per key inside one process: concurrent duplicates of one replica wait for
    the first call instead of polling the shared lock."""

    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def lock(self, key: str) -> asyncio.Lock:
        lk = self._locks.get(key)
        if lk is None:
            lk = self._locks[key] = asyncio.Lock()
        return lk

    def forget(self, key: str) -> None:
        lk = self._locks.get(key)
        if lk is not None and not lk.locked() and not getattr(lk, "_waiters", None):
            del self._locks[key]
