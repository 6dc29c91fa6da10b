"""ToolExecutor: runs one tool call under its contract and returns an :class:`ActionResult`.

Order (see DESIGN.md, 'Action'): permission gate → argument validation (no call on failure) →
idempotency (key for non-idempotent tools, local dedup) → circuit breaker → call with timeout →
retry with jitter (transient failures of idempotent tools only, at most the contract's budget) →
fallback tool (breaker open or retries exhausted) → normalization and truncation. What is retried
and what falls back is :mod:`tao.action.policy`, shared with the loop's self-correction. Nothing here
raises for a tool's failure; every outcome is an ``ActionResult`` with a typed ``error_info``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tao.action.argcheck import validate_args
from tao.action.breaker import Board, BreakerBoard, BreakerConfig
from tao.action.dedup import DedupConfig, StepGuard
from tao.action.http_tools import CallContext
from tao.action.idempotency import (
    IdempotencyBackend,
    LocalLocks,
    MemoryIdempotency,
    args_digest,
    idempotency_key,
)
from tao.action.normalize import truncate
from tao.action.outbound import OutboundRejected, prepare
from tao.action.permissions import Approver, check_permission
from tao.action.policy import DEFAULT_JITTER_S, FALLBACK_ON, fallback_args, is_retryable, jitter, retry_budget
from tao.action.registry import RegisteredTool, ToolRegistry
from tao.contracts import ActionResult, ErrorInfo, ErrorType, ToolSpec

log = logging.getLogger("tao.executor")


@dataclass
class ExecutorConfig:
    timeout_override_s: float | None = None  # global override of every contract's timeout_ms
    jitter_s: tuple[float, float] = DEFAULT_JITTER_S  # sleep before a retry
    max_retries: int | None = None  # global cap on the contracts' retry budgets
    breaker: BreakerConfig = field(default_factory=BreakerConfig)
    breaker_redis_url: str | None = None  # set: one breaker per tool shared by every replica
    use_fallback: bool = True
    dedup: DedupConfig = field(default_factory=DedupConfig)


@dataclass
class ExecContext:
    """Who is calling: ids for keys and headers, the approver, the wall-clock deadline."""

    thought_id: str | None = None
    step_id: str | None = None
    trace_id: str | None = None
    approver: Approver | None = None
    deadline: float | None = None  # time.monotonic() value
    headers: dict[str, str] = field(default_factory=dict)
    attempt_tag: str = ""  # distinguishes correction retries in X-Request-ID, never in the key
    tenant: str | None = None  # part of the idempotency key (tenants never share records)
    # A replay's recorded digest of the original arguments (trajectories store them redacted): it
    # keys the call; a non-idempotent call whose arguments differ from it is answered only from its
    # done record, never made.
    args_digest: str | None = None


def _error(tool: str, step_id: str | None, et: ErrorType, msg: str, **kw: Any) -> ActionResult:
    return ActionResult(
        tool=tool, step_id=step_id, attempts=0, error_info=ErrorInfo(error_type=et, message=msg, **kw)
    )


class ToolExecutor:
    def __init__(
        self,
        registry: ToolRegistry,
        config: ExecutorConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        idempotency: IdempotencyBackend | None = None,
    ) -> None:
        self.registry = registry
        self.config = config or ExecutorConfig()
        self.breakers: Board = BreakerBoard(self.config.breaker, clock)
        if self.config.breaker_redis_url:
            from tao.action.breaker_redis import RedisBreakerBoard

            self.breakers = RedisBreakerBoard.from_url(self.config.breaker_redis_url, self.config.breaker)
        self.idempotency: IdempotencyBackend = idempotency or MemoryIdempotency()
        self.guard = StepGuard(self.idempotency, self.config.dedup)
        self._local = LocalLocks()
        self.rng = rng or random.Random()
        self.stats = {"calls": 0, "retries": 0, "dedup_hits": 0, "fallbacks": 0, "denied": 0}

    async def execute(
        self, tool: str, args: dict[str, Any], context: ExecContext | None = None, *, _fallback_depth: int = 0
    ) -> ActionResult:
        ctx = context or ExecContext()
        reg = self.registry.get(tool)
        if reg is None:
            return _error(
                tool,
                ctx.step_id,
                ErrorType.TOOL_UNKNOWN,
                f"no tool named '{tool}' is registered",
                field="/tool",
                expected="one of " + ", ".join(self.registry.names()),
                received=tool,
            )
        spec = reg.spec
        planned = args  # as planned and resolved (before escaping): what a key's digest is of
        try:
            args = prepare(spec, args)  # outbound text made inert (or refused) before approval
        except OutboundRejected as exc:
            return _error(
                tool,
                ctx.step_id,
                ErrorType.TOOL_ARGUMENT_INVALID,
                str(exc),
                field="/" + exc.field,
                expected=exc.expected,
                received=exc.received,
                retryable=False,
            )
        denied = await check_permission(
            spec, args, ctx.approver, thought_id=ctx.thought_id, step_id=ctx.step_id
        )
        if denied is not None:
            self.stats["denied"] += 1
            return ActionResult(tool=tool, step_id=ctx.step_id, attempts=0, error_info=denied)
        errors = validate_args(spec.args_schema, planned)  # the contract's limits are on the content
        if errors:
            first = errors[0]
            more = (
                f" (+{len(errors) - 1} more: " + "; ".join(e.message for e in errors[1:]) + ")"
                if len(errors) > 1
                else ""
            )
            return ActionResult(
                tool=tool,
                step_id=ctx.step_id,
                attempts=0,
                error_info=first.model_copy(update={"message": first.message + more}),
            )
        if spec.idempotent:
            result = await self._run(reg, args, ctx, None, _fallback_depth)
        else:
            digest = args_digest(planned)
            replayed = ctx.args_digest is not None and ctx.args_digest != digest
            key = idempotency_key(ctx.thought_id, ctx.step_id, tool, ctx.args_digest or digest, ctx.tenant)

            async def call() -> ActionResult:
                if replayed:  # a replay with other (redacted) arguments and no done record
                    return _error(
                        tool,
                        ctx.step_id,
                        ErrorType.LOW_CONFIDENCE,
                        f"replayed {tool} call: its arguments differ from the recorded call's (the "
                        "trajectory stores them redacted) and no record of the original call's result "
                        "was found; it is not re-executed",
                        retryable=False,
                    )
                return await self._run(reg, args, ctx, key, _fallback_depth)

            async with self._local.lock(key):  # one replica's duplicates wait here, not on the store
                result = await self.guard.run(tool, ctx.step_id, key, call, ctx.deadline)
            self._local.forget(key)
            if result.attempts == 0 and result.error_info is None:
                self.stats["dedup_hits"] += 1
                log.info("dedup hit", extra={"thought_id": ctx.thought_id, "tool": tool})
            result = result.model_copy(update={"idempotency_key": key})
        return result

    def _timeout_s(self, spec: ToolSpec, ctx: ExecContext) -> float:
        t = self.config.timeout_override_s or spec.timeout_ms / 1000.0
        if ctx.deadline is not None:
            t = min(t, max(0.0, ctx.deadline - time.monotonic()))
        return t

    async def _run(
        self, reg: RegisteredTool, args: dict[str, Any], ctx: ExecContext, key: str | None, depth: int
    ) -> ActionResult:
        spec = reg.spec
        breaker = self.breakers.get(spec.name)
        budget = retry_budget(spec, self.config.max_retries)
        result: ActionResult | None = None
        attempts = 0
        permit = await breaker.aallow()
        if not permit.ok:
            result = _error(
                spec.name,
                ctx.step_id,
                ErrorType.TOOL_CIRCUIT_OPEN,
                f"circuit open for '{spec.name}' (retry after {permit.retry_after_s:.1f} s)",
                retryable=False,
            )
        else:
            while True:
                attempts += 1
                timeout = self._timeout_s(spec, ctx)
                if timeout <= 0:
                    await breaker.arelease(permit)  # not the tool's fault: free a half-open probe slot
                    result = _error(
                        spec.name, ctx.step_id, ErrorType.BUDGET_EXHAUSTED, "wall-time budget exhausted"
                    )
                    break
                result = await self._call_once(reg, args, ctx, key, attempts, timeout)
                et = result.error_info.error_type if result.error_info else None
                if is_retryable(et):
                    await breaker.afailure(permit)
                else:
                    await breaker.asuccess(permit)  # success, or a 4xx: the service is up
                    break
                if attempts > budget:
                    break
                permit = await breaker.aallow()
                if not permit.ok:
                    break
                self.stats["retries"] += 1
                await asyncio.sleep(jitter(self.rng, self.config.jitter_s))
            if result.attempts != attempts:  # a copy only when it changes (1 attempt: the default)
                result = result.model_copy(update={"attempts": attempts})
        et = result.error_info.error_type if result.error_info else None
        if et in FALLBACK_ON and spec.fallback_tool and self.config.use_fallback and depth < 2:
            fb = await self._fallback(spec, args, ctx, depth)
            if fb is not None and fb.error_info is None:
                result = fb.model_copy(
                    update={"from_fallback": spec.name, "attempts": attempts + fb.attempts}
                )
        return truncate(result, spec.max_result_tokens)

    async def _call_once(
        self,
        reg: RegisteredTool,
        args: dict[str, Any],
        ctx: ExecContext,
        key: str | None,
        attempt: int,
        timeout: float,
    ) -> ActionResult:
        self.stats["calls"] += 1
        rid = f"{ctx.trace_id or uuid.uuid4().hex}-{ctx.step_id or 's'}{ctx.attempt_tag}-a{attempt}"
        cc = CallContext(
            request_id=rid,
            thought_id=ctx.thought_id,
            step_id=ctx.step_id,
            idempotency_key=key,
            timeout_s=timeout,
            headers=dict(ctx.headers),
        )
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(timeout + 0.05):  # no task per call, unlike wait_for
                res = await reg.transport(reg.spec, args, cc)
        except TimeoutError:
            res = ActionResult(
                tool=reg.spec.name,
                step_id=ctx.step_id,
                response_time_ms=(time.perf_counter() - t0) * 1000,
                error_info=ErrorInfo(
                    error_type=ErrorType.TOOL_TIMEOUT,
                    retryable=True,
                    message=f"no result within {timeout:.3f} s",
                ),
            )
        if res.idempotency_key == key and res.step_id == ctx.step_id:
            return res  # the transport set both already (an unkeyed call of this step): no copy
        return res.model_copy(update={"idempotency_key": key, "step_id": ctx.step_id})

    async def _fallback(
        self, spec: ToolSpec, args: dict[str, Any], ctx: ExecContext, depth: int
    ) -> ActionResult | None:
        fb_spec = self.registry.spec(spec.fallback_tool or "")
        if fb_spec is None:
            return None
        self.stats["fallbacks"] += 1
        return await self.execute(fb_spec.name, fallback_args(fb_spec, args), ctx, _fallback_depth=depth + 1)

    async def aclose(self) -> None:
        await self.registry.aclose()
        await self.idempotency.aclose()
        await self.breakers.aclose()
