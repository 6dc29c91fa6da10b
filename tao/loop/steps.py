"""Executing a checked plan: the DAG scheduler and the per-step action → observation → correction
cycle (used by :class:`tao.loop.loop.TaoLoop`). Retry pauses, what is repairable and what a
fallback is called with come from :mod:`tao.action.policy`; the observation is the Rust check
(:mod:`tao.observe.observer`) with the call's expectations (each resolved argument the tool may
echo must come back unchanged, :func:`tao.observe.echo.echo_expectations`; the checker answers
``OBSERVATION_INCONSISTENT``), to which the loop adds only its own policy: the ``min_confidence``
floor (``LOW_CONFIDENCE`` → ``escalate_human``)."""

from __future__ import annotations

import asyncio
import random
import time
from functools import partial
from typing import Any

from opentelemetry.propagate import inject

from tao.action.executor import ExecContext, ToolExecutor
from tao.action.idempotency import args_digest
from tao.action.outbound import OutboundRejected, check_provenance
from tao.action.permissions import Approver
from tao.action.policy import REPAIRABLE, fallback_args, jitter
from tao.action.refs import MissingDependency, StepOutput, resolve_refs
from tao.contracts import (
    ActionResult,
    ErrorType,
    EventKind,
    ObservationResult,
    PlanStep,
    SessionState,
    StepStatus,
    ThoughtPlan,
)
from tao.contracts.timeexpr import TimeSymbolError, resolve_times
from tao.loop.correction import HANDLERS, TERMINAL_STATUS, Action, StepCorrector, repair_arguments
from tao.loop.report import StepRecord
from tao.observe.echo import echo_expectations
from tao.observe.observer import Observer
from tao.trace.trajectory import Deferred, Trajectory, mark_error


def _chain(seq: list[str], by_id: dict[str, PlanStep]) -> bool:
    """The steps in ``seq`` order form a chain: every step after the first depends on the one
    just before it (a single step is a chain)."""
    return all(seq[i - 1] in by_id[seq[i]].dependencies for i in range(1, len(seq)))


def _dump_all(models: list[Any]) -> list[dict[str, Any]]:
    return [m.model_dump() for m in models]


