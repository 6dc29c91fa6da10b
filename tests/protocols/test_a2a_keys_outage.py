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
