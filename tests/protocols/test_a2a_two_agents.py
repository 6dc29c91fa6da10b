"""Two real `tao serve` processes on loopback, one delegating to the other over A2A.

A (coordinator) serves the reference domain and has B as a tool (``TAO_A2A_AGENTS``); B serves a
small help-desk test domain (tests/protocols/helpdesk_domain.py). Neither has a plan model
(``--no-model``): the plans are replayed (a data part ``{"plan": …}``; A's plan carries B's
sub-plans as JSON text), because no trained model plans a delegation. The caller is the
official a2a-sdk client. Checked: the delegation end to end, one trace id across both
trajectories, every message read inside its reader's parent chain (siblings and a concurrent
conversation are in B's store, never read), the blackboard's logged write and read, typed
refusals (envelope version, depth, A2A version), the 0.3 method names and streaming.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import httpx
import orjson
import pytest
from a2a import types as a2a
from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.utils.errors import InvalidParamsError
from google.protobuf.json_format import MessageToDict
from serve_helpers import ServeProcess, wait_http

from tao.contracts.envelope import ENVELOPE_KEY

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]  # two servers start inside the first test
HERE = Path(__file__).resolve().parent


def _plan(intent: str, *steps: tuple) -> dict:
    return {
        "version": "1.0",
        "intent": intent,
        "steps": [
            {
                "step_id": s[0],
                "tool": s[1],
                "arguments": s[2],
                "dependencies": list(s[3]) if len(s) > 3 else [],
            }
            for s in steps
        ],
    }


CREATE = _plan(
    "open_ticket", ("t1", "create_ticket", {"summary": "the printer on floor 3 jams", "priority": "high"})
)
STATUS = _plan("ticket_status", ("t1", "get_ticket", {"ticket_id": "${bb.ticket_id}"}))
OPEN = _plan("open_tickets", ("t1", "list_open_tickets", {}))
COORDINATOR = _plan(
    "printer_help",
    ("t1", "get_weather", {"city": "北京", "date": "@tomorrow"}),  # A's own domain
    (
        "t2",
        "helpdesk",
        {"request": "open a ticket: the printer jams", "plan": json.dumps(CREATE), "publish": ["ticket_id"]},
    ),
    ("t3", "helpdesk", {"request": "status of the ticket just opened", "plan": json.dumps(STATUS)}, ["t2"]),
    ("t4", "helpdesk", {"request": "which tickets are open?", "plan": json.dumps(OPEN)}),  # a sibling of t2
)


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("a2a")
    b = ServeProcess(
        ["--no-model", "--registry", "helpdesk_domain:domain"],
        tmp / "b.log",
        env={"PYTHONPATH": str(HERE), "TAO_TRAJECTORY_PATH": str(tmp / "b.jsonl"), "TAO_API_KEY": ""},
    )
    a = None
    try:
        wait_http(b.base + "/healthz", 180, b.proc)
        a = ServeProcess(
            ["--no-model"],
            tmp / "a.log",
            env={
                "TAO_A2A_AGENTS": f"helpdesk={b.base}",
                "TAO_TRAJECTORY_PATH": str(tmp / "a.jsonl"),
                "TAO_API_KEY": "",
            },
        )
        wait_http(a.base + "/healthz", 180, a.proc)
        yield a, b, tmp
    finally:
        if a is not None:
            a.stop()
        b.stop()


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def _send(
    base: str,
    text: str,
    plan: dict | None,
    *,
    trace_id: str | None = None,
    metadata=None,
    streaming: bool = False,
) -> list[a2a.StreamResponse]:
    async with httpx.AsyncClient(timeout=60) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create(card)
        parts = [a2a.Part(text=text)]
        if plan is not None:
            p = a2a.Part(media_type="application/json")
            p.data.struct_value.update({"plan": plan})
            parts.append(p)
        msg = a2a.Message(message_id=uuid.uuid4().hex, role=a2a.Role.ROLE_USER, parts=parts)
        if metadata:
            msg.metadata.update(metadata)
        headers = {"traceparent": f"00-{trace_id}-{'1' * 16}-01"} if trace_id else {}
        ctx = ClientCallContext(service_parameters=headers, timeout=60)
        return [ev async for ev in client.send_message(a2a.SendMessageRequest(message=msg), context=ctx)]


def _artifact(task: a2a.Task) -> dict:
    for art in task.artifacts:
        for p in art.parts:
            if p.HasField("data"):
                return MessageToDict(p.data)
    raise AssertionError("no data artifact")


def test_delegation_one_trace_isolated_chains_and_the_blackboard(agents):
    a, _b, tmp = agents
    traces = [uuid.uuid4().hex for _ in range(2)]

    async def both():  # two conversations at once: B's store holds both, plus siblings in each
        return await asyncio.gather(
            *(
                _send(a.base, "my printer jams: open a ticket, tell me its status", COORDINATOR, trace_id=t)
                for t in traces
            )
        )

    runs = asyncio.run(both())
    a_events, b_events = _events(tmp / "a.jsonl"), _events(tmp / "b.jsonl")
    expected_chain: dict[str, set[str]] = {}  # B's sub-task -> the tasks of its parent chain
    for trace, evs in zip(traces, runs, strict=True):
        task = evs[-1].task
        assert a2a.TaskState.Name(task.status.state) == "TASK_STATE_COMPLETED", _artifact(task)
        art = _artifact(task)
        assert art["status"] == "success" and art["trace_id"] == trace  # the caller's trace id, kept
        answer = art["answer"]
        ticket = answer["t2"]["answer"]["t1"]["ticket_id"]
        assert answer["t3"]["answer"]["t1"]["ticket_id"] == ticket  # read from the blackboard on B
        assert answer["t3"]["answer"]["t1"]["summary"] == "the printer on floor 3 jams"
        assert ticket in answer["t4"]["answer"]["t1"]["tickets"] or answer["t4"]["answer"]["t1"]["count"] >= 1
        assert answer.get("t1")  # A's own tool ran too
        subs = {answer[s]["task_id"] for s in ("t2", "t3", "t4")}
        assert len(subs) == 3
        for s in subs:
            expected_chain[s] = {task.id, s}
        # one trace id across both trajectories: every event of this run, on A and on B
        a_run = [e for e in a_events if e["trace_id"] == trace]
        b_run = [e for e in b_events if e["trace_id"] == trace]
        assert {e["kind"] for e in a_run} >= {"context_built", "tool_end", "final", "blackboard_write"}
        assert sum(e["kind"] == "final" for e in b_run) == 3  # B ran the three sub-tasks under it
        assert {e["payload"].get("reader_task_id") for e in b_run if e["kind"] == "message_read"} == subs
        # blackboard: B's create task wrote ticket_id, A applied it, B's status task read it
        writes_b = [e for e in b_run if e["kind"] == "blackboard_write"]
        assert [(e["payload"]["key"], e["payload"]["reader_task_id"]) for e in writes_b] == [
            ("ticket_id", answer["t2"]["task_id"])
        ]
        writes_a = [e for e in a_run if e["kind"] == "blackboard_write"]
        assert [(e["payload"]["key"], e["step_id"]) for e in writes_a] == [("ticket_id", "t2")]
        reads = [e for e in b_run if e["kind"] == "blackboard_read"]
        assert [
            (e["payload"]["key"], e["payload"]["reader_task_id"], e["payload"]["found"]) for e in reads
        ] == [("ticket_id", answer["t3"]["task_id"], True)]
    # isolation over everything B read: 0 messages outside their reader's chain
    reads = [e["payload"] for e in b_events if e["kind"] == "message_read"]
    assert len(reads) == 2 * 3 * 2  # 2 conversations x 3 sub-tasks x (root + own message)
    outside = [r for r in reads if r["message_task_id"] not in expected_chain[r["reader_task_id"]]]
    assert outside == []
    conversations = {r["conversation_id"] for r in reads}
    assert len(conversations) == 2  # the siblings and the other conversation were there to be read
    # the coordinator read only its own message (it is the root of each conversation)
    a_reads = [e["payload"] for e in a_events if e["kind"] == "message_read"]
    assert len(a_reads) == 2 and all(r["message_task_id"] == r["reader_task_id"] for r in a_reads)


def test_refusals_are_typed(agents):
    _, b, _ = agents
    env = {"schema": "tao.a2a.envelope/2.0", "conversation_id": "c", "sender": "x"}
    with pytest.raises(InvalidParamsError) as ei:
        asyncio.run(_send(b.base, "hello", OPEN, metadata={ENVELOPE_KEY: env}))
    assert "tao.a2a.envelope/1.x" in ei.value.message
    assert ei.value.data and ei.value.data["error_type"] == "EnvelopeVersionError"
    assert ei.value.data["received"] == "tao.a2a.envelope/2.0"
    deep = {"schema": "tao.a2a.envelope/1.0", "conversation_id": "c", "sender": "x", "depth": 9}
    with pytest.raises(InvalidParamsError, match="delegation depth 9 exceeds 4"):
        asyncio.run(_send(b.base, "hello", OPEN, metadata={ENVELOPE_KEY: deep}))
    broken = {"schema": "tao.a2a.envelope/1.0", "conversation_id": "c", "sender": "x", "parent_task_id": "t9"}
    with pytest.raises(InvalidParamsError, match="not the last task of the chain"):
        asyncio.run(_send(b.base, "hello", OPEN, metadata={ENVELOPE_KEY: broken}))
    # the A2A protocol version itself: the SDK server refuses a 2.0 client
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}},
    }
    r = httpx.post(b.base + "/v1/a2a", json=body, headers={"A2A-Version": "2.0"}, timeout=30)
    assert r.json()["error"]["code"] == -32009 and "2.0" in r.json()["error"]["message"]


def test_remote_failure_and_unknown_tool_reach_the_coordinator_typed(agents):
    a, _, _ = agents
    bad_sub = _plan("lookup", ("t1", "get_ticket", {"ticket_id": "TCK999999"}))  # B answers 404
    plan = _plan(
        "delegate_lookup", ("t1", "helpdesk", {"request": "look up a ticket", "plan": json.dumps(bad_sub)})
    )
    task = asyncio.run(_send(a.base, "look up ticket TCK999999", plan))[-1].task
    art = _artifact(task)
    assert a2a.TaskState.Name(task.status.state) == "TASK_STATE_FAILED"
    assert art["steps"], art
    step = art["steps"][0]
    assert step["tool"] == "helpdesk" and step["error_type"] == "TOOL_CLIENT_ERROR"
    assert "404" in step["message"] or "not found" in step["message"], step
    # an argument the delegation contract does not take: the plan check refuses it, nothing is sent
    plan = _plan("delegate_lookup", ("t1", "helpdesk", {"request": "x", "priority": "high"}))
    art = _artifact(asyncio.run(_send(a.base, "x", plan))[-1].task)
    assert art["error_type"] == "PLAN_INVALID" and art["steps"] == []


def test_v03_method_names_and_streaming(agents):
    _, b, _ = agents
    body = {
        "jsonrpc": "2.0",
        "id": "r1",
        "method": "message/send",
        "params": {
            "message": {
                "messageId": "m03",
                "role": "user",
                "kind": "message",
                "parts": [
                    {"kind": "text", "text": "which tickets are open?"},
                    {"kind": "data", "data": {"plan": OPEN}},
                ],
            }
        },
    }
    r = httpx.post(
        b.base + "/v1/a2a",
        content=orjson.dumps(body),
        headers={"content-type": "application/json"},
        timeout=30,
    )
    result = r.json()["result"]
    assert result["kind"] == "task" and result["status"]["state"] == "completed"
    data = next(p["data"] for art in result["artifacts"] for p in art["parts"] if p.get("kind") == "data")
    assert data["status"] == "success" and "TCK000001" in data["answer"]["t1"]["tickets"]
    events = asyncio.run(_send(b.base, "which tickets are open?", OPEN, streaming=True))
    kinds = [ev.WhichOneof("payload") for ev in events]
    assert kinds[0] == "task" and "artifact_update" in kinds and kinds[-1] == "status_update"
    assert a2a.TaskState.Name(events[-1].status_update.status.state) == "TASK_STATE_COMPLETED"


def test_the_card_is_what_is_served(agents):
    a, b, _ = agents
    card = httpx.get(b.base + "/.well-known/agent-card.json").json()
    (iface,) = card["supportedInterfaces"]
    assert iface == {"url": b.base + "/v1/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    assert card["capabilities"]["streaming"] is True
    assert {s["id"] for s in card["skills"]} == {"create_ticket", "get_ticket", "list_open_tickets"}
    tools = httpx.get(a.base + "/v1/tools").json()["tools"]
    hd = next(t for t in tools if t["name"] == "helpdesk")
    assert hd["transport"] == "a2a" and hd["permission"] == "write" and hd["domain"] == "a2a:helpdesk"


def test_the_transport_maps_refusals_and_outages_to_typed_results(agents):
    """The coordinator's side of a refusal: the executor's ActionResult, typed, with the reason."""
    from tao.action.a2a_context import CONVERSATION, Conversation
    from tao.action.a2a_tools import A2AConnection, AgentSource, CardCache, spec_of
    from tao.action.http_tools import CallContext
    from tao.contracts import ErrorType
    from tao.contracts.envelope import ChainMessage

    _, b, _ = agents
    deep = Conversation(
        "c-deep", "t6", "coord", [ChainMessage(message_id="m", task_id="t6", sender="u")], depth=6
    )

    async def go(url: str, max_depth: int):
        conn = A2AConnection(AgentSource(url, "helpdesk"), cache=CardCache(60), max_depth=max_depth)
        token = CONVERSATION.set(deep)
        try:
            spec = spec_of(CardCache(60).get_sync(b.base), conn.source)  # the contract: B's card
            return await conn.call(
                spec, {"request": "x", "plan": OPEN}, CallContext(request_id="r1", timeout_s=20)
            )
        finally:
            CONVERSATION.reset(token)
            await conn.aclose()

    refused = asyncio.run(go(b.base, max_depth=10))  # the client lets it go, the server refuses
    info = refused.error_info
    assert info is not None and info.error_type is ErrorType.TOOL_CLIENT_ERROR and refused.status_code == 400
    assert "delegation depth 7 exceeds 4" in info.message and info.expected == "<= 4" and info.received == "7"
    local = asyncio.run(go(b.base, max_depth=4)).error_info  # refused before sending
    assert local is not None and local.error_type is ErrorType.PERMISSION_DENIED
    from serve_helpers import free_port

    gone = asyncio.run(go(f"http://127.0.0.1:{free_port()}", max_depth=10)).error_info  # nobody listens
    assert gone is not None and gone.error_type is ErrorType.TOOL_TRANSIENT and gone.retryable


def test_a_run_over_http_is_the_root_of_its_conversation(agents):
    """POST /v1/run on A (no A2A caller): its request is the root message, its trace id goes on."""
    a, _, tmp = agents
    plan = _plan(
        "open_tickets_remote", ("t1", "helpdesk", {"request": "open tickets?", "plan": json.dumps(OPEN)})
    )
    r = httpx.post(a.base + "/v1/run", json={"request": "which tickets are open?", "plan": plan}, timeout=60)
    body = r.json()
    assert r.status_code == 200 and body["status"] == "success", body
    trace = r.headers["x-trace-id"]
    assert body["trace_id"] == trace
    sub = body["answer"]["t1"]["task_id"]
    b_run = [e for e in _events(tmp / "b.jsonl") if e["trace_id"] == trace]
    reads = [e["payload"] for e in b_run if e["kind"] == "message_read"]
    assert [(p["message_task_id"], p["sender"]) for p in reads] == [
        (f"run-{body['thought_id']}", "user"),
        (sub, "tao"),
    ]
    assert sum(e["kind"] == "final" for e in b_run) == 1
