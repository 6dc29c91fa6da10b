"""One non-idempotent call, at most once across every replica sharing the backend.

For a step key ``K`` (see :func:`tao.action.idempotency.idempotency_key`):

1. a **done** record of ``K`` (the stored :class:`ActionResult`) answers at once, no call;
2. else the **lock** of ``K`` is taken (``SET NX PX``; refreshed every ``lock_ttl/3`` while its
   owner is alive, so it expires within ``lock_ttl`` of the owner's death); a caller that finds it
   held waits for the done record (bounded by its deadline);
3. with the lock held, an **in-flight** record of ``K`` means an earlier owner started the call
   and died before recording an outcome: the call may or may not have happened, so it is *not*
   re-executed; the step ends with ``LOW_CONFIDENCE`` (handler ``escalate_human`` →
   ``needs_user``) and a message saying so;
4. otherwise the in-flight record is written, the call made, and on success the done record
   written; the in-flight record is removed by its live owner whatever the outcome (a live owner
   knows what happened and its caller's retry policy decides what comes next).

A backend that cannot be reached refuses the call (``TOOL_TRANSIENT``, nothing sent). If it becomes
unreachable *after* the call, the call's real result is returned (the done record is then missing
and the in-flight record stays: a later attempt ends as in step 3, never re-executes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import orjson

from tao.action.idempotency import BackendUnavailable, IdempotencyBackend, record_key
from tao.contracts import ActionResult, ErrorInfo, ErrorType

log = logging.getLogger("tao.dedup")


@dataclass(frozen=True)
class DedupConfig:
    lock_ttl_s: float = 10.0  # the in-flight lock; a dead owner's lock is gone within this
    done_ttl_s: float = 24 * 3600.0  # done and in-flight records
    poll_s: float = 0.05  # while another owner holds the lock


def _err(tool: str, step_id: str | None, et: ErrorType, msg: str, retryable: bool = False) -> ActionResult:
    return ActionResult(
        tool=tool,
        step_id=step_id,
        attempts=0,
        error_info=ErrorInfo(error_type=et, message=msg, retryable=retryable),
    )


@contextlib.asynccontextmanager
async def heartbeat(backend: IdempotencyBackend, key: str, owner: str, ttl_ms: int):
    """Keep ``key``'s lock alive while the body runs (refresh every ttl/3)."""

    async def beat() -> None:
        while True:
            await asyncio.sleep(max(0.01, ttl_ms / 3000))
            try:
                if not await backend.refresh(key, owner, ttl_ms):
                    log.warning("lost the lock of %s", key)
                    return
            except BackendUnavailable:
                continue

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


class StepGuard:
    def __init__(self, backend: IdempotencyBackend, config: DedupConfig | None = None) -> None:
        self.backend, self.config = backend, config or DedupConfig()

    async def run(
        self,
        tool: str,
        step_id: str | None,
        key: str,
        call: Callable[[], Awaitable[ActionResult]],
        deadline: float | None = None,
    ) -> ActionResult:
        try:
            return await self._run(tool, step_id, key, call, deadline)
        except BackendUnavailable as exc:
            return _err(
                tool,
                step_id,
                ErrorType.TOOL_TRANSIENT,
                f"idempotency store unavailable ({exc}); the non-idempotent call was not made",
                retryable=True,
            )

    async def _done(self, key: str, step_id: str | None) -> ActionResult | None:
        raw = await self.backend.get(record_key("done", key))
        if raw is None:
            return None
        res = ActionResult.model_validate_json(raw)
        return res.model_copy(update={"attempts": 0, "step_id": step_id})

    async def _run(
        self,
        tool: str,
        step_id: str | None,
        key: str,
        call: Callable[[], Awaitable[ActionResult]],
        deadline: float | None,
    ) -> ActionResult:
        cfg, b = self.config, self.backend
        if (hit := await self._done(key, step_id)) is not None:
            return hit
        lock, inflight = record_key("lock", key), record_key("inflight", key)
        owner = uuid.uuid4().hex
        ttl_ms = max(1, int(cfg.lock_ttl_s * 1000))
        while not await b.acquire(lock, owner, ttl_ms):
            if (hit := await self._done(key, step_id)) is not None:
                return hit
            if deadline is not None and time.monotonic() >= deadline:
                return _err(
                    tool,
                    step_id,
                    ErrorType.BUDGET_EXHAUSTED,
                    "the same call is in flight elsewhere and did not finish within the budget",
                )
            await asyncio.sleep(cfg.poll_s)
        try:
            if (hit := await self._done(key, step_id)) is not None:
                return hit
            prev = await b.get(inflight)
            if prev is not None:
                log.warning("in-flight record of %s outlived its owner: not re-executed", key)
                return _err(
                    tool,
                    step_id,
                    ErrorType.LOW_CONFIDENCE,
                    f"outcome unknown: an earlier attempt of this non-idempotent {tool} call was "
                    "interrupted before its result was recorded; it is not re-executed (check it, then "
                    "retry with a new request if it did not happen)",
                )
            done_ms = max(1, int(cfg.done_ttl_s * 1000))
            await b.put(inflight, orjson.dumps({"owner": owner, "tool": tool, "at": time.time()}), done_ms)
            async with heartbeat(b, lock, owner, ttl_ms):
                result = await call()
            try:
                if result.error_info is None:
                    await b.put(record_key("done", key), result.model_dump_json().encode(), done_ms)
                await b.delete(inflight)
            except BackendUnavailable:  # the call was made: its real outcome, never "not made"
                log.warning(
                    "outcome of %s not recorded (store unreachable); its in-flight record stays, "
                    "so a later attempt ends as outcome unknown instead of re-executing",
                    key,
                )
            return result
        finally:
            with contextlib.suppress(BackendUnavailable):
                await b.release(lock, owner)
