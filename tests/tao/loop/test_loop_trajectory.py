"""Trajectories: JSONL events that replay, OpenTelemetry GenAI spans with thought_id everywhere,
and no unredacted PII from the labelled corpus in anything written."""

from __future__ import annotations

import logging

import pytest
from action_helpers import demo_session, load_jsonl, make_executor, make_loop, plan
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tao.contracts import EventKind
from tao.trace.redact import redact
from tao.trace.trajectory import JsonlSink, replay
from tao.trace.trajectory import load_jsonl as load_events

CORPUS = load_jsonl("pii_corpus.jsonl")
ALL_PII = [p for r in CORPUS for p in r["pii"]]


def tracer_and_exporter():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter, provider


DEMO = plan(
    ("t1", "list_orders", {"user_id": "U00000001", "period": "@last_month"}),
    ("t2", "get_order_status", {"order_id": "${t1.order_id}"}, ["t1"]),
    ("t3", "get_user_profile", {"user_id": "U00000001"}),
    intent="order_status",
)


async def test_jsonl_sink_and_replay(mock_tools, tmp_path) -> None:
    path = tmp_path / "traj.jsonl"
    ex = make_executor(mock_tools.url)
    mock_tools.script("500", tools=["get_order_status"])
    loop, mem = make_loop(ex, DEMO, sinks=[JsonlSink(path)])
    rep = await loop.run("查询上个月的订单状态", demo_session())
    other = await make_loop(ex, plan(("t1", "get_weather", {"city": "北京"})), sinks=[JsonlSink(path)])[
        0
    ].run("天气", demo_session())
    await ex.aclose()
    events = load_events(path, rep.trace_id)
    assert [e.model_dump() for e in events] == [e.model_dump() for e in mem.events]
    assert len(load_events(path)) == len(events) + len(other.events)
    kinds = {e.kind for e in events}
    assert {
        EventKind.CONTEXT_BUILT,
        EventKind.MODEL_REQUEST,
        EventKind.MODEL_RESPONSE,
        EventKind.TOOL_START,
        EventKind.TOOL_END,
        EventKind.OBSERVATION,
        EventKind.FINAL,
    } <= kinds
    assert [e.seq for e in events] == list(range(len(events)))
    assert all(e.thought_id == rep.thought_id and e.trace_id == rep.trace_id for e in events)
    r = replay(events)
    assert r.status == rep.status == "success" and r.answer == redact(rep.answer)  # written redacted
    assert r.answer["t3"]["email"] == "[REDACTED:EMAIL]" and rep.answer["t3"]["email"].endswith(
        "@example.com"
    )
    assert [s["step_id"] for s in r.plan["steps"]] == ["t1", "t2", "t3"]
    assert set(r.steps) == {"t1", "t2", "t3"} and r.steps["t2"]["observation"]["valid"] is True
    assert r.steps["t1"]["result"]["data"]["count"] == rep.answer["t1"]["count"]
    # get_order_status failed once (500) and was retried inside the executor: 2 attempts recorded
    assert r.steps["t2"]["result"]["attempts"] == 2


async def test_spans_follow_genai_conventions(mock_tools) -> None:
    tracer, exporter, provider = tracer_and_exporter()
    ex = make_executor(mock_tools.url)
    loop, _ = make_loop(ex, DEMO, tracer=tracer)
    rep = await loop.run("查询上个月的订单状态", demo_session(session_id="s-1"))
    bad, _ = make_loop(
        ex, plan(("t1", "get_order_status", {"order_id": "209901010000000000"})), tracer=tracer
    )
    rep_bad = await bad.run("x", demo_session())
    await ex.aclose()
    spans = exporter.get_finished_spans()
    mine = [s for s in spans if s.attributes.get("tao.trace_id") == rep.trace_id]
    names = sorted(s.name for s in mine)
    assert names == sorted(
        [
            "invoke_agent tao",
            "chat replay",
            "execute_tool list_orders",
            "execute_tool get_order_status",
            "execute_tool get_user_profile",
        ]
    )
    root = next(s for s in mine if s.name == "invoke_agent tao")
    for s in mine:
        assert s.attributes["tao.thought_id"] == rep.thought_id
        assert s.attributes["gen_ai.operation.name"] in ("invoke_agent", "chat", "execute_tool")
        assert s.attributes["gen_ai.conversation.id"] == "s-1"
        assert s.context.trace_id == root.context.trace_id
        if s is not root:
            assert s.parent.span_id == root.context.span_id
    tool = next(s for s in mine if s.name == "execute_tool list_orders")
    assert tool.attributes["gen_ai.tool.name"] == "list_orders"
    assert tool.attributes["gen_ai.tool.call.id"] == f"{rep.thought_id}:t1"
    assert root.attributes["tao.status"] == "success"
    failed = [
        s
        for s in spans
        if s.attributes.get("tao.trace_id") == rep_bad.trace_id and s.name.startswith("execute_tool")
    ]
    assert failed[0].attributes["error.type"] == "TOOL_CLIENT_ERROR"
    # the W3C trace context of the execute_tool span reached the tool service
    tp = mock_tools.stats()["last_headers"]["get_order_status"]["traceparent"]
    assert tp.split("-")[1] == format(failed[0].context.trace_id, "032x")
    provider.shutdown()


@pytest.mark.slow
async def test_no_unredacted_pii_is_written(mock_tools, tmp_path, caplog) -> None:
    path = tmp_path / "pii.jsonl"
    tracer, exporter, provider = tracer_and_exporter()
    ex = make_executor(mock_tools.url)
    texts = [r["text"] for r in CORPUS]
    caplog.set_level(logging.DEBUG, logger="tao")
    reports = []
    for i in range(0, len(texts), 10):
        chunk = " | ".join(texts[i : i + 10])
        # PII in the request, in tool results (patched fields) and in the user's real profile data
        mock_tools.patch("get_user_profile", {"note": chunk, "address": texts[i]})
        loop, _ = make_loop(
            ex,
            plan(
                ("t1", "get_user_profile", {"user_id": "U00000004"}),
                ("t2", "list_orders", {"user_id": "${t1.user_id}"}, ["t1"]),
            ),
            sinks=[JsonlSink(path)],
            tracer=tracer,
        )
        reports.append(await loop.run(chunk, demo_session()))
    await ex.aclose()
    written = path.read_text(encoding="utf-8")
    assert all(r.status == "success" for r in reports)
    profile = mock_tools.data.users["U00000004"]
    leaks = [p for p in [*ALL_PII, profile["email"], profile["phone"]] if p in written]
    assert leaks == []
    assert "[REDACTED:EMAIL]" in written and "[REDACTED:CN_ID]" in written and "[REDACTED:API_KEY]" in written
    span_text = " ".join(str(dict(s.attributes)) for s in exporter.get_finished_spans())
    assert [p for p in ALL_PII if p in span_text] == []
    # every trajectory log line carries the thought id
    recs = [r for r in caplog.records if r.name == "tao.trajectory"]
    assert recs and {r.thought_id for r in recs} <= {rep.thought_id for rep in reports}
    assert [p for p in ALL_PII if any(p in r.getMessage() for r in recs)] == []
    provider.shutdown()