class StepRunner:
    def __init__(
        self,
        executor: ToolExecutor,
        observer: Observer,
        config: Any,
        traj: Trajectory,
        session: SessionState,
        approver: Approver | None,
        headers: dict[str, str],
        deadline: float,
        stages: Any,
    ) -> None:
        self.executor, self.observer, self.config, self.traj = executor, observer, config, traj
        self.session, self.approver, self.headers, self.deadline, self.stages = (
            session,
            approver,
            headers,
            deadline,
            stages,
        )
        self.outputs: dict[str, StepOutput] = {}
        # step id -> the recorded digest of its original arguments (a replay from a trajectory,
        # whose arguments are stored redacted): keys the step's call instead of its arguments
        self.replay_digests: dict[str, str] = {}
        self.records: dict[str, StepRecord] = {}
        self.calls = 0
        self.sem = asyncio.Semaphore(max(1, config.max_concurrency))
        self._rng: random.Random | None = None

    @property
    def rng(self) -> random.Random:
        """The retry-jitter generator, made (and seeded from the OS) on the first retry only."""
        if self._rng is None:
            self._rng = random.Random()
        return self._rng

    async def run_plan(self, plan: ThoughtPlan, order: list[str]) -> list[StepRecord]:
        done = {s.step_id: asyncio.Event() for s in plan.steps}
        for s in plan.steps:
            self.records[s.step_id] = StepRecord(s.step_id, s.tool)
        by_id = {s.step_id: s for s in plan.steps}
        seq = order or list(by_id)
        left = max(0.0, self.deadline - time.monotonic())
        if left <= 0:
            pass  # no time left: nothing starts, every step is marked below
        elif _chain(seq, by_id):
            # each step waits for the one before it: nothing can overlap, so the steps run in this
            # task, one after another, under the same deadline (no task per step); a step cut by
            # the deadline is cancelled as its task would be, the rest stay pending
            try:
                async with asyncio.timeout(left):
                    for sid in seq:
                        await self._guarded(by_id[sid], done)
            except TimeoutError:
                pass
        else:
            tasks = [asyncio.create_task(self._guarded(by_id[sid], done)) for sid in seq]
            _, pending = await asyncio.wait(tasks, timeout=left)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        for rec in self.records.values():
            if rec.status is StepStatus.PENDING:
                self._fail(
                    rec,
                    ErrorType.BUDGET_EXHAUSTED,
                    f"wall-time budget of {self.config.wall_time_s} s exhausted",
                )
        return [self.records[s.step_id] for s in plan.steps]

    def _fail(
        self, rec: StepRecord, et: ErrorType, message: str, status: StepStatus = StepStatus.FAILED
    ) -> None:
        rec.status, rec.error_type, rec.message = status, et, message
        self.traj.emit(
            EventKind.ERROR, step_id=rec.step_id, tool=rec.tool, error_type=et.value, message=message
        )

    async def _guarded(self, step: PlanStep, done: dict[str, asyncio.Event]) -> None:
        rec = self.records[step.step_id]
        try:
            for d in step.dependencies:
                await done[d].wait()
            bad = [d for d in step.dependencies if self.records[d].status is not StepStatus.OK]
            if bad:
                self._fail(
                    rec,
                    ErrorType.DEPENDENCY_MISSING,
                    f"input never arrived: dependency {', '.join(bad)} did not succeed",
                    StepStatus.SKIPPED,
                )
                return
            try:
                args = resolve_times(resolve_refs(step.arguments, self.outputs), self.session)
            except MissingDependency as exc:
                self._fail(rec, ErrorType.DEPENDENCY_MISSING, f"input never arrived: {exc}")
                return
            except TimeSymbolError as exc:
                self._fail(rec, ErrorType.TOOL_ARGUMENT_INVALID, str(exc), StepStatus.NEEDS_USER)
                return
            try:  # an outbound message never carries a raw tool result the plan did not ask for
                earlier = [o.parsed for o in self.outputs.values()]
                check_provenance(self.executor.registry.spec(step.tool), step.arguments, args, earlier)
            except OutboundRejected as exc:
                self._fail(rec, ErrorType.TOOL_ARGUMENT_INVALID, str(exc), StepStatus.NEEDS_USER)
                return
            rec.arguments = args
            async with self.sem:
                t = time.perf_counter()
                await self._execute(step, rec, args)
                rec.duration_ms = round((time.perf_counter() - t) * 1000, 3)
        except Exception as exc:  # a runtime bug must not take the request down with a traceback
            self._fail(rec, ErrorType.TOOL_TRANSIENT, f"internal error: {type(exc).__name__}: {exc}")
        finally:
            done[step.step_id].set()

    async def _call(
        self, tool: str, step_id: str, args: dict[str, Any], tag: str, replay_digest: str | None = None
    ) -> tuple[ActionResult, ObservationResult]:
        reg = self.executor.registry
        spec = reg.spec(tool)
        tr = self.traj
        # recorded (the arguments are stored redacted); computed when the event is built
        digest = replay_digest or Deferred(partial(args_digest, args))
        tr.emit(
            EventKind.TOOL_START,
            step_id=step_id,
            tool=tool,
            arguments=args,
            attempt_tag=tag,
            args_digest=digest,
        )
        with tr.tool_span(tool, step_id, spec.description if spec else "") as span:
            headers = dict(self.headers)
            if tr.tracing:  # W3C traceparent of this execute_tool span (nothing to send without one)
                inject(headers)
            ctx = ExecContext(
                thought_id=tr.thought_id,
                step_id=step_id,
                trace_id=tr.trace_id,
                approver=self.approver,
                deadline=self.deadline,
                headers=headers,
                attempt_tag=tag,
                tenant=self.session.tenant,
                args_digest=replay_digest,
            )
            t = time.perf_counter()
            result = await self.executor.execute(tool, args, ctx)
            self.stages.action += (time.perf_counter() - t) * 1000
            err = result.error_info
            tr.emit(
                EventKind.TOOL_END,
                step_id=step_id,
                tool=tool,
                duration_ms=result.response_time_ms,
                status_code=result.status_code,
                attempts=result.attempts,
                from_fallback=result.from_fallback,
                idempotency_key=result.idempotency_key,
                truncated=result.truncated,
                deduplicated=result.attempts == 0 and err is None,
                error=err.model_dump(mode="json") if err else None,
                data=result.parsed_data,
            )
            t = time.perf_counter()
            if spec is None:
                obs = ObservationResult(
                    valid=False,
                    error_type=err.error_type if err else ErrorType.TOOL_UNKNOWN,
                    confidence_score=0.0,
                )
            else:
                obs = self.observer.observe(spec, result, echo_expectations(spec, args))
                if obs.valid and obs.confidence_score < self.config.min_confidence:
                    obs = obs.model_copy(update={"valid": False, "error_type": ErrorType.LOW_CONFIDENCE})
            self.stages.observation += (time.perf_counter() - t) * 1000
            tr.emit(
                EventKind.OBSERVATION,
                step_id=step_id,
                tool=tool,
                valid=obs.valid,
                error_type=obs.error_type.value if obs.error_type else None,
                confidence=obs.confidence_score,
                extracted=obs.extracted_data,
                audit=Deferred(partial(_dump_all, obs.audit_trail[:12])),
                backend=self.observer.backend,
            )
            mark_error(span, None if obs.valid else (obs.error_type.value if obs.error_type else "invalid"))
        return result, obs

    async def _execute(self, step: PlanStep, rec: StepRecord, args: dict[str, Any]) -> None:
        reg = self.executor.registry
        corrector = StepCorrector(reg.spec(step.tool), self.config.correction)
        tool, tag = step.tool, ""
        # a replay's recorded digest keys the step's own call, never a repair or a fallback
        replay_digest = self.replay_digests.get(step.step_id)
        while True:
            if self.calls >= self.config.max_tool_calls:
                self._fail(
                    rec,
                    ErrorType.BUDGET_EXHAUSTED,
                    f"tool-call budget of {self.config.max_tool_calls} exhausted",
                )
                return
            if time.monotonic() >= self.deadline:
                self._fail(rec, ErrorType.BUDGET_EXHAUSTED, "wall-time budget exhausted")
                return
            self.calls += 1
            result, obs = await self._call(tool, step.step_id, args, tag, replay_digest)
            rec.attempts += result.attempts
            rec.confidence = obs.confidence_score
            if obs.valid:
                rec.status, rec.extracted, rec.tool_used = StepStatus.OK, dict(obs.extracted_data), tool
                rec.error_type, rec.message = None, "ok"
                rec.from_fallback = result.from_fallback or (step.tool if tool != step.tool else None)
                rec.deduplicated = result.attempts == 0
                self.outputs[step.step_id] = StepOutput(dict(obs.extracted_data), result.parsed_data)
                return
            et = obs.error_type or ErrorType.TOOL_SCHEMA_VIOLATION
            message = result.error_info.message if result.error_info else f"observation failed: {et.value}"
            action = corrector.decide(et)
            spec = reg.spec(tool)
            if action is Action.REPAIR:
                # input the contract rejected, or a 4xx the service answered: try a safe fix of the input
                fixable = et in REPAIRABLE
                fixed = repair_arguments(spec, args) if spec and fixable else None
                if fixed is None:
                    action = Action.ASK_USER
                else:
                    args = rec.arguments = fixed
                    replay_digest = None
            if action is Action.REPLAN:  # plan-level errors cannot be fixed inside one step
                action = Action.FAIL
            self.traj.emit(
                EventKind.CORRECTION,
                step_id=step.step_id,
                tool=tool,
                error_type=et.value,
                handler=HANDLERS.get(et, "fail"),
                action=action.value,
                message=message,
            )
            rec.corrections.append(f"{et.value}->{action.value}")
            if action is Action.RETRY:
                await asyncio.sleep(jitter(self.rng, self.config.retry_jitter_s))
                tag = f"-r{corrector.retries}"
                continue
            if (
                action is Action.FALLBACK
                and spec is not None
                and spec.fallback_tool
                and (fb := reg.spec(spec.fallback_tool)) is not None
            ):
                args = fallback_args(fb, args)
                tool, tag, replay_digest = fb.name, "-fb", None
                continue
            if action is Action.REPAIR:
                continue
            rec.status = TERMINAL_STATUS.get(action, StepStatus.FAILED)
            rec.error_type, rec.message = et, message
            if err := result.error_info:
                if err.field:
                    rec.message += f" (field {err.field}: expected {err.expected}, received {err.received})"
            return
