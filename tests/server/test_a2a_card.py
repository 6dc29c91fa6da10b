"""The A2A agent card from a real server, parsed with the a2a-sdk's own types."""

from __future__ import annotations

import httpx
from a2a import types as a2a
from google.protobuf.json_format import ParseDict

from router.testing.upstream import ServerThread
from tao.server.app import create_app
from tao.server.config import ServerConfig


def test_agent_card_lists_the_registry_and_needs_no_key():
    cfg = ServerConfig(load_model=False, api_key="k")
    srv = ServerThread(create_app(cfg), lifespan="on").start()
    try:
        r = httpx.get(srv.url + "/.well-known/agent-card.json")  # discovery works without the key
        assert r.status_code == 200
        card = ParseDict(r.json(), a2a.AgentCard())  # the SDK's own schema accepts it
        tools = {t.name: t for t in cfg.domain().tools}
        assert {s.id for s in card.skills} == set(tools)
        send = next(s for s in card.skills if s.id == "send_email")
        assert "high_risk" in send.tags and send.description == tools["send_email"].description
        assert card.security_schemes["bearer"].http_auth_security_scheme.scheme == "Bearer"
        assert httpx.get(srv.url + "/v1/tools").status_code == 401  # the API itself stays keyed
    finally:
        srv.stop()
