"""``Idempotency-Key`` on ``POST /v1/run`` (Stripe semantics), on the shared idempotency backend.

Per ``(tenant, key)`` three records (key format: :func:`tao.action.idempotency.record_key`):

* ``run`` — the body's fingerprint (SHA-256 of its canonical JSON), written when a run starts;
* ``runlock`` — the in-flight lock (``SET NX PX``, refreshed by the live owner every ttl/3, so it
  is gone within ``lock_ttl_s`` of the owner's death);
* ``rundone`` — the fingerprint and the recorded 200 reply.

A request with a key: a done record with the same fingerprint is the answer (nothing runs again;
header ``Idempotent-Replayed: true``); a different fingerprint, done or not, is ``409
idempotency_key_reused``; a held lock is ``409 request_in_progress`` with ``Retry-After``.
Otherwise this replica takes the lock and runs with a thought id derived from ``(tenant, key)``
— so a re-run after a dead owner carries the same step keys, and a non-idempotent step the dead
owner had started ends as ``needs_user`` instead of running twice (:mod:`tao.action.dedup`);
the reply is recorded. A backend that cannot be reached is ``503 idempotency_unavailable``.
"""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import orjson

from tao.action.dedup import heartbeat
from tao.action.idempotency import BackendUnavailable, IdempotencyBackend, record_key
from tao.server.errors import ApiError

_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
_NS = uuid.UUID("6f1c1d3e-6a56-4b8e-9a70-1f0d3c1e2b7a")


@dataclass(frozen=True)
class RunIdemConfig:
    lock_ttl_s: float = 10.0
    done_ttl_s: float = 24 * 3600.0


def check_key(value: str) -> str:
    if not _KEY.match(value):
        raise ApiError(
            422,
            "invalid_idempotency_key",
            "Idempotency-Key must be 1-255 printable ASCII characters without spaces",
            field="Idempotency-Key",
        )
    return value


def fingerprint(body: Any) -> str:
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def thought_id_for(tenant: str, key: str) -> str:
    """The thought id of a keyed run: the same for every replica that runs it."""
    return str(uuid.uuid5(_NS, f"{len(tenant)}:{tenant}:{key}"))


def _unavailable(exc: BaseException) -> ApiError:
    return ApiError(
        503,
        "idempotency_unavailable",
        f"the idempotency store cannot be reached ({exc}); nothing was run",
        headers={"Retry-After": "1"},
    )


class KeyedRun:
    """One keyed request: :meth:`begin` → a recorded reply, or the lease to run it."""

    def __init__(
        self, backend: IdempotencyBackend, config: RunIdemConfig, tenant: str, key: str, fp: str
    ) -> None:
        self.b, self.cfg, self.fp = backend, config, fp
        self.thought_id = thought_id_for(tenant, key)
        self.k_run = record_key("run", tenant, key)
        self.k_lock = record_key("runlock", tenant, key)
        self.k_done = record_key("rundone", tenant, key)
        self.owner = uuid.uuid4().hex
        self._ttl_ms = max(1, int(config.lock_ttl_s * 1000))
        self._done_ms = max(1, int(config.done_ttl_s * 1000))
        self._hb: AbstractAsyncContextManager[None] | None = None

    async def _recorded(self) -> bytes | None:
        raw = await self.b.get(self.k_done)
        if raw is None:
            return None
        fp, _, reply = raw.partition(b"\n")
        if fp.decode() != self.fp:
            raise ApiError(
                409,
                "idempotency_key_reused",
                "this Idempotency-Key was used with a different request body",
                field="Idempotency-Key",
            )
        return reply

    async def _check_fp(self) -> None:
        raw = await self.b.get(self.k_run)
        if raw is not None and raw.decode() != self.fp:
            raise ApiError(
                409,
                "idempotency_key_reused",
                "this Idempotency-Key was used with a different request body",
                field="Idempotency-Key",
            )

    async def begin(self) -> bytes | None:
        """The recorded reply, or None when this replica now holds the lock and must run."""
        try:
            if (reply := await self._recorded()) is not None:
                return reply
            if not await self.b.acquire(self.k_lock, self.owner, self._ttl_ms):
                if (reply := await self._recorded()) is not None:
                    return reply
                await self._check_fp()
                wait = max(1, math.ceil(await self.b.lock_ttl_ms(self.k_lock) / 1000))
                raise ApiError(
                    409,
                    "request_in_progress",
                    "a request with this Idempotency-Key is in flight; retry after it ends",
                    field="Idempotency-Key",
                    headers={"Retry-After": str(wait)},
                )
            try:
                if (reply := await self._recorded()) is not None:
                    await self.release()
                    return reply
                await self._check_fp()
            except ApiError:
                await self.release()
                raise
            await self.b.put(self.k_run, self.fp.encode(), self._done_ms)
        except BackendUnavailable as exc:
            raise _unavailable(exc) from None
        self._hb = heartbeat(self.b, self.k_lock, self.owner, self._ttl_ms)
        await self._hb.__aenter__()
        return None

    async def finish(self, reply: bytes) -> None:
        try:
            await self.b.put(self.k_done, self.fp.encode() + b"\n" + reply, self._done_ms)
        except BackendUnavailable:
            pass  # the reply still goes out; a resend re-runs with the same step keys

    async def abandon(self) -> None:
        """Forget the body's fingerprint: the request was refused before anything ran."""
        try:
            await self.b.delete(self.k_run)
        except BackendUnavailable:
            pass

    async def release(self) -> None:
        if self._hb is not None:
            await self._hb.__aexit__(None, None, None)
            self._hb = None
        try:
            await self.b.release(self.k_lock, self.owner)
        except BackendUnavailable:
            pass  # the lock expires by itself
