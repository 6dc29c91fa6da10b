"""Session state snapshots between turns: an in-process store (default) and a Redis store.

Both keep one snapshot per (tenant, session_id) with a TTL; tenants never see each other's
sessions. Redis keys are ``{prefix}:{byte length of tenant}:{tenant}:{session_id}`` — the length
prefix makes the split unambiguous, so tenant ``acme:prod`` + session ``42``
(``tao:session:9:acme:prod:42``) never meets tenant ``acme`` + session ``prod:42``
(``tao:session:4:acme:prod:42``). Values: the SessionState JSON, expiry set atomically with
``SET ... PX``. A loaded snapshot whose own tenant or session id differs from the key asked for
is refused (treated as absent). Tenants: any printable string of 1-128 characters; session ids:
``[A-Za-z0-9_.:-]{1,128}``.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from tao.contracts import SessionState

_SAFE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
log = logging.getLogger("tao.session")


class SessionKeyError(ValueError):
    """A tenant or session id that cannot be used as a key."""


class SessionStoreUnavailable(RuntimeError):
    """The shared store cannot be reached when a snapshot is read (before anything runs)."""


def check_session_id(session_id: object) -> str:
    if not isinstance(session_id, str) or not _SAFE.match(session_id):
        raise SessionKeyError(
            f"invalid session_id: {session_id!r} (allowed: letters, digits, _ . : -, 1-128 characters)"
        )
    return session_id


def _check(tenant: str, session_id: str) -> None:
    if not isinstance(tenant, str) or not 1 <= len(tenant) <= 128 or not tenant.isprintable():
        raise SessionKeyError(f"invalid tenant: {tenant!r} (1-128 printable characters)")
    check_session_id(session_id)


def _owned(state: SessionState, tenant: str, session_id: str) -> SessionState | None:
    """The snapshot, if it belongs to the (tenant, session) it was loaded for."""
    if state.tenant != tenant or state.session_id != session_id:
        log.warning("session snapshot refused: stored for another tenant/session")
        return None
    return state


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
        return _owned(SessionState.model_validate_json(hit[1]), tenant, session_id)

    def put(self, state: SessionState, ttl_s: float | None = None) -> None:
        if not state.session_id:
            raise SessionKeyError("a session snapshot needs a session_id")
        _check(state.tenant, state.session_id)
        self._data[(state.tenant, state.session_id)] = (
            self.clock() + (ttl_s or self.ttl_s),
            state.model_dump_json(),
        )

    def delete(self, tenant: str, session_id: str) -> None:
        _check(tenant, session_id)
        self._data.pop((tenant, session_id), None)


class RedisSessionStore:
    """Redis-backed snapshots (shared by replicas). ``client`` is a ``redis.Redis``."""

    def __init__(self, client, ttl_s: float = 3600.0, prefix: str = "tao:session") -> None:
        self.client, self.ttl_s, self.prefix = client, ttl_s, prefix

    @classmethod
    def from_url(cls, url: str, **kw) -> RedisSessionStore:
        from router.redis_client import sync_client

        return cls(sync_client(url, socket_timeout=2.0), **kw)

    def key(self, tenant: str, session_id: str) -> str:
        _check(tenant, session_id)
        return f"{self.prefix}:{len(tenant.encode())}:{tenant}:{session_id}"

    def get(self, tenant: str, session_id: str) -> SessionState | None:
        """Raises :class:`SessionStoreUnavailable` when Redis cannot be reached (the run has not
        started: the caller answers 503 and nothing runs)."""
        import redis

        key = self.key(tenant, session_id)
        try:
            raw = self.client.get(key)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            raise SessionStoreUnavailable(f"session store unreachable: {type(exc).__name__}") from exc
        return None if raw is None else _owned(SessionState.model_validate_json(raw), tenant, session_id)

    def put(self, state: SessionState, ttl_s: float | None = None) -> None:
        """After a run: a store that cannot be reached loses this turn's snapshot (logged), never
        the run's reply (its side effects are done)."""
        import redis

        if not state.session_id:
            raise SessionKeyError("a session snapshot needs a session_id")
        ms = max(1, int((ttl_s or self.ttl_s) * 1000))
        try:
            self.client.set(self.key(state.tenant, state.session_id), state.model_dump_json(), px=ms)
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            log.warning("session snapshot not stored (%s)", type(exc).__name__)

    def delete(self, tenant: str, session_id: str) -> None:
        self.client.delete(self.key(tenant, session_id))
