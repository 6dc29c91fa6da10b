"""Trajectories: typed events (one trace id per request) to sinks, and OpenTelemetry spans.

Events (``context_built``, ``model_request``, ``model_response``, ``tool_start``, ``tool_end``,
``observation``, ``correction``, ``error``, ``final``) carry ``thought_id`` and are PII-redacted
*before* any sink sees them. :class:`JsonlSink` writes one JSON line per event; :func:`load_jsonl`
and :func:`replay` read a trace back (the recorded plan, each step's outcome, the final status).

Spans follow the OpenTelemetry GenAI semantic conventions: ``invoke_agent tao`` (root),
``chat {model}`` (planning), ``execute_tool {tool}`` with ``gen_ai.operation.name``,
``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.conversation.id``, ``error.type``, and
``tao.thought_id`` on every span. Pass a tracer (e.g. from an SDK ``TracerProvider``); the default
is the global tracer (a no-op unless the application configured one).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, overload

import orjson
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode, Tracer

from tao.contracts import EventKind, TrajectoryEvent
from tao.trace.redact import perceived_names, redact

log = logging.getLogger("tao.trajectory")
AGENT_NAME = "tao"


class Deferred:
    """A payload value computed only when its event is built (a sink writes it, or
    :attr:`Trajectory.events` is read): ``emit(..., snapshot=Deferred(make))``. ``make`` must read
    only what does not change after the call (a finished step's records, a plan), since it may
    run later; with no sink and nobody reading the events it never runs."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


class Sink(Protocol):
    def write(self, event: TrajectoryEvent) -> None: ...


@dataclass
class MemorySink:
    events: list[TrajectoryEvent] = field(default_factory=list)

    def write(self, event: TrajectoryEvent) -> None:
        self.events.append(event)


class JsonlSink:
    """Append-only JSONL file; one line per event, written under a lock (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, event: TrajectoryEvent) -> None:
        line = orjson.dumps(event.model_dump(mode="json")) + b"\n"
        with self._lock, self.path.open("ab") as fh:
            fh.write(line)


class EventList(Sequence[TrajectoryEvent]):
    """The first ``upto`` events of a trajectory, built (redacted) on first access.

    ``len()`` never builds anything: a run whose events nobody reads (no sink, a response that
    only reports their number) pays neither the event models nor the PII redaction. Compares
    equal to a list of the same events."""

    __slots__ = ("_items", "_traj", "_upto")

    def __init__(self, traj: Trajectory, upto: int) -> None:
        self._traj, self._upto = traj, upto
        self._items: list[TrajectoryEvent] | None = None

    def _list(self) -> list[TrajectoryEvent]:
        if self._items is None:
            self._items = self._traj._materialize(self._upto)
        return self._items

    def __len__(self) -> int:
        return self._upto if self._items is None else len(self._items)

    @overload
    def __getitem__(self, i: int) -> TrajectoryEvent: ...
    @overload
    def __getitem__(self, i: slice) -> list[TrajectoryEvent]: ...
    def __getitem__(self, i: int | slice) -> TrajectoryEvent | list[TrajectoryEvent]:
        return self._list()[i]

    def __iter__(self) -> Iterator[TrajectoryEvent]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventList | list | tuple):
            return self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-like, as a list

    def __repr__(self) -> str:
        return f"EventList({self._list()!r})"

    def __deepcopy__(self, memo: dict) -> list[TrajectoryEvent]:
        return [e.model_copy(deep=True) for e in self._list()]


class Trajectory:
    """The events and spans of one request."""

    def __init__(
        self,
        trace_id: str,
        thought_id: str | None,
        sinks: list[Sink] | None = None,
        tracer: Tracer | None = None,
        session_id: str | None = None,
    ) -> None:
        self.trace_id, self.thought_id, self.session_id = trace_id, thought_id, session_id
        self.sinks = list(sinks or [])
        self.tracer = tracer or _default_tracer()
        # no SDK provider behind the tracer: every span would be a non-recording no-op, so the
        # span helpers skip the OpenTelemetry calls (attributes, context attach) altogether
        self.tracing = not _noop_tracer(self.tracer)
        self._events: list[TrajectoryEvent] = []
        self._pending: list[
            tuple[
                str | None,
                int,
                datetime,
                EventKind,
                str | None,
                str | None,
                float | None,
                bytes,
                dict[str, Deferred] | None,
            ]
        ] = []
        self._seq = 0
        self._known: tuple[str, ...] = ()  # names perception found in the request
        self._lock = threading.Lock()
        # trace_id on log records is set by the server's record factory (tao.server.routes_core)
        self.log = logging.LoggerAdapter(log, {"thought_id": thought_id})

    def set_thought_id(self, thought_id: str) -> None:
        """Adopt a replayed plan's thought id (events, spans and log lines from now on)."""
        self.thought_id = thought_id
        self.log = logging.LoggerAdapter(log, {"thought_id": thought_id})

    @property
    def events(self) -> EventList:
        """The events so far, as a lazy sequence: its length is known at once, and the events
        no sink wrote are built and redacted only when one is read (then once, for good)."""
        return EventList(self, self._seq)

    @property
    def event_count(self) -> int:
        """How many events were emitted (nothing is built to count them)."""
        return self._seq

    def _materialize(self, upto: int) -> list[TrajectoryEvent]:
        with self._lock:
            pending, self._pending = self._pending, []
        done = [self._build(*rec) for rec in pending]
        with self._lock:
            if done:
                self._events.extend(done)
                self._events.sort(key=lambda e: e.seq)
            return [e for e in self._events if e.seq < upto]

    def emit(
        self,
        kind: EventKind,
        *,
        step_id: str | None = None,
        tool: str | None = None,
        duration_ms: float | None = None,
        **payload: Any,
    ) -> TrajectoryEvent | None:
        """Record one event. The payload is snapshotted now (later changes to it are not seen)
        and redacted only when a sink writes it or :attr:`events` is read: with no sink, an
        event nobody reads is never redacted. A :class:`Deferred` value is computed then too (in
        its key's place). Returns the event when a sink wrote it."""
        lazy = {k: v for k, v in payload.items() if type(v) is Deferred} or None
        raw = orjson.dumps(payload, default=_default, option=orjson.OPT_NON_STR_KEYS)
        request = payload.get("request") if kind is EventKind.CONTEXT_BUILT else None
        if isinstance(request, str) and request:
            self._known = tuple(dict.fromkeys(self._known + perceived_names(request)))
        dur = None if duration_ms is None else round(duration_ms, 3)
        with self._lock:
            rec = (self.thought_id, self._seq, datetime.now(UTC), kind, step_id, tool, dur, raw, lazy)
            self._seq += 1
            if not self.sinks:
                self._pending.append(rec)
        if log.isEnabledFor(logging.DEBUG):
            self.log.debug("%s %s %s", kind.value, step_id or "", tool or "")
        if not self.sinks:
            return None
        ev = self._build(*rec)
        with self._lock:
            self._events.append(ev)
        for sink in self.sinks:
            try:
                sink.write(ev)
            except OSError as exc:  # a full disk must not break the request
                self.log.warning("trajectory sink failed: %s", exc)
        return ev

    def _build(
        self,
        thought_id: str | None,
        seq: int,
        ts: datetime,
        kind: EventKind,
        step_id: str | None,
        tool: str | None,
        duration_ms: float | None,
        raw: bytes,
        lazy: dict[str, Deferred] | None = None,
    ) -> TrajectoryEvent:
        payload = orjson.loads(raw)
        for k, d in (lazy or {}).items():  # the JSON of what it computes, as if emitted with it
            payload[k] = orjson.loads(
                orjson.dumps(d.make(), default=_default, option=orjson.OPT_NON_STR_KEYS)
            )
        return TrajectoryEvent(
            trace_id=self.trace_id,
            thought_id=thought_id,
            seq=seq,
            ts=ts,
            kind=kind,
            step_id=step_id,
            tool=tool,
            duration_ms=duration_ms,
            payload=redact(payload, known=self._known),
        )

    def _attrs(self, operation: str, **extra: Any) -> dict[str, Any]:
        attrs = {
            "gen_ai.operation.name": operation,
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.provider.name": AGENT_NAME,
            "tao.trace_id": self.trace_id,
        }
        if self.thought_id:
            attrs["tao.thought_id"] = self.thought_id
        if self.session_id:
            attrs["gen_ai.conversation.id"] = self.session_id
        attrs.update({k: v for k, v in extra.items() if v is not None})
        return attrs

    def agent_span(self) -> contextlib.AbstractContextManager[Span]:
        return self._agent_span() if self.tracing else _NOOP_SPAN

    def chat_span(self, model: str) -> contextlib.AbstractContextManager[Span]:
        return self._chat_span(model) if self.tracing else _NOOP_SPAN

    def tool_span(
        self, tool: str, step_id: str, description: str = ""
    ) -> contextlib.AbstractContextManager[Span]:
        return self._tool_span(tool, step_id, description) if self.tracing else _NOOP_SPAN

    @contextlib.contextmanager
    def _agent_span(self) -> Iterator[Span]:
        with self.tracer.start_as_current_span(
            f"invoke_agent {AGENT_NAME}", attributes=self._attrs("invoke_agent")
        ) as span:
            yield span

    @contextlib.contextmanager
    def _chat_span(self, model: str) -> Iterator[Span]:
        with self.tracer.start_as_current_span(
            f"chat {model}", attributes=self._attrs("chat", **{"gen_ai.request.model": model})
        ) as span:
            yield span

    @contextlib.contextmanager
    def _tool_span(self, tool: str, step_id: str, description: str = "") -> Iterator[Span]:
        attrs = self._attrs(
            "execute_tool",
            **{
                "gen_ai.tool.name": tool,
                "gen_ai.tool.type": "function",
                "gen_ai.tool.call.id": f"{self.thought_id}:{step_id}",
            },
        )
        with self.tracer.start_as_current_span(f"execute_tool {tool}", attributes=attrs) as span:
            if description and span.is_recording():  # redacted only for a span that is exported
                span.set_attribute("gen_ai.tool.description", redact(description[:200], known=self._known))
            yield span


class _NoopSpanContext:
    """``with`` on it yields the invalid (non-recording) span and touches no context: what a no-op
    tracer's span amounts to, at the cost of one attribute lookup. Stateless, so shared."""

    __slots__ = ()

    def __enter__(self) -> Span:
        return trace.INVALID_SPAN

    def __exit__(self, *exc: object) -> None:
        return None


_NOOP_SPAN = _NoopSpanContext()


_PROXY_TRACER: list[Tracer] = []  # the global tracer while no provider was set (it follows one set later)


def _default_tracer() -> Tracer:
    """``trace.get_tracer("tao.loop")``; its proxy (what it returns before an SDK provider is
    set, and which delegates to one set later) is made once, not per request."""
    if _PROXY_TRACER:
        return _PROXY_TRACER[0]
    tracer = trace.get_tracer("tao.loop")
    if isinstance(tracer, trace.ProxyTracer):
        _PROXY_TRACER.append(tracer)
    return tracer


def _noop_tracer(tracer: Tracer) -> bool:
    """The tracer records nothing: OpenTelemetry's no-op tracer, or the global proxy tracer while
    no SDK provider is installed (checked per trajectory, so a provider set later is used)."""
    if isinstance(tracer, trace.NoOpTracer):
        return True
    provider = trace.get_tracer_provider()
    return isinstance(tracer, trace.ProxyTracer) and isinstance(
        provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider
    )


def mark_error(span: Span, error_type: str | None) -> None:
    if error_type and span.is_recording():
        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, error_type))


