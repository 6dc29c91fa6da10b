"""Session state snapshots between turns: an in-process store (default) and a Redis store.

Both keep one snapshot per (tenant, session_id) with a TTL; tenants never see each other's
sessions. Redis keys are ``{prefix}:{tenant}:{session_id}`` (values: the SessionState JSON,
expiry set atomically with ``SET ... EX``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from tao.contracts import SessionState

_SAFE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


class SessionKeyError(ValueError):
    """A tenant or session id that cannot be used as a key."""


def _check(tenant: str, session_id: str) -> None:
    for what, v in (("tenant", tenant), ("session_id", session_id)):
        if not isinstance(v, str) or not _SAFE.match(v):
            raise SessionKeyError(f"invalid {what}: {v!r} (allowed: letters, digits, _ . : -, up to 128)")


class SessionStore(Protocol):
    def get(self, tenant: str, session_id: str) -> SessionState | None: ...
    def put(self, state: SessionState, ttl_s: float | None = None) -> None: ...
    def delete(self, tenant: str, session_id: str) -> None: ...


@dataclass
class MemorySessionStore:
    ttl_s: float = 3600.0
    clock: Callable[[], float] = time.monotonic
    _data: dict[tuple[str, str], tuple[float, str]] = field(default_factory=dict)

    def get(self, tenant: str, session_id: str) -> SessionState | None:
        _check(tenant, session_id)
        hit = self._data.get((tenant, session_id))
        if hit is None:
            return None
        if self.clock() >= hit[0]:
            del self._data[(tenant, session_id)]
            return None
        return SessionState.model_validate_json(hit[1])

    def put(self, state: SessionState, ttl_s: float | None = None) -> None:
        if not state.session_id:
            raise SessionKeyError("a session snapshot needs a session_id")
        _check(state.tenant, state.session_id)
        self._data[(state.tenant, state.session_id)] = (
            self.clock() + (ttl_s or self.ttl_s),
            state.model_dump_json(),
        )

    def delete(self, tenant: str, session_id: str) -> None:
        self._data.pop((tenant, session_id), None)


class RedisSessionStore:
    """Redis-backed snapshots (shared by replicas). ``client`` is a ``redis.Redis``."""

    def __init__(self, client, ttl_s: float = 3600.0, prefix: str = "tao:session") -> None:
        self.client, self.ttl_s, self.prefix = client, ttl_s, prefix

    @classmethod
    def from_url(cls, url: str, **kw) -> RedisSessionStore:
        import redis

        return cls(redis.Redis.from_url(url, socket_timeout=2.0), **kw)

    def key(self, tenant: str, session_id: str) -> str:
        _check(tenant, session_id)
        return f"{self.prefix}:{tenant}:{session_id}"

    def get(self, tenant: str, session_id: str) -> SessionState | None:
        raw = self.client.get(self.key(tenant, session_id))
        return None if raw is None else SessionState.model_validate_json(raw)

    def put(self, state: SessionState, ttl_s: float | None = None) -> None:
        if not state.session_id:
            raise SessionKeyError("a session snapshot needs a session_id")
        ms = max(1, int((ttl_s or self.ttl_s) * 1000))
        self.client.set(self.key(state.tenant, state.session_id), state.model_dump_json(), px=ms)

    def delete(self, tenant: str, session_id: str) -> None:
        self.client.delete(self.key(tenant, session_id))
