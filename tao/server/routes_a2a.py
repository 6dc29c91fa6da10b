"""A2A, first part: the agent card at ``/.well-known/agent-card.json``, built from the registry.

One skill per tool (id and name = the tool name, description = its contract description, tags =
the tool's domain and permission; high-risk tools say so in their tags, since A2A has no
permission field). No interface is advertised: A2A task handling (``message/send``) is not
implemented yet (docs/protocols.md), and a card must not point at an endpoint that does not speak it. The card is
built with the ``a2a-sdk``'s own types (protobuf), so it is what an A2A client parses.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response

from tao.server.config import ServerConfig

CARD_PATH = "/.well-known/agent-card.json"


def agent_card(config: ServerConfig) -> dict[str, Any]:
    """The agent card as JSON (camelCase, as the A2A spec writes it)."""
    from a2a import types as a2a
    from google.protobuf.json_format import MessageToDict

    dom = config.domain()
    skills = [
        a2a.AgentSkill(
            id=t.name,
            name=t.name,
            description=t.description,
            tags=[t.domain, t.permission.value],
            input_modes=["application/json"],
            output_modes=["application/json"],
        )
        for t in dom.tools
    ]
    card = a2a.AgentCard(
        name=f"TAO Runtime ({dom.name})",
        description="Plans a request with a small plan model, runs the registry's tools under their contracts "
        "and checks every observation (Thought-Action-Observation).",
        version="0.1.0",
        # no supported_interfaces yet: this server does not answer A2A tasks (message/send), and a card
        # must not point a client at an endpoint that does not speak the protocol
        capabilities=a2a.AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["application/json"],
        skills=skills,
    )
    if config.api_key:
        card.security_schemes["bearer"].CopyFrom(
            a2a.SecurityScheme(http_auth_security_scheme=a2a.HTTPAuthSecurityScheme(scheme="Bearer"))
        )
    return MessageToDict(card)


def register(app: FastAPI, config: ServerConfig) -> None:
    async def card(request: Request) -> Response:
        import orjson

        return Response(orjson.dumps(agent_card(config)), media_type="application/json")

    app.add_api_route(
        CARD_PATH, card, methods=["GET"], tags=["a2a"], summary="A2A agent card (from the registry)"
    )
