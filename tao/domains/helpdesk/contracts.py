"""The IT-helpdesk tool contracts: employees, password resets, support tickets, devices.

The same tool names, argument names and argument schemas as ``eval_sets/tools.json`` (the contracts
the writers of the hand-written set saw; ``tests/tao/domains/test_helpdesk.py`` checks they agree);
an argument whose short form says it "also accepts a reference" takes ``${tK.NAME}`` beside its
literal pattern. Response schemas and ``extract`` pointers are what the mock service
(:mod:`.mock`) returns.
"""

from __future__ import annotations

from typing import Any

from tao.contracts import ObservationRule, Permission, ToolSpec
from tao.contracts.tools import CostLevel
from tao.domains.contract import ref_or

EMPLOYEE_ID = r"^E[0-9]{6}$"
TICKET_ID = r"^TCK-[0-9]{6}$"
ASSET_TAG = r"^AT-[0-9]{5}$"
EMAIL = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"
SYSTEMS = ["email", "vpn", "erp", "wifi"]
CATEGORIES = ["hardware", "software", "network", "access", "other"]
PRIORITIES = ["low", "normal", "high", "urgent"]
TICKET_STATUS = ["open", "in_progress", "waiting", "resolved", "closed"]

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}


def _args(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


_EMP = {"type": "string", "pattern": ref_or(EMPLOYEE_ID)}
_TICKET = _obj(
    {
        "ticket_id": {"type": "string", "pattern": TICKET_ID},
        "status": {"enum": TICKET_STATUS},
        "summary": _STR,
        "assignee": _STR,
    },
    ["ticket_id", "status"],
)
_DEVICE = _obj({"asset_tag": _STR, "model": _STR, "type": _STR}, ["asset_tag", "model"])
_COUNT_OK = ObservationRule(
    name="count_not_negative", logic={">=": [{"var": "data.count"}, 0]}, message="count must not be negative"
)


def helpdesk_tools() -> list[ToolSpec]:
    """The eight helpdesk tools, in ``tools.json`` order."""
    return [
        ToolSpec(
            name="find_employee",
            domain="employees",
            description="Find an employee's id (E + 6 digits) by name or work email. Use before any "
            "employee-specific tool when only a name or email is known.",
            args_schema=_args(
                {
                    "name": {"type": "string", "minLength": 1, "maxLength": 40},
                    "email": {"type": "string", "pattern": EMAIL},
                },
                [],
            ),
            response_schema=_obj({"employee_id": _STR, "name": _STR, "email": _STR}, ["employee_id"]),
            required_fields=["/employee_id"],
            extract={"employee_id": "/employee_id", "name": "/name", "email": "/email"},
        ),
        ToolSpec(
            name="get_employee",
            domain="employees",
            description="Read an employee's record (name, email, department, manager, office location) "
            "by employee id.",
            args_schema=_args({"employee_id": _EMP}, ["employee_id"]),
            response_schema=_obj(
                {
                    "employee_id": _STR,
                    "name": _STR,
                    "email": _STR,
                    "department": _STR,
                    "manager_id": {"type": "string", "pattern": EMPLOYEE_ID},
                    "location": _STR,
                },
                ["employee_id", "name"],
            ),
            extract={
                "email": "/email",
                "department": "/department",
                "manager_id": "/manager_id",
                "location": "/location",
                "name": "/name",
            },
        ),
        ToolSpec(
            name="reset_password",
            domain="access",
            description="Reset an employee's password for one system and send them a one-time link. "
            "High risk: needs approval.",
            args_schema=_args(
                {"employee_id": _EMP, "system": {"type": "string", "enum": SYSTEMS}},
                [
                    "employee_id",
                    "system",
                ],
            ),
            response_schema=_obj({"reset_id": _STR, "system": _STR}, ["reset_id"]),
            permission=Permission.HIGH_RISK,
            idempotent=False,
            cost_level=CostLevel.MEDIUM,
            extract={"reset_id": "/reset_id"},
        ),
        ToolSpec(
            name="create_ticket",
            domain="tickets",
            description="Open an IT support ticket for an employee. Write, not idempotent.",
            args_schema=_args(
                {
                    "employee_id": _EMP,
                    "category": {"type": "string", "enum": CATEGORIES},
                    "summary": {"type": "string", "minLength": 1, "maxLength": 120},
                    "priority": {"type": "string", "enum": PRIORITIES, "default": "normal"},
                },
                ["employee_id", "category", "summary"],
            ),
            response_schema=_obj({"ticket_id": _STR, "status": _STR}, ["ticket_id"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=1,
            extract={"ticket_id": "/ticket_id"},
        ),
        ToolSpec(
            name="get_ticket",
            domain="tickets",
            description="Status and assignee of one support ticket by its id (TCK- + 6 digits).",
            args_schema=_args({"ticket_id": {"type": "string", "pattern": ref_or(TICKET_ID)}}, ["ticket_id"]),
            response_schema=_TICKET,
            required_fields=["/status"],
            extract={"status": "/status", "assignee": "/assignee"},
        ),
        ToolSpec(
            name="list_tickets",
            domain="tickets",
            description="List an employee's support tickets, optionally with a status. Newest first. "
            "Use to find ticket ids.",
            args_schema=_args(
                {"employee_id": _EMP, "status": {"type": "string", "enum": TICKET_STATUS}}, ["employee_id"]
            ),
            response_schema=_obj(
                {"tickets": {"type": "array", "items": _TICKET}, "count": _INT},
                [
                    "tickets",
                    "count",
                ],
            ),
            observation_rules=[_COUNT_OK],
            required_fields=["/count"],
            extract={"count": "/count", "ticket_id": "/tickets/0/ticket_id", "status": "/tickets/0/status"},
        ),
        ToolSpec(
            name="list_devices",
            domain="devices",
            description="List the devices (laptops, phones, monitors) assigned to an employee, with asset "
            "tags (AT- + 5 digits).",
            args_schema=_args({"employee_id": _EMP}, ["employee_id"]),
            response_schema=_obj(
                {"devices": {"type": "array", "items": _DEVICE}, "count": _INT},
                [
                    "devices",
                    "count",
                ],
            ),
            observation_rules=[_COUNT_OK],
            required_fields=["/count"],
            extract={"count": "/count", "asset_tag": "/devices/0/asset_tag", "model": "/devices/0/model"},
        ),
        ToolSpec(
            name="request_device_replacement",
            domain="devices",
            description="Request a replacement for a broken or outdated device by its asset tag. Write, "
            "not idempotent.",
            args_schema=_args(
                {
                    "asset_tag": {"type": "string", "pattern": ref_or(ASSET_TAG)},
                    "reason": {"type": "string", "minLength": 1, "maxLength": 120},
                },
                ["asset_tag", "reason"],
            ),
            response_schema=_obj({"request_id": _STR, "ticket_id": _STR}, ["request_id"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=1,
            cost_level=CostLevel.MEDIUM,
            extract={"request_id": "/request_id", "ticket_id": "/ticket_id"},
        ),
    ]
