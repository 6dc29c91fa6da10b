"""A small test domain for the A2A tests: a help desk with three tools and mock handlers (the
second agent of the two-agent delegation; the real helpdesk domain is not built yet).

Served by ``tao serve --no-model --registry helpdesk_domain:domain`` (with ``tests/protocols``
on ``PYTHONPATH``); its tools run in the in-process mock service like the reference domain's.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from tao.contracts import Permission, ToolSpec
from tao.contracts.domain import Domain

TICKET = r"^TCK[0-9]{6}$"

TOOLS = [
    ToolSpec(
        name="create_ticket",
        description="Open a help-desk ticket for a problem; returns the new ticket id.",
        args_schema={
            "type": "object",
            "additionalProperties": False,
            "required": ["summary"],
            "properties": {
                "summary": {"type": "string", "minLength": 3, "maxLength": 200},
                "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
            },
        },
        response_schema={
            "type": "object",
            "required": ["ticket_id", "status"],
            "properties": {"ticket_id": {"type": "string", "pattern": TICKET}, "status": {"type": "string"}},
        },
        required_fields=["/ticket_id"],
        extract={"ticket_id": "/ticket_id", "status": "/status"},
        permission=Permission.WRITE,
        write_limit=1,
        idempotent=False,
        retry_budget=0,
        domain="helpdesk",
    ),
    ToolSpec(
        name="get_ticket",
        description="Look up one ticket by id: its status and summary.",
        args_schema={
            "type": "object",
            "additionalProperties": False,
            "required": ["ticket_id"],
            "properties": {"ticket_id": {"type": "string", "pattern": TICKET}},
        },
        response_schema={
            "type": "object",
            "required": ["ticket_id", "status"],
            "properties": {
                "ticket_id": {"type": "string"},
                "status": {"type": "string"},
                "summary": {"type": "string"},
                "priority": {"type": "string"},
            },
        },
        required_fields=["/ticket_id", "/status"],
        extract={"ticket_id": "/ticket_id", "status": "/status", "summary": "/summary"},
        domain="helpdesk",
    ),
    ToolSpec(
        name="list_open_tickets",
        description="List the ids of the open tickets.",
        args_schema={"type": "object", "additionalProperties": False, "properties": {}},
        response_schema={
            "type": "object",
            "required": ["tickets"],
            "properties": {"tickets": {"type": "array"}},
        },
        extract={"tickets": "/tickets", "count": "/count"},
        domain="helpdesk",
    ),
]


def mock_data(seed: int = 7, today: date | None = None) -> dict[str, Any]:
    return {
        "tickets": {"TCK000001": {"summary": "VPN drops every hour", "priority": "high", "status": "open"}}
    }


def _create(data: dict[str, Any], args: dict[str, Any]) -> tuple[int, Any, bool]:
    tid = f"TCK{len(data['tickets']) + 1:06d}"
    data["tickets"][tid] = {
        "summary": args["summary"],
        "priority": args.get("priority", "normal"),
        "status": "open",
    }
    return 200, {"ticket_id": tid, "status": "open"}, True


def _get(data: dict[str, Any], args: dict[str, Any]) -> tuple[int, Any, bool]:
    t = data["tickets"].get(args["ticket_id"])
    if t is None:
        return 404, {"error": "not_found", "message": f"ticket {args['ticket_id']} not found"}, False
    return 200, {"ticket_id": args["ticket_id"], **t}, False


def _list(data: dict[str, Any], args: dict[str, Any]) -> tuple[int, Any, bool]:
    ids = sorted(k for k, t in data["tickets"].items() if t["status"] == "open")
    return 200, {"tickets": ids, "count": len(ids)}, False


domain = Domain(
    name="helpdesk_test",
    tools=TOOLS,
    mock_handlers={"create_ticket": _create, "get_ticket": _get, "list_open_tickets": _list},
    mock_data=mock_data,
)