def _default(obj: Any) -> Any:
    if type(obj) is Deferred:
        return None  # its place in the payload; filled when the event is built
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    if hasattr(obj, "value"):
        return obj.value
    return str(obj)


def load_jsonl(path: str | Path, trace_id: str | None = None) -> list[TrajectoryEvent]:
    """Events of a JSONL file (optionally one trace), in file order."""
    out = []
    with Path(path).open("rb") as fh:
        for line in fh:
            if line.strip():
                ev = TrajectoryEvent.model_validate(orjson.loads(line))
                if trace_id is None or ev.trace_id == trace_id:
                    out.append(ev)
    return out


@dataclass
class Replay:
    """What a recorded trace says happened."""

    trace_id: str
    thought_id: str | None
    plan: dict[str, Any] | None
    steps: dict[str, dict[str, Any]]
    corrections: list[dict[str, Any]]
    status: str | None
    error_type: str | None
    answer: dict[str, Any]
    request: str = ""

    def arg_digests(self) -> dict[str, str]:
        """Step id → the digest of the step's original resolved arguments (its first
        ``tool_start``), for ``TaoLoop.run(..., arg_digests=)``: the arguments themselves were
        stored redacted, so only the digest gives the replay the original idempotency key."""
        return {sid: d for sid, st in self.steps.items() if isinstance(d := st.get("args_digest"), str)}

    def replay_plan(self) -> dict[str, Any]:
        """The recorded plan with its thought id, for a :class:`~tao.loop.planner.ReplayPlanner`
        (same thought id, so the idempotency keys match and a re-run does not repeat side effects
        at a keyed service). The trace layer sits below the loop, so it hands back data only."""
        if self.plan is None:
            raise ValueError(f"trace {self.trace_id} has no recorded plan")
        return dict(self.plan, thought_id=self.thought_id)


