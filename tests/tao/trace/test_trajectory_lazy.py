"""The lean request path: with no sink and no exporting tracer, a run builds no event models and
redacts nothing; its events are built (and redacted, once) only when someone reads them."""

from __future__ import annotations

from action_helpers import demo_session, make_executor, plan
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tao.contracts import EventKind
from tao.loop.loop import LoopConfig, TaoLoop
from tao.loop.planner import ReplayPlanner
from tao.trace import trajectory as trajectory_mod
from tao.trace.trajectory import EventList, MemorySink

TWO_STEPS = plan(
    ("t1", "list_orders", {"user_id": "U00000001", "period": "@last_month"}),
    ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
    intent="order_status",
)
REQUEST = "查询上个月的订单状态，联系邮箱 li.na@example.com"


def _loop(ex, **kw) -> TaoLoop:
    return TaoLoop(ReplayPlanner(TWO_STEPS), ex, config=LoopConfig(retry_jitter_s=(0.005, 0.02)), **kw)


class _CountingRedact:
    def __init__(self, real) -> None:
        self.real, self.calls = real, 0

    def __call__(self, *a, **kw):
        self.calls += 1
        return self.real(*a, **kw)


async def test_no_sink_means_no_event_building_and_no_redaction(mock_tools, monkeypatch) -> None:
    counting = _CountingRedact(trajectory_mod.redact)
    monkeypatch.setattr(trajectory_mod, "redact", counting)
    built = []
    real_build = trajectory_mod.Trajectory._build
    monkeypatch.setattr(
        trajectory_mod.Trajectory, "_build", lambda self, *rec: built.append(rec) or real_build(self, *rec)
    )
    ex = make_executor(mock_tools.url)
    rep = await _loop(ex).run(REQUEST, demo_session())
    out = rep.to_dict()  # what POST /v1/run returns
    assert rep.status == "success" and out["events"] >= 8
    assert isinstance(rep.events, EventList) and len(rep.events) == out["events"]
    assert counting.calls == 0 and built == []  # nothing built, nothing redacted on the request path
    # reading them builds and redacts them, once
    events = list(rep.events)
    assert len(events) == out["events"] and [e.seq for e in events] == list(range(len(events)))
    assert events[0].kind is EventKind.CONTEXT_BUILT and events[-1].kind is EventKind.FINAL
    assert "li.na@example.com" not in events[0].payload["request"]  # redacted as ever
    n_built, n_redact = len(built), counting.calls
    assert n_built == len(events) and n_redact > 0
    assert rep.events == events and rep.events[1] == events[1] and rep.events[-2:] == events[-2:]
    assert len(built) == n_built and counting.calls == n_redact  # not built a second time
    await ex.aclose()


async def test_lazy_events_equal_what_a_sink_receives(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    sink = MemorySink()
    with_sink = await _loop(ex, sinks=[sink]).run(REQUEST, demo_session())
    lazy = await _loop(ex).run(REQUEST, demo_session())
    await ex.aclose()

    def shape(evs):
        return [(e.seq, e.kind, e.step_id, e.tool, sorted(e.payload)) for e in evs]

    assert shape(lazy.events) == shape(sink.events) == shape(with_sink.events)
    assert with_sink.to_dict()["events"] == lazy.to_dict()["events"]
    sent = next(e.payload for e in sink.events if e.kind is EventKind.CONTEXT_BUILT)
    read = next(e.payload for e in lazy.events if e.kind is EventKind.CONTEXT_BUILT)
    assert sent["request"] == read["request"] and "li.na@example.com" not in read["request"]


async def test_event_list_is_a_snapshot_of_its_moment() -> None:
    traj = trajectory_mod.Trajectory("t" * 32, "th-1")
    traj.emit(EventKind.CONTEXT_BUILT, request="a")
    first = traj.events
    traj.emit(EventKind.FINAL, status="success")
    assert len(first) == 1 and [e.kind for e in first] == [EventKind.CONTEXT_BUILT]
    assert [e.kind for e in traj.events] == [EventKind.CONTEXT_BUILT, EventKind.FINAL]
    assert traj.event_count == 2


async def test_tool_description_is_redacted_only_for_an_exported_span(mock_tools, monkeypatch) -> None:
    counting = _CountingRedact(trajectory_mod.redact)
    monkeypatch.setattr(trajectory_mod, "redact", counting)
    ex = make_executor(mock_tools.url)
    await _loop(ex).run(REQUEST, demo_session())  # the global (no-op) tracer
    assert counting.calls == 0
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    rep = await _loop(ex, tracer=provider.get_tracer("test")).run(REQUEST, demo_session())
    await ex.aclose()
    tools = [s for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")]
    assert rep.status == "success" and len(tools) == 2
    assert all((s.attributes or {}).get("gen_ai.tool.description") for s in tools) and counting.calls >= 2
    provider.shutdown()


async def test_deferred_value_is_computed_only_when_its_event_is_built() -> None:
    calls: list[int] = []

    def make() -> dict:
        calls.append(1)
        return {"status": EventKind.FINAL, "n": 1}

    traj = trajectory_mod.Trajectory("t" * 32, "th-1")
    traj.emit(EventKind.FINAL, first=1, snapshot=trajectory_mod.Deferred(make), last=2)
    assert calls == []  # nobody has read the event
    (ev,) = traj.events
    assert calls == [1] and list(ev.payload) == ["first", "snapshot", "last"]  # in its key's place
    assert ev.payload["snapshot"] == {"status": "final", "n": 1}  # JSON, as if emitted with it
    sink = MemorySink()
    eager = trajectory_mod.Trajectory("t" * 32, "th-1", [sink])
    eager.emit(EventKind.FINAL, snapshot=trajectory_mod.Deferred(make))
    assert calls == [1, 1] and sink.events[0].payload["snapshot"] == ev.payload["snapshot"]


async def test_carry_over_snapshot_is_built_only_for_a_reader(mock_tools, monkeypatch) -> None:
    from tao.action.registry import ToolRegistry
    from tao.domains.reference.registry import reference_tools
    from tao.loop import loop as loop_mod
    from tao.loop.carryover import CarryOver

    reg = ToolRegistry()
    reg.register_http(reference_tools(), mock_tools.url)
    carry = CarryOver(reg.args_schemas())
    built: list[int] = []
    real = loop_mod.build_snapshot
    monkeypatch.setattr(loop_mod, "build_snapshot", lambda *a, **kw: built.append(1) or real(*a, **kw))
    ex = make_executor(mock_tools.url)
    sink = MemorySink()
    with_sink = await _loop(ex, sinks=[sink], carry=carry).run(REQUEST, demo_session())
    assert len(built) == 1  # the sink's final event has it
    lazy = await _loop(ex, carry=carry).run(REQUEST, demo_session())
    assert len(built) == 1 and lazy.status == with_sink.status == "success"  # nobody read it yet
    await ex.aclose()
    final = lazy.events[-1].payload  # read: built now, the same as the sink received
    assert len(built) == 2 and final["snapshot"] == sink.events[-1].payload["snapshot"]
    assert final["snapshot"]["steps"][0]["tool"] == "list_orders"
    for kind in (EventKind.MODEL_RESPONSE, EventKind.OBSERVATION):
        sent = [e.payload for e in sink.events if e.kind is kind]
        read = [e.payload for e in lazy.events if e.kind is kind]
        assert sent == read and sent  # the plan and the audit trail, deferred as well
