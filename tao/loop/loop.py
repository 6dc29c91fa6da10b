"""The TAO loop: plan → check plan → execute the DAG → observe → self-correct → final answer.

``TaoLoop.run(request, session)`` never raises for a bad plan, tool or result: it returns a
:class:`~tao.loop.report.RunReport` whose ``status`` is success / failed / needs_user /
needs_approval with the error type. Every loop is bounded: re-plans (``max_replans``), per-step
corrections (:class:`CorrectionBudget`), tool calls per run (``max_tool_calls``) and wall time
(``wall_time_s``). Independent steps run concurrently; a step starts when its dependencies are
done, with references and relative time symbols resolved deterministically.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

from opentelemetry.trace import Tracer

from tao.action.executor import ToolExecutor
from tao.action.permissions import Approver
from tao.contracts import (
    ErrorInfo,
    ErrorType,
    EventKind,
    InsufficientContext,
    RunStatus,
    SessionState,
    StepStatus,
    ThoughtPlan,
)
from tao.loop.carryover import Carry, CarryOver
from tao.loop.correction import HANDLERS, CorrectionBudget
from tao.loop.intent.decision import DecisionPoint, PlanningDecision, PlanPath
from tao.loop.plancheck import PlanValidator
from tao.loop.planner import Planner, PlanOutcome, ReplayPlanner
from tao.loop.report import RunReport, StepRecord
from tao.loop.resolve import ResolveError, check_doc, resolve_plan
from tao.loop.session import SessionStore
from tao.loop.snapshot import MEMORY_KEY, build_snapshot, load_snapshot
from tao.loop.steps import StepRunner
from tao.observe.observer import Observer
from tao.trace.scope import run_scope
from tao.trace.trajectory import Deferred, Sink, Trajectory, mark_error


@dataclass
class LoopConfig:
    max_replans: int = 1
    wall_time_s: float = 30.0
    # A valid observation scores 1.0 (no soft score, or the body reads as a normal result) or 0.7
    # (the soft check reads the body as an error: 0.6 hard + 0.1 consistency); a floor between them
    # sends the latter to escalate_human. (0.5 could never fire: confidence was decorative.)
    min_confidence: float = 0.75
    max_concurrency: int = 4
    max_tool_calls: int = 24
    correction: CorrectionBudget = field(default_factory=CorrectionBudget)
    retry_jitter_s: tuple[float, float] = (0.1, 0.5)
    session_ttl_s: float = 3600.0


@dataclass
class _Stages:
    thought: float = 0.0
    action: float = 0.0
    observation: float = 0.0


class TaoLoop:
    def __init__(
        self,
        planner: Planner,
        executor: ToolExecutor,
        *,
        observer: Observer | None = None,
        plan_validator: PlanValidator | None = None,
        config: LoopConfig | None = None,
        sinks: list[Sink] | None = None,
        tracer: Tracer | None = None,
        session_store: SessionStore | None = None,
        carry: CarryOver | None = None,
        decision: DecisionPoint | None = None,
    ) -> None:
        self.planner, self.executor = planner, executor
        self.decision = decision  # routing + bypass + fallback planner (tao.loop.intent); not for replays
        self.carry = carry  # follow-up turns (tao.loop.carryover); never applied to a replayed plan
        self.observer = observer or Observer()
        self.plan_validator = plan_validator or PlanValidator(executor.registry.args_schemas())
        self.config = config or LoopConfig()
        self.sinks, self.tracer, self.session_store = list(sinks or []), tracer, session_store

    async def run(
        self,
        request: str,
        session: SessionState | None = None,
        *,
        approver: Approver | None = None,
        headers: dict[str, str] | None = None,
        trace_id: str | None = None,
        thought_id: str | None = None,
        on_start: Callable[[Trajectory], None] | None = None,
        arg_digests: dict[str, str] | None = None,
    ) -> RunReport:
        """``on_start(trajectory)`` runs right after ``context_built`` (the A2A server logs there what
        the agent read of its conversation); transports see the run as :data:`tao.trace.scope.CURRENT_RUN`.
        ``arg_digests`` (step id → digest, :meth:`tao.trace.trajectory.Replay.arg_digests`): a replay
        from a trajectory keys each step's call by its original arguments' digest, never by the
        redacted text the trajectory stored."""
        t0 = time.perf_counter()
        deadline = time.monotonic() + self.config.wall_time_s
        session = self._session(session)
        trace_id = trace_id or uuid.uuid4().hex
        tid = thought_id or str(uuid.uuid4())
        traj = Trajectory(trace_id, tid, self.sinks, self.tracer, session.session_id)
        stages = _Stages()
        snap = load_snapshot(session.memory) if self.carry is not None else None
        carry = None
        if self.carry is not None and not isinstance(self.planner, ReplayPlanner):
            carry = self.carry.prepare(request, session, snap)
        outputs: dict = {}
        with traj.agent_span() as span, run_scope(traj, request):
            traj.emit(
                EventKind.CONTEXT_BUILT,
                request=request,
                tools=len(self.executor.registry.names()),
                session={
                    "tenant": session.tenant,
                    "session_id": session.session_id,
                    "now": session.now.isoformat() if session.now else None,
                    "timezone": session.timezone,
                },
                snapshot=Deferred(partial(snap.model_dump, mode="json")) if snap is not None else None,
                carry_over=carry.record() if carry is not None else None,
            )
            if on_start is not None:
                on_start(traj)
            pre = self._decide(carry.request if carry is not None else request, session, traj)
            plan, order, early = await self._plan(request, session, traj, stages, deadline, carry, pre)
            if early is not None:
                report = early
            else:
                assert plan is not None
                if plan.thought_id and plan.thought_id != traj.thought_id:
                    traj.set_thought_id(plan.thought_id)  # a replayed plan keeps its id (idempotency keys)
                    span.set_attribute("tao.thought_id", plan.thought_id)
                plan = plan.model_copy(
                    update={
                        "thought_id": traj.thought_id,
                        "created_at": plan.created_at or datetime.now(UTC),
                    }
                )
                runner = StepRunner(
                    self.executor,
                    self.observer,
                    self.config,
                    traj,
                    session,
                    approver,
                    headers or {},
                    deadline,
                    stages,
                )
                runner.replay_digests = dict(arg_digests or {})
                steps = await runner.run_plan(plan, order)
                outputs = runner.outputs
                report = self._final(traj, plan, steps, stages)
            report.stages_ms = {
                "thought": stages.thought,
                "action": stages.action,
                "observation": stages.observation,
                "total": (time.perf_counter() - t0) * 1000,
            }
            snap_args = self._snapshot_args(carry, request, session, report, traj, outputs)
            stored: dict[str, Any] | None = None  # the snapshot stored for the next turn
            snap_payload: dict[str, Any] | Deferred | None = None
            if snap_args is None:
                pass
            elif self.session_store is not None and session.session_id:
                stored = snap_payload = build_snapshot(snap, **snap_args).model_dump(mode="json")
            else:  # only the final event shows it: built when a sink writes it or the events are read
                snap_payload = Deferred(lambda: build_snapshot(snap, **snap_args).model_dump(mode="json"))
            traj.emit(
                EventKind.FINAL,
                status=report.status,
                error_type=report.error_type,
                answer=report.answer,
                message=report.message,
                duration_ms=report.stages_ms["total"],
                carry_over=carry.record() if carry is not None else None,
                snapshot=snap_payload,
            )
            span.set_attribute("tao.status", report.status)
            mark_error(span, report.error_type)
        report.events = traj.events
        self._snapshot(session, report, stored)
        return report

    def _session(self, session: SessionState | None) -> SessionState:
        session = session or SessionState()
        if self.session_store is not None and session.session_id:
            prev = self.session_store.get(session.tenant, session.session_id)
            if prev is not None:  # what this request set wins; memories merge (no re-validation:
                # both sides are validated sessions of plain fields)
                update = {k: getattr(session, k) for k in session.model_fields_set if k != "memory"}
                update["memory"] = {**prev.memory, **session.memory}
                session = prev.model_copy(update=update)
        return session

    def _snapshot_args(
        self,
        carry: Carry | None,
        request: str,
        session: SessionState,
        report: RunReport,
        traj: Trajectory,
        outputs: dict,
    ) -> dict[str, Any] | None:
        """The keywords of :func:`build_snapshot` for this turn (None: no carry-over, no snapshot),
        taken now, so that a snapshot built later sees this turn as it ended."""
        if self.carry is None:
            return None
        # reading traj.events builds and redacts every event: only when an open question or a
        # missing plan can use the insufficient-context payload (the lean path stays lean)
        need = bool(report.required_fields) or report.plan is None
        asked = (
            [e.payload["insufficient"] for e in traj.events if "insufficient" in e.payload] if need else []
        )
        return {
            "request": request,
            "effective_request": carry.request if carry is not None else request,
            "now": session.now.isoformat() if session.now else None,
            "plan": report.plan,
            "steps": list(report.steps),
            "outputs": dict(outputs),
            "status": str(report.status),
            "required_fields": list(report.required_fields),
            "pending_intent": asked[-1].get("intent") if asked else None,
            "carry": carry.record() if carry is not None else {},
        }

    def _snapshot(self, session: SessionState, report: RunReport, snap: dict[str, Any] | None = None) -> None:
        """Store the session after this turn; ``snap``: the turn's snapshot, already dumped (the
        final event's payload)."""
        if self.session_store is None or not session.session_id:
            return
        memory = dict(session.memory)
        if snap is not None:
            memory[MEMORY_KEY] = snap
        memory.update(
            turns=int(memory.get("turns", 0)) + 1,
            last_thought_id=report.thought_id,
            last_status=report.status,
            last_answer=report.answer,
        )
        self.session_store.put(session.model_copy(update={"memory": memory}), self.config.session_ttl_s)

    async def _plan(
        self,
        request: str,
        session: SessionState,
        traj: Trajectory,
        stages: _Stages,
        deadline: float,
        carry: Carry | None = None,
        pre: PlanningDecision | None = None,
    ) -> tuple[ThoughtPlan | None, list[str], RunReport | None]:
        strict = False
        last_error: tuple[ErrorType, str] = (ErrorType.LLM_OUTPUT_MALFORMED, "no plan")
        if pre is not None and pre.path is not PlanPath.PLAN:
            early = self._decided(pre, session, traj)
            if early is not None:
                return early
        failed = 0
        for attempt in range(1 + self.config.max_replans):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return (
                    None,
                    [],
                    self._stop(
                        traj,
                        RunStatus.FAILED,
                        ErrorType.BUDGET_EXHAUSTED,
                        "wall-time budget exhausted while planning",
                    ),
                )
            traj.emit(EventKind.MODEL_REQUEST, attempt=attempt, strict=strict, planner=self.planner.name)
            t = time.perf_counter()
            with traj.chat_span(self.planner.name) as span:
                try:
                    async with asyncio.timeout(remaining):  # in this task (wait_for made one per plan)
                        out = await self.planner.plan(
                            carry.request if carry is not None else request,
                            session,
                            tools=pre.tools
                            if pre is not None and pre.tools is not None
                            else self.executor.registry.names(),
                            strict=strict
                            or (pre is not None and pre.tools is not None),  # routed: grammar = subset
                            deadline_s=remaining,
                        )
                except TimeoutError:
                    return (
                        None,
                        [],
                        self._stop(
                            traj,
                            RunStatus.FAILED,
                            ErrorType.BUDGET_EXHAUSTED,
                            "planner missed the wall-time budget",
                        ),
                    )
                except Exception as exc:  # a crashing engine is a malformed model output, not a 500
                    out = PlanOutcome(
                        error=ErrorInfo(
                            error_type=ErrorType.LLM_OUTPUT_MALFORMED,
                            message=f"planner failed: {type(exc).__name__}: {exc}",
                        )
                    )
                for k in ("prompt_tokens", "generated_tokens"):
                    if k in out.stats:
                        span.set_attribute(
                            "gen_ai.usage." + ("input_tokens" if k == "prompt_tokens" else "output_tokens"),
                            int(out.stats[k]),
                        )
                mark_error(span, out.error.error_type.value if out.error else None)
            if carry is not None and self.carry is not None:  # complete the output from the snapshot
                got = out.output if out.error is None else None
                filled = await self.carry.settle(carry, got, self._replanner(session, deadline))
                if filled is not got:
                    out = PlanOutcome(output=filled, stats={**out.stats, "carry_over": True}, text=out.text)
            stages.thought += (time.perf_counter() - t) * 1000
            if isinstance(out.output, InsufficientContext):
                traj.emit(
                    EventKind.MODEL_RESPONSE, insufficient=out.output.model_dump(mode="json"), stats=out.stats
                )
                rep = self._stop(
                    traj,
                    RunStatus.NEEDS_USER,
                    ErrorType.INSUFFICIENT_CONTEXT,
                    "the request lacks: " + ", ".join(out.output.required_fields),
                )
                rep.required_fields = list(out.output.required_fields)
                return None, [], rep
            if out.output is None or out.error is not None:
                err = out.error
                last_error = (
                    err.error_type if err else ErrorType.LLM_OUTPUT_MALFORMED,
                    err.message if err else "no plan",
                )
                traj.emit(
                    EventKind.MODEL_RESPONSE, error=last_error[1], error_type=last_error[0], stats=out.stats
                )
            else:
                plan = out.output
                traj.emit(
                    EventKind.MODEL_RESPONSE,
                    plan=Deferred(partial(plan.model_dump, mode="json", exclude_none=True)),
                    stats=out.stats,
                )
                try:  # resolved values (time symbols, one step per day) are what the check sees
                    plan = resolve_plan(plan, session, self.executor.registry.args_schemas())
                    errors, order, et = self.plan_validator.classify(check_doc(plan))
                except ResolveError as exc:
                    errors, order, et = [str(exc)], [], ErrorType.PLAN_INVALID
                if (
                    et is None
                    and self.decision is not None
                    and len(plan.steps) > self.decision.config.max_steps
                ):
                    errors, et = (
                        [  # planner_config.yaml's bound (the contract's MAX_STEPS is the hard one)
                            f"plan has {len(plan.steps)} steps; max_steps is {self.decision.config.max_steps}"
                        ],
                        ErrorType.PLAN_INVALID,
                    )
                if et is None:
                    return plan, order, None
                last_error = (et, "; ".join(errors[:5]))
                traj.emit(
                    EventKind.ERROR,
                    error_type=et.value,
                    errors=errors[:20],
                    backend=self.plan_validator.backend,
                )
            failed += 1
            if self.decision is not None and pre is not None:
                fb = self.decision.after_failures(
                    carry.request if carry is not None else request, session, failed, pre.routing
                )
                if fb is not None:
                    traj.emit(EventKind.PLANNING_DECISION, **fb.record())
                    return self._decided(fb, session, traj) or (
                        None,
                        [],
                        self._stop(traj, RunStatus.FAILED, last_error[0], last_error[1]),
                    )
            if attempt < self.config.max_replans:
                traj.emit(
                    EventKind.CORRECTION,
                    error_type=last_error[0],
                    handler=HANDLERS.get(last_error[0], "fail"),
                    action="replan",
                    strict=True,
                )
                strict = True
        return None, [], self._stop(traj, RunStatus.FAILED, last_error[0], last_error[1])

    def _replanner(
        self, session: SessionState, deadline: float
    ) -> Callable[[str], Awaitable[ThoughtPlan | InsufficientContext | None]]:
        """Plans one session candidate of the carry-over step (tao.loop.candidates) with all tools."""

        async def replan(text: str) -> ThoughtPlan | InsufficientContext | None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                out = await asyncio.wait_for(
                    self.planner.plan(
                        text,
                        session,
                        tools=self.executor.registry.names(),
                        strict=False,
                        deadline_s=remaining,
                    ),
                    remaining,
                )
            except Exception:  # a candidate that cannot be planned is not kept
                return None
            return out.output if out.error is None else None

        return replan

    def _decide(self, request: str, session: SessionState, traj: Trajectory) -> PlanningDecision | None:
        """The planning decision of this turn (routing event + planning_decision event)."""
        if self.decision is None or isinstance(self.planner, ReplayPlanner):
            return None
        pre = self.decision.before(request, session, getattr(self.planner, "known_tools", None))
        if pre.routing is not None:
            traj.emit(EventKind.ROUTING, **pre.routing.record())
        traj.emit(EventKind.PLANNING_DECISION, **pre.record())
        return pre

    def _decided(
        self, pre: PlanningDecision, session: SessionState, traj: Trajectory
    ) -> tuple[ThoughtPlan | None, list[str], RunReport | None] | None:
        """The outcome of a decision that needs no plan model (None: plan with the model)."""
        if pre.path is PlanPath.BYPASS:
            return (
                None,
                [],
                self._stop(traj, RunStatus.FAILED, ErrorType.BUDGET_EXHAUSTED, "not planned: " + pre.reason),
            )
        if pre.path is PlanPath.UNKNOWN_TOOLS:
            return (
                None,
                [],
                self._stop(traj, RunStatus.FAILED, ErrorType.TOOL_UNKNOWN, "not planned: " + pre.reason),
            )
        out = pre.plan
        if pre.path is PlanPath.CLARIFY:
            near = [t for t, _p in (pre.routing.scores[:3] if pre.routing else ())]
            out = InsufficientContext(required_fields=["intent"])
            rep = self._stop(
                traj,
                RunStatus.NEEDS_USER,
                ErrorType.INSUFFICIENT_CONTEXT,
                "which task is meant? no tool fits clearly"
                + (" (closest: " + ", ".join(near) + ")" if near else ""),
            )
            rep.required_fields = list(out.required_fields)
            return None, [], rep
        if isinstance(out, InsufficientContext):
            rep = self._stop(
                traj,
                RunStatus.NEEDS_USER,
                ErrorType.INSUFFICIENT_CONTEXT,
                "the request lacks: " + ", ".join(out.required_fields),
            )
            rep.required_fields = list(out.required_fields)
            return None, [], rep
        if out is None:
            return None
        plan = out
        try:
            plan = resolve_plan(out, session, self.executor.registry.args_schemas())
            errors, order, et = self.plan_validator.classify(check_doc(plan))
        except ResolveError as exc:
            errors, order, et = [str(exc)], [], ErrorType.PLAN_INVALID
        if et is None:
            traj.emit(
                EventKind.MODEL_RESPONSE,
                plan=plan.model_dump(mode="json", exclude_none=True),
                stats={"rule": pre.path.value},
            )
            return plan, order, None
        traj.emit(
            EventKind.ERROR, error_type=et.value, errors=errors[:20], backend=self.plan_validator.backend
        )
        if pre.path is PlanPath.FALLBACK_PLANNER:
            return None, [], self._stop(traj, RunStatus.FAILED, et, "; ".join(errors[:5]))
        return None  # a direct step that does not check: plan with the model

    def _stop(self, traj: Trajectory, status: RunStatus, error_type: ErrorType, message: str) -> RunReport:
        traj.emit(EventKind.ERROR, error_type=error_type, message=message)
        return RunReport(
            trace_id=traj.trace_id,
            thought_id=traj.thought_id,
            status=status,
            error_type=error_type,
            answer={},
            stages_ms={},
            steps=[],
            events=[],
            message=message,
            planner=self.planner.name,
        )

    def _final(
        self, traj: Trajectory, plan: ThoughtPlan, steps: list[StepRecord], stages: _Stages
    ) -> RunReport:
        answer = {s.step_id: s.extracted for s in steps if s.status is StepStatus.OK}
        status, error_type, message = RunStatus.SUCCESS, None, "all steps succeeded"
        failing = [s for s in steps if s.status is not StepStatus.OK]
        if failing:
            root = next((s for s in failing if s.status is not StepStatus.SKIPPED), failing[0])
            worst = min(failing, key=lambda s: _RANK.get(s.status, 9))
            status = _STOP_STATUS.get(worst.status, RunStatus.FAILED)
            error_type = (worst if status is not RunStatus.FAILED else root).error_type
            message = (worst if status is not RunStatus.FAILED else root).message
        return RunReport(
            trace_id=traj.trace_id,
            thought_id=traj.thought_id,
            status=status,
            error_type=error_type,
            answer=answer,
            stages_ms={},
            steps=steps,
            events=[],
            message=message,
            plan=plan.model_dump(mode="json", exclude_none=True),
            planner=self.planner.name,
        )


_RANK = {StepStatus.NEEDS_APPROVAL: 0, StepStatus.NEEDS_USER: 1, StepStatus.FAILED: 2, StepStatus.SKIPPED: 3}
_STOP_STATUS = {
    StepStatus.NEEDS_APPROVAL: RunStatus.NEEDS_APPROVAL,
    StepStatus.NEEDS_USER: RunStatus.NEEDS_USER,
}