def replay(events: list[TrajectoryEvent]) -> Replay:
    """Fold a trace's events back into the run they record (plan, step outcomes, final status)."""
    if not events:
        raise ValueError("no events to replay")
    evs = sorted(events, key=lambda e: e.seq)
    plan, steps, corrections, final, request = None, {}, [], {}, ""
    for ev in evs:
        if ev.kind is EventKind.CONTEXT_BUILT:
            request = ev.payload.get("request", "")
        elif ev.kind is EventKind.MODEL_RESPONSE and ev.payload.get("plan"):
            plan = ev.payload["plan"]
        elif ev.kind is EventKind.TOOL_START and ev.step_id:
            st = steps.setdefault(ev.step_id, {})
            if "args_digest" not in st and not ev.payload.get("attempt_tag"):
                st["args_digest"] = ev.payload.get("args_digest")
        elif ev.kind is EventKind.TOOL_END and ev.step_id:
            steps.setdefault(ev.step_id, {})["result"] = ev.payload
        elif ev.kind is EventKind.OBSERVATION and ev.step_id:
            steps.setdefault(ev.step_id, {})["observation"] = ev.payload
        elif ev.kind is EventKind.CORRECTION:
            corrections.append({"step_id": ev.step_id, **ev.payload})
        elif ev.kind is EventKind.FINAL:
            final = ev.payload
    return Replay(
        trace_id=evs[0].trace_id,
        thought_id=evs[-1].thought_id,
        plan=plan,
        steps=steps,
        corrections=corrections,
        status=final.get("status"),
        error_type=final.get("error_type"),
        answer=final.get("answer", {}),
        request=request,
    )
