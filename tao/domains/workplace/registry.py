"""The workplace tool contracts: HR leave and payslips, business travel (flights, hotels, trips).

Eleven tools for the 41-tool combined registry (:mod:`tao.domains.combined`). Their employee ids
are the helpdesk domain's (``E`` + 6 digits), so the two domains share one id kind; the other ids
are new: leave requests ``LV-`` + 6 digits, flight offers ``FLT-`` + 6 digits, hotel offers
``HTL-`` + 5 digits, trips ``TRP-`` + 6 digits. A date argument also takes a relative time symbol
(``@tomorrow``), an id argument a step reference (``${t1.trip_id}``).
"""

from __future__ import annotations

from typing import Any

from tao.contracts import ObservationRule, Permission, ToolSpec
from tao.contracts.plan import TIME_SYMBOL_PATTERN
from tao.contracts.tools import CostLevel
from tao.domains.contract import ref_or

EMPLOYEE_ID = r"^E[0-9]{6}$"
LEAVE_ID = r"^LV-[0-9]{6}$"
FLIGHT_ID = r"^FLT-[0-9]{6}$"
HOTEL_ID = r"^HTL-[0-9]{5}$"
TRIP_ID = r"^TRP-[0-9]{6}$"
DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
MONTH = r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$"
CITY = r"^[A-Za-z\u4E00-\u9FFF .'-]{1,30}$"
LEAVE_TYPES = ["annual", "sick", "personal", "parental"]
LEAVE_STATUS = ["pending", "approved", "rejected", "cancelled"]
CABINS = ["economy", "premium", "business"]

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_NUM: dict[str, Any] = {"type": "number"}


