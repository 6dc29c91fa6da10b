"""The A2A transport against a keyed agent and an agent that goes away after its card was cached
(an in-thread `tao serve` app with the help-desk test domain)."""

from __future__ import annotations

import asyncio

import httpx
from serve_helpers import ThreadServer

from tao.action.a2a_tools import A2AConnection, AgentSource, CardCache, spec_of
from tao.action.http_tools import CallContext
from tao.contracts import ErrorType
from tao.server.app import create_app
from tao.server.config import ServerConfig

LIST = {"version": "1.0", "intent": "open_tickets", "steps": [{"step_id": "t1", "tool": "list_open_tickets"}]}


def _call(conn: A2AConnection, spec) -> object:
    async def go():
        try:
            return await conn.call(
                spec, {"request": "open tickets?", "plan": LIST}, CallContext("r", timeout_s=20)
            )
        finally:
            await conn.aclose()

    return asyncio.run(go())


def test_keyed_agent_and_an_outage_after_the_card_was_cached():
    cfg = ServerConfig(load_model=False, api_key="k", registry="helpdesk_domain:domain")
    srv = ThreadServer(create_app(cfg))
    with srv:
        card = httpx.get(srv.base + "/.well-known/agent-card.json").json()
        assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
        assert card["securityRequirements"] == [{"schemes": {"bearer": {}}}]
        cache = CardCache(ttl_s=600)
        src = AgentSource(srv.base, "helpdesk")
        spec = spec_of(cache.get_sync(srv.base), src)
        no_key = _call(A2AConnection(src, cache=cache, api_key=None), spec).error_info
        assert no_key is not None and no_key.error_type is ErrorType.TOOL_CLIENT_ERROR
        assert "refused our credentials (HTTP 401" in no_key.message and not no_key.retryable
        ok = _call(A2AConnection(src, cache=cache, api_key="k"), spec)
        assert ok.error_info is None and ok.status_code == 200
        assert ok.parsed_data["status"] == "success" and ok.parsed_data["answer"]["t1"]["count"] >= 1
    gone = _call(A2AConnection(src, cache=cache, api_key="k"), spec).error_info  # card still cached
    assert gone is not None and gone.error_type is ErrorType.TOOL_TRANSIENT and gone.retryable


def test_a_repeated_sub_task_is_answered_not_run_twice():
    """The same idempotency key from the same sender in one conversation: one ticket, two answers."""
    import uuid

    from a2a import types as a2a
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from google.protobuf.json_format import MessageToDict

    create = {
        "version": "1.0",
        "intent": "open_ticket",
        "steps": [{"step_id": "t1", "tool": "create_ticket", "arguments": {"summary": "broken screen"}}],
    }

    async def send(key: str, plan: dict) -> dict:
        async with httpx.AsyncClient(timeout=30) as http:
            card = await A2ACardResolver(http, srv.base).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
            p = a2a.Part(media_type="application/json")
            p.data.struct_value.update({"plan": plan})
            msg = a2a.Message(
                message_id=uuid.uuid4().hex, role=a2a.Role.ROLE_USER, parts=[a2a.Part(text="open one"), p]
            )
            msg.metadata.update(
                {
                    "tao.runtime/envelope": {
                        "schema": "tao.a2a.envelope/1.0",
                        "conversation_id": "c1",
                        "sender": "s",
                    },
                    "tao.runtime/idempotency-key": key,
                }
            )
            ev = [e async for e in client.send_message(a2a.SendMessageRequest(message=msg))][-1]
            return next(
                MessageToDict(x.data) for art in ev.task.artifacts for x in art.parts if x.HasField("data")
            )

    srv = ThreadServer(create_app(ServerConfig(load_model=False, registry="helpdesk_domain:domain")))
    with srv:
        first, again = asyncio.run(send("k1", create)), asyncio.run(send("k1", create))
        other = asyncio.run(send("k2", create))
        listing = asyncio.run(send("k3", LIST))
    t1 = first["answer"]["t1"]["ticket_id"]
    assert again["answer"]["t1"]["ticket_id"] == t1 and again.get("deduplicated") is True
    assert "deduplicated" not in first and other["answer"]["t1"]["ticket_id"] != t1
    assert listing["answer"]["t1"]["count"] == 3  # the seeded ticket + two created, not three


def test_registry_ref_a2a_makes_one_agent_a_domain():
    """``--registry a2a+http://HOST:PORT``: the remote agent is the whole domain (no mock service),
    run through the loop like any domain; an unreachable agent is a DomainLoadError."""
    import pytest
    from serve_helpers import free_port

    from tao.domains import DomainLoadError, load_domain
    from tao.loop.planner import ReplayPlanner
    from tao.loop.runtime import Runtime

    with pytest.raises(DomainLoadError, match="a2a"):
        load_domain(f"a2a+http://127.0.0.1:{free_port()}")
    srv = ThreadServer(create_app(ServerConfig(load_model=False, registry="helpdesk_domain:domain")))
    with srv:
        dom = load_domain(f"a2a+{srv.base}")
        tool = "ask_tao_runtime_helpdesk_test"  # no alias in a registry ref: named after the card
        assert dom.transport == f"a2a+{srv.base}" and [t.name for t in dom.tools] == [tool]
        plan = {
            "version": "1.0",
            "intent": "remote_open",
            "steps": [{"step_id": "t1", "tool": tool, "arguments": {"request": "open?", "plan": LIST}}],
        }

        async def go():
            rt = Runtime(domain=dom)
            try:
                assert rt.mock is None and rt.registry.export()[0]["transport"] == "a2a"
                return await rt.loop(ReplayPlanner(plan)).run("which tickets are open?")
            finally:
                await rt.aclose()

        report = asyncio.run(go())
    assert report.status == "success", report.message
    assert report.answer["t1"]["answer"]["t1"]["count"] >= 1
