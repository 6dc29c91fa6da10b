"""A2A: the agent card at ``/.well-known/agent-card.json`` (from the registry) and A2A tasks at
``/v1/a2a`` (JSON-RPC, :mod:`tao.server.a2a_agent`).

One skill per tool (id and name = the tool name, description = its contract description, tags =
the tool's domain and permission; high-risk tools say so in their tags, since A2A has no
permission field). The card's one interface is the JSON-RPC endpoint this server answers, at the
URL the caller reached the card by (A2A 1.0; the 0.3 method names are answered there too), and
its capabilities carry the TAO envelope extension (message isolation, docs/protocols.md). The
card is built with the ``a2a-sdk``'s own types (protobuf), so it is what an A2A client parses.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response

from tao.server.config import ServerConfig

CARD_PATH = "/.well-known/agent-card.json"


def card_proto(config: ServerConfig, base_url: str | None = None) -> Any:
    """The agent card (``a2a.types.AgentCard``); ``base_url``: where the caller reached us."""
    from a2a import types as a2a

    from tao.action.a2a_context import MAX_DEPTH, MAX_ROUNDS
    from tao.contracts.envelope import ENVELOPE_ID, EXTENSION_URI
    from tao.server.a2a_agent import RPC_PATH

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
    base = (base_url or f"http://{config.host}:{config.port}").rstrip("/")
    ext = a2a.AgentExtension(
        uri=EXTENSION_URI,
        description="message envelope: conversation_id, parent_task_id, sender, parent chain, blackboard "
        "(metadata key tao.runtime/envelope); an agent reads only its parent chain and the blackboard",
        required=False,
    )
    ext.params.update({"schema": ENVELOPE_ID, "max_depth": MAX_DEPTH, "max_rounds": MAX_ROUNDS})
    card = a2a.AgentCard(
        name=f"TAO Runtime ({dom.name})",
        description="Plans a request with a small plan model, runs the registry's tools under their contracts "
        'and checks every observation (Thought-Action-Observation). A data part {"plan": ThoughtPlan} '
        "replays a plan instead.",
        version="0.1.0",
        supported_interfaces=[
            a2a.AgentInterface(url=base + RPC_PATH, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=a2a.AgentCapabilities(streaming=True, push_notifications=False, extensions=[ext]),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["application/json"],
        skills=skills,
    )
    if config.api_key:
        card.security_schemes["bearer"].CopyFrom(
            a2a.SecurityScheme(http_auth_security_scheme=a2a.HTTPAuthSecurityScheme(scheme="Bearer"))
        )
        req = a2a.SecurityRequirement()
        req.schemes["bearer"].CopyFrom(a2a.StringList())
        card.security_requirements.append(req)
    return card


def agent_card(config: ServerConfig, base_url: str | None = None) -> dict[str, Any]:
    """The agent card as JSON (camelCase, as the A2A spec writes it)."""
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(card_proto(config, base_url))


def register(app: FastAPI, config: ServerConfig) -> None:
    async def card(request: Request) -> Response:
        import orjson

        return Response(
            orjson.dumps(agent_card(config, str(request.base_url))), media_type="application/json"
        )

    app.add_api_route(
        CARD_PATH, card, methods=["GET"], tags=["a2a"], summary="A2A agent card (from the registry)"
    )
    from tao.server.a2a_agent import build

    app.router.routes.extend(build(app, config, card_proto(config)))  # POST /v1/a2a (JSON-RPC)