def _args(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


def _date() -> dict[str, Any]:
    return {"type": "string", "pattern": f"({DATE})|({TIME_SYMBOL_PATTERN})"}


_EMP = {"type": "string", "pattern": ref_or(EMPLOYEE_ID)}
_CITY = {"type": "string", "pattern": CITY}
_LEAVE = _obj(
    {
        "leave_id": {"type": "string", "pattern": LEAVE_ID},
        "leave_type": {"enum": LEAVE_TYPES},
        "start_date": _STR,
        "end_date": _STR,
        "status": {"enum": LEAVE_STATUS},
    },
    ["leave_id", "status"],
)
_COUNT_OK = ObservationRule(
    name="count_not_negative", logic={">=": [{"var": "data.count"}, 0]}, message="count must not be negative"
)


def _read(name: str, domain: str, description: str, args: dict, response: dict, **kw: Any) -> ToolSpec:
    return ToolSpec(
        name=name, domain=domain, description=description, args_schema=args, response_schema=response, **kw
    )


def _write(name: str, domain: str, description: str, args: dict, response: dict, **kw: Any) -> ToolSpec:
    kw.setdefault("permission", Permission.WRITE)
    kw.setdefault("write_limit", 1)
    kw.setdefault("cost_level", CostLevel.MEDIUM)
    return ToolSpec(
        name=name,
        domain=domain,
        description=description,
        args_schema=args,
        response_schema=response,
        idempotent=False,
        **kw,
    )


def _leave_tools() -> list[ToolSpec]:
    return [
        _read(
            "get_leave_balance",
            "leave",
            "Remaining leave days of an employee (annual, sick, personal, parental), optionally for one "
            "leave type.",
            _args(
                {"employee_id": _EMP, "leave_type": {"type": "string", "enum": LEAVE_TYPES}}, ["employee_id"]
            ),
            _obj({"employee_id": _STR, "balances": {"type": "object"}, "days": _NUM}, ["balances"]),
            extract={"days": "/days", "balances": "/balances"},
        ),
        _write(
            "request_leave",
            "leave",
            "Apply for leave from a start date to an end date (inclusive) with a leave type and an "
            "optional reason. Write, not idempotent.",
            _args(
                {
                    "employee_id": _EMP,
                    "leave_type": {"type": "string", "enum": LEAVE_TYPES},
                    "start_date": _date(),
                    "end_date": _date(),
                    "reason": {"type": "string", "minLength": 1, "maxLength": 120},
                },
                ["employee_id", "leave_type", "start_date", "end_date"],
            ),
            _obj({"leave_id": _STR, "status": _STR, "days": _NUM}, ["leave_id"]),
            extract={"leave_id": "/leave_id", "status": "/status"},
        ),
        _read(
            "list_leave_requests",
            "leave",
            "List an employee's leave requests, optionally with a status. Newest first. Use to find "
            "leave request ids (LV- + 6 digits).",
            _args({"employee_id": _EMP, "status": {"type": "string", "enum": LEAVE_STATUS}}, ["employee_id"]),
            _obj({"requests": {"type": "array", "items": _LEAVE}, "count": _INT}, ["requests", "count"]),
            observation_rules=[_COUNT_OK],
            required_fields=["/count"],
            extract={"count": "/count", "leave_id": "/requests/0/leave_id", "status": "/requests/0/status"},
        ),
        _write(
            "cancel_leave_request",
            "leave",
            "Cancel a pending or approved leave request by its id (LV- + 6 digits). Write, not idempotent.",
            _args({"leave_id": {"type": "string", "pattern": ref_or(LEAVE_ID)}}, ["leave_id"]),
            _obj({"leave_id": _STR, "cancelled": {"type": "boolean"}}, ["cancelled"]),
            extract={"cancelled": "/cancelled"},
        ),
        _read(
            "get_payslip",
            "payroll",
            "An employee's payslip for one month (gross, net, tax, deductions). Sensitive: only the "
            "employee's own or with HR rights.",
            _args(
                {"employee_id": _EMP, "month": {"type": "string", "pattern": MONTH}}, ["employee_id", "month"]
            ),
            _obj({"month": _STR, "gross": _NUM, "net": _NUM, "tax": _NUM}, ["month", "net"]),
            extract={"net": "/net", "gross": "/gross", "tax": "/tax"},
        ),
    ]


def _travel_tools() -> list[ToolSpec]:
    flight = _obj({"flight_id": _STR, "flight_no": _STR, "depart": _STR, "price": _NUM}, ["flight_id"])
    hotel = _obj({"hotel_id": _STR, "name": _STR, "price_per_night": _NUM}, ["hotel_id"])
    return [
        _read(
            "search_flights",
            "travel",
            "Search flights from one city to another on a date, optionally in a cabin class. Cheapest "
            "first; returns flight offer ids (FLT- + 6 digits).",
            _args(
                {
                    "origin": _CITY,
                    "destination": _CITY,
                    "date": _date(),
                    "cabin": {"type": "string", "enum": CABINS, "default": "economy"},
                },
                ["origin", "destination", "date"],
            ),
            _obj({"flights": {"type": "array", "items": flight}, "count": _INT}, ["flights", "count"]),
            observation_rules=[_COUNT_OK],
            extract={"count": "/count", "flight_id": "/flights/0/flight_id", "price": "/flights/0/price"},
            timeout_ms=3000,
        ),
        _write(
            "book_flight",
            "travel",
            "Book a flight offer found by search_flights for an employee; adds it to a trip. Write, not "
            "idempotent.",
            _args(
                {"flight_id": {"type": "string", "pattern": ref_or(FLIGHT_ID)}, "employee_id": _EMP},
                ["flight_id", "employee_id"],
            ),
            _obj({"booking_id": _STR, "trip_id": _STR}, ["booking_id", "trip_id"]),
            extract={"booking_id": "/booking_id", "trip_id": "/trip_id"},
            cost_level=CostLevel.HIGH,
        ),
        _read(
            "search_hotels",
            "travel",
            "Search hotels in a city for a check-in date and a number of nights. Cheapest first; returns "
            "hotel offer ids (HTL- + 5 digits).",
            _args(
                {
                    "city": _CITY,
                    "check_in": _date(),
                    "nights": {"type": "integer", "minimum": 1, "maximum": 30},
                },
                ["city", "check_in"],
            ),
            _obj({"hotels": {"type": "array", "items": hotel}, "count": _INT}, ["hotels", "count"]),
            observation_rules=[_COUNT_OK],
            extract={
                "count": "/count",
                "hotel_id": "/hotels/0/hotel_id",
                "price": "/hotels/0/price_per_night",
            },
            timeout_ms=3000,
        ),
        _write(
            "book_hotel",
            "travel",
            "Book a hotel offer found by search_hotels for an employee. Write, not idempotent.",
            _args(
                {"hotel_id": {"type": "string", "pattern": ref_or(HOTEL_ID)}, "employee_id": _EMP},
                ["hotel_id", "employee_id"],
            ),
            _obj({"booking_id": _STR, "trip_id": _STR}, ["booking_id", "trip_id"]),
            extract={"booking_id": "/booking_id", "trip_id": "/trip_id"},
        ),
        _read(
            "get_trip",
            "travel",
            "Itinerary and status of one business trip by its id (TRP- + 6 digits): flights, hotels, "
            "total cost.",
            _args({"trip_id": {"type": "string", "pattern": ref_or(TRIP_ID)}}, ["trip_id"]),
            _obj(
                {"trip_id": _STR, "status": _STR, "bookings": {"type": "array"}, "total": _NUM}, ["trip_id"]
            ),
            required_fields=["/status"],
            extract={"status": "/status", "total": "/total"},
        ),
        _write(
            "cancel_trip",
            "travel",
            "Cancel a whole business trip and its bookings by trip id. High risk: cancellation fees, needs "
            "approval.",
            _args({"trip_id": {"type": "string", "pattern": ref_or(TRIP_ID)}}, ["trip_id"]),
            _obj({"trip_id": _STR, "cancelled": {"type": "boolean"}, "fee": _NUM}, ["cancelled"]),
            extract={"cancelled": "/cancelled", "fee": "/fee"},
            permission=Permission.HIGH_RISK,
            cost_level=CostLevel.HIGH,
        ),
    ]


def workplace_tools() -> list[ToolSpec]:
    """The eleven workplace tools: five HR (leave, payslip), six travel."""
    return [*_leave_tools(), *_travel_tools()]
