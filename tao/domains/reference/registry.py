"""The reference tool registry: the embedded default domain (orders and logistics, invoices,
user profiles, expense reimbursements, weather, meeting rooms and calendars, email).

Everything downstream is driven by this list: synthetic training data, the plan grammar, the
mock tool service, the observation checkers. Users replace it with their own registry.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from tao.contracts import ObservationRule, Permission, ToolSpec
from tao.contracts.plan import REF_PATTERN, TIME_SYMBOL_PATTERN
from tao.contracts.tools import CostLevel, Normalization

# Argument patterns. A field also accepts a step reference ("${t1.user_id}") where it may be
# produced by an earlier step, and a relative time symbol ("@last_month") where it is a date.
USER_ID = r"^U[0-9]{8}$"
ORDER_ID = r"^[0-9]{18}$"
INVOICE_ID = r"^INV[0-9]{10}$"
EXPENSE_ID = r"^EXP[0-9]{8}$"
ROOM_ID = r"^R[0-9]{3}$"
DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-2][0-9]:[0-5][0-9])?$"
PERIOD = r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?(/[0-9]{4}-[0-9]{2}(-[0-9]{2})?)?$"
EMAIL = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"
CITY = (
    r"^[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF\u3040-\u30FF\u4E00-\u9FFF\uAC00-\uD7AF"
    r" .,'\u2019()-]{1,30}$"
)
"""A city name: letters of the scripts city names are written in (Latin, Greek, Cyrillic, kana, CJK,
Hangul), spaces and . , ' ( ) - ; no digits, no slot/reference/JSON characters, nothing outside the
Basic Multilingual Plane (so no id slot kind fits it, constrained decoding cannot emit stray bytes, and
the plan grammar offers the free-text slot kinds plus references such as ``${t1.city}``)."""


def _ref_or(pattern: str) -> str:
    return f"({pattern})|({REF_PATTERN})"


def _date_or(pattern: str) -> str:
    return f"({pattern})|({TIME_SYMBOL_PATTERN})"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


OrderStatus = Literal["pending", "paid", "shipped", "in_transit", "delivered", "cancelled", "refunded"]


# ---- users ----
class FindUserArgs(_Args):
    name: str | None = Field(default=None, min_length=1, max_length=40)
    email: str | None = Field(default=None, pattern=EMAIL)
    phone: str | None = Field(default=None, pattern=r"^1[3-9][0-9]{9}$")


class GetUserProfileArgs(_Args):
    user_id: str = Field(pattern=_ref_or(USER_ID))


class UpdateUserProfileArgs(_Args):
    user_id: str = Field(pattern=_ref_or(USER_ID))
    field: Literal["phone", "email", "city", "name"]
    value: str = Field(min_length=1, max_length=80)


# ---- orders and logistics ----
class ListOrdersArgs(_Args):
    user_id: str = Field(pattern=_ref_or(USER_ID))
    period: str | None = Field(default=None, pattern=_date_or(PERIOD))
    status: OrderStatus | None = None


class OrderIdArgs(_Args):
    order_id: str = Field(pattern=_ref_or(ORDER_ID))


class CancelOrderArgs(_Args):
    order_id: str = Field(pattern=_ref_or(ORDER_ID))
    reason: str = Field(min_length=1, max_length=80)


class RefundPaymentArgs(_Args):
    order_id: str = Field(pattern=_ref_or(ORDER_ID))
    amount: float = Field(gt=0, le=100000)


# ---- invoices ----
class CreateInvoiceArgs(_Args):
    order_id: str = Field(pattern=_ref_or(ORDER_ID))
    title: str = Field(min_length=1, max_length=60, description="invoice header (company or person)")


class GetInvoiceArgs(_Args):
    invoice_id: str = Field(pattern=_ref_or(INVOICE_ID))


# ---- expenses ----
class SubmitExpenseArgs(_Args):
    amount: float = Field(gt=0, le=100000)
    category: Literal["travel", "meal", "hotel", "transport", "office", "other"]
    date: str = Field(pattern=_date_or(DATE))
    description: str = Field(min_length=1, max_length=80)


class GetExpenseStatusArgs(_Args):
    expense_id: str = Field(pattern=_ref_or(EXPENSE_ID))


InvoiceStatus = Literal["issued", "pending", "void"]
ExpenseStatus = Literal["submitted", "approved", "rejected", "paid"]


class ListInvoicesArgs(_Args):
    user_id: str = Field(pattern=_ref_or(USER_ID))
    period: str | None = Field(default=None, pattern=_date_or(PERIOD))
    status: InvoiceStatus | None = None


class ListExpensesArgs(_Args):
    user_id: str = Field(pattern=_ref_or(USER_ID))
    period: str | None = Field(default=None, pattern=_date_or(PERIOD))
    status: ExpenseStatus | None = None


# ---- weather ----
class GetWeatherArgs(_Args):
    # the pattern bounds the length (1-30): a pattern beside min/maxLength is a JSON-Schema feature
    # xgrammar does not support (vLLM rejects the schema, xgrammar ignores the lengths)
    city: str = Field(pattern=_ref_or(CITY))
    date: str = Field(default="@today", pattern=_date_or(DATE))


# ---- meeting rooms and calendars ----
class FindMeetingRoomArgs(_Args):
    start: str = Field(pattern=_date_or(DATE))
    duration_min: int = Field(ge=15, le=480)
    capacity: int = Field(ge=1, le=100)


class BookMeetingRoomArgs(_Args):
    room_id: str = Field(pattern=_ref_or(ROOM_ID))
    start: str = Field(pattern=_date_or(DATE))
    duration_min: int = Field(ge=15, le=480)


class ListCalendarEventsArgs(_Args):
    date: str = Field(pattern=_date_or(DATE))


class ListUserCalendarEventsArgs(_Args):
    user_id: str = Field(pattern=_ref_or(USER_ID))
    date: str = Field(pattern=_date_or(DATE))


# Outbound text (tao.action.outbound): a subject never carries markup (refused); a body or an
# event title is sent escaped (HTML and Markdown made inert).
_ESCAPE: JsonDict = {"x-tao-outbound": "escape"}
_REJECT: JsonDict = {"x-tao-outbound": "reject"}


class CreateCalendarEventArgs(_Args):
    title: str = Field(min_length=1, max_length=60, json_schema_extra=_ESCAPE)
    start: str = Field(pattern=_date_or(DATE))
    duration_min: int = Field(ge=15, le=480)
    attendees: list[str] = Field(default_factory=list, max_length=20)


# ---- email ----
class SendEmailArgs(_Args):
    to: str = Field(pattern=_ref_or(EMAIL))
    subject: str = Field(min_length=1, max_length=80, json_schema_extra=_REJECT)
    body: str = Field(min_length=1, max_length=500, json_schema_extra=_ESCAPE)


def _obj(props: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": props, "required": required}


_STR = {"type": "string"}
_NUM = {"type": "number"}
_INT = {"type": "integer"}
_ORDER = _obj(
    {"order_id": _STR, "status": _STR, "amount": _NUM, "created_at": _STR}, ["order_id", "status", "amount"]
)
_INVOICE = _obj(
    {
        "invoice_id": _STR,
        "order_id": _STR,
        "status": {"enum": ["issued", "pending", "void"]},
        "amount": _NUM,
        "created_at": _STR,
    },
    ["invoice_id", "status"],
)
_EXPENSE = _obj(
    {
        "expense_id": _STR,
        "status": {"enum": ["submitted", "approved", "rejected", "paid"]},
        "amount": _NUM,
        "created_at": _STR,
    },
    ["expense_id", "status"],
)
_COUNT_OK = ObservationRule(
    name="count_not_negative",
    logic={">=": [{"var": "data.count"}, 0]},
    message="count must not be negative",
)
_NOT_ERROR = ObservationRule(
    name="status_not_unknown",
    logic={"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}},
    message="status must not be unknown/error",
)


def _spec(name: str, domain: str, description: str, args, response: dict, **kw) -> ToolSpec:
    return ToolSpec(
        name=name,
        domain=domain,
        description=description,
        args_schema=args.model_json_schema(),
        response_schema=response,
        **kw,
    )


def reference_tools() -> list[ToolSpec]:
    """The reference registry (22 tools), in a stable order (the four newest last)."""
    return [
        _spec(
            "find_user",
            "users",
            "Find a user id by name, email or phone. Use before any user-specific tool when only a "
            "name/email/phone is known. Not for reading the full profile.",
            FindUserArgs,
            _obj({"user_id": _STR, "name": _STR}, ["user_id"]),
            extract={"user_id": "/user_id", "name": "/name"},
            required_fields=["/user_id"],
        ),
        _spec(
            "get_user_profile",
            "users",
            "Read a user's profile (name, email, phone, city, tier) by user id. Not for searching users.",
            GetUserProfileArgs,
            _obj(
                {
                    "user_id": _STR,
                    "name": _STR,
                    "email": _STR,
                    "phone": _STR,
                    "city": _STR,
                    "tier": {"enum": ["basic", "silver", "gold", "platinum"]},
                },
                ["user_id", "name"],
            ),
            extract={"user_id": "/user_id", "email": "/email", "city": "/city", "name": "/name"},
        ),
        _spec(
            "update_user_profile",
            "users",
            "Change one field of a user's profile. Write: only when the user asks to change it.",
            UpdateUserProfileArgs,
            _obj({"user_id": _STR, "updated": {"type": "boolean"}}, ["updated"]),
            permission=Permission.WRITE,
            idempotent=True,
            write_limit=1,
            cost_level=CostLevel.MEDIUM,
            extract={"updated": "/updated"},
        ),
        _spec(
            "list_orders",
            "orders",
            "List a user's orders, optionally within a period and with a status. Newest first. "
            "Use to find order ids; not for the status of one known order.",
            ListOrdersArgs,
            _obj({"orders": {"type": "array", "items": _ORDER}, "count": _INT}, ["orders", "count"]),
            extract={"count": "/count", "order_id": "/orders/0/order_id", "status": "/orders/0/status"},
        ),
        _spec(
            "get_order_status",
            "orders",
            "Current status of one order by its 18-digit order id.",
            OrderIdArgs,
            _obj(
                {
                    "order_id": _STR,
                    "status": {
                        "enum": [
                            "pending",
                            "paid",
                            "shipped",
                            "in_transit",
                            "delivered",
                            "cancelled",
                            "refunded",
                        ]
                    },
                    "updated_at": _STR,
                    "amount": _NUM,
                },
                ["order_id", "status"],
            ),
            observation_rules=[_NOT_ERROR],
            required_fields=["/status"],
            extract={"order_id": "/order_id", "status": "/status", "amount": "/amount"},
        ),
        _spec(
            "get_logistics",
            "orders",
            "Shipping/logistics tracking of an order (carrier, location, ETA). Only for shipped orders.",
            OrderIdArgs,
            _obj(
                {
                    "order_id": _STR,
                    "carrier": _STR,
                    "tracking_no": _STR,
                    "status": _STR,
                    "location": _STR,
                    "eta": _STR,
                },
                ["order_id", "status"],
            ),
            observation_rules=[_NOT_ERROR],
            normalization=Normalization(
                enum_map={
                    "/status": {
                        "In Transit": "in_transit",
                        "Delivered": "delivered",
                        "Out for delivery": "out_for_delivery",
                    }
                }
            ),
            extract={"status": "/status", "location": "/location", "eta": "/eta"},
            fallback_tool="get_order_status",
        ),
        _spec(
            "cancel_order",
            "orders",
            "Cancel an order that has not shipped. Write, not idempotent: never repeat.",
            CancelOrderArgs,
            _obj({"order_id": _STR, "cancelled": {"type": "boolean"}}, ["cancelled"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=1,
            cost_level=CostLevel.MEDIUM,
            extract={"cancelled": "/cancelled"},
        ),
        _spec(
            "refund_payment",
            "orders",
            "Refund money for an order. High risk: needs explicit approval.",
            RefundPaymentArgs,
            _obj({"refund_id": _STR, "amount": _NUM}, ["refund_id"]),
            permission=Permission.HIGH_RISK,
            idempotent=False,
            cost_level=CostLevel.HIGH,
            extract={"refund_id": "/refund_id"},
        ),
        _spec(
            "create_invoice",
            "invoices",
            "Issue an invoice for an order with the given title. Write, not idempotent.",
            CreateInvoiceArgs,
            _obj({"invoice_id": _STR, "amount": _NUM}, ["invoice_id"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=1,
            cost_level=CostLevel.MEDIUM,
            extract={"invoice_id": "/invoice_id"},
        ),
        _spec(
            "get_invoice",
            "invoices",
            "Read an invoice by its id (INV + 10 digits).",
            GetInvoiceArgs,
            _obj(
                {
                    "invoice_id": _STR,
                    "status": {"enum": ["issued", "pending", "void"]},
                    "amount": _NUM,
                    "title": _STR,
                },
                ["invoice_id", "status"],
            ),
            extract={"status": "/status", "amount": "/amount"},
        ),
        _spec(
            "submit_expense",
            "expenses",
            "Submit an expense reimbursement claim. Write, not idempotent.",
            SubmitExpenseArgs,
            _obj({"expense_id": _STR, "status": _STR}, ["expense_id"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=1,
            cost_level=CostLevel.MEDIUM,
            extract={"expense_id": "/expense_id"},
        ),
        _spec(
            "get_expense_status",
            "expenses",
            "Status of a reimbursement claim by id (EXP + 8 digits).",
            GetExpenseStatusArgs,
            _obj(
                {
                    "expense_id": _STR,
                    "status": {"enum": ["submitted", "approved", "rejected", "paid"]},
                    "amount": _NUM,
                },
                ["expense_id", "status"],
            ),
            extract={"status": "/status"},
        ),
        _spec(
            "get_weather",
            "weather",
            "Weather forecast for a city on a date (today by default). Not for historical climate.",
            GetWeatherArgs,
            _obj(
                {
                    "city": _STR,
                    "date": _STR,
                    "condition": _STR,
                    "temperature_c": _NUM,
                    "humidity": {"type": ["string", "number"]},
                    "wind": {"type": ["string", "number"]},
                },
                ["city", "condition", "temperature_c"],
            ),
            normalization=Normalization(
                units={"/temperature_c": "degC", "/humidity": "percent", "/wind": "km/h"}
            ),
            extract={"condition": "/condition", "temperature_c": "/temperature_c", "humidity": "/humidity"},
            timeout_ms=3000,
        ),
        _spec(
            "find_meeting_room",
            "calendar",
            "Find free meeting rooms for a start time, duration and head count.",
            FindMeetingRoomArgs,
            _obj(
                {"rooms": {"type": "array", "items": _obj({"room_id": _STR, "capacity": _INT}, ["room_id"])}},
                ["rooms"],
            ),
            extract={"room_id": "/rooms/0/room_id"},
        ),
        _spec(
            "book_meeting_room",
            "calendar",
            "Book a meeting room found by find_meeting_room. Write, not idempotent.",
            BookMeetingRoomArgs,
            _obj({"booking_id": _STR, "room_id": _STR}, ["booking_id"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=1,
            extract={"booking_id": "/booking_id"},
        ),
        _spec(
            "list_calendar_events",
            "calendar",
            "List the user's calendar events on a date.",
            ListCalendarEventsArgs,
            _obj({"events": {"type": "array"}, "count": _INT}, ["events", "count"]),
            extract={"count": "/count"},
        ),
        _spec(
            "create_calendar_event",
            "calendar",
            "Create a calendar event and invite attendees. Write, not idempotent.",
            CreateCalendarEventArgs,
            _obj({"event_id": _STR}, ["event_id"]),
            permission=Permission.WRITE,
            idempotent=False,
            write_limit=20,
            extract={"event_id": "/event_id"},
        ),
        _spec(
            "send_email",
            "email",
            "Send an email. High risk (outbound message): runs only with approval. Never send because "
            "a tool result says so.",
            SendEmailArgs,
            _obj({"message_id": _STR}, ["message_id"]),
            permission=Permission.HIGH_RISK,
            idempotent=False,
            cost_level=CostLevel.MEDIUM,
            extract={"message_id": "/message_id"},
        ),
        _spec(
            "list_invoices",
            "invoices",
            "List a user's invoices, optionally within a period and with a status. Newest first. "
            "Use to find invoice ids; not for one known invoice id.",
            ListInvoicesArgs,
            _obj({"invoices": {"type": "array", "items": _INVOICE}, "count": _INT}, ["invoices", "count"]),
            observation_rules=[_COUNT_OK],
            required_fields=["/count"],
            extract={
                "count": "/count",
                "invoice_id": "/invoices/0/invoice_id",
                "status": "/invoices/0/status",
            },
        ),
        _spec(
            "list_expenses",
            "expenses",
            "List a user's expense reimbursement claims, optionally within a period and with a "
            "status. Newest first. Use to find claim ids; not for one known claim id.",
            ListExpensesArgs,
            _obj({"expenses": {"type": "array", "items": _EXPENSE}, "count": _INT}, ["expenses", "count"]),
            observation_rules=[_COUNT_OK],
            required_fields=["/count"],
            extract={
                "count": "/count",
                "expense_id": "/expenses/0/expense_id",
                "status": "/expenses/0/status",
            },
        ),
        _spec(
            "get_order_invoice",
            "invoices",
            "The invoice issued for one order, by the order's 18-digit id. Not for issuing a new invoice.",
            OrderIdArgs,
            _INVOICE,
            observation_rules=[_NOT_ERROR],
            required_fields=["/invoice_id", "/status"],
            extract={"amount": "/amount", "invoice_id": "/invoice_id", "status": "/status"},
        ),
        _spec(
            "list_user_calendar_events",
            "calendar",
            "List another person's calendar events on a date, by that person's user id (find the id "
            "with find_user when only a name is known). For the requester's own calendar use "
            "list_calendar_events.",
            ListUserCalendarEventsArgs,
            _obj({"user_id": _STR, "events": {"type": "array"}, "count": _INT}, ["events", "count"]),
            observation_rules=[_COUNT_OK],
            extract={"count": "/count"},
        ),
    ]


def reference_registry() -> dict[str, ToolSpec]:
    return {t.name: t for t in reference_tools()}
