"""The reference domain's 22 tools as plain functions over :class:`MockData` (served by
:mod:`tao.mock_service`).

Each handler returns ``(status_code, body)``; write tools also report that they had a side
effect (the service counts side effects per tool, which the tests read back).
"""

from __future__ import annotations

import calendar
import hashlib
import importlib
from collections.abc import Callable
from datetime import date
from typing import Any

from tao.domains.reference.lexicon import EN_CITIES, HOME_CITIES, ZH_CITIES
from tao.domains.reference.mock_data import MockData

Result = tuple[int, Any, bool]  # status, body, side effect happened
Handler = Callable[[MockData, dict[str, Any]], Result]

_EN_CITIES_LOWER = frozenset(c.lower() for c in EN_CITIES)
_LOGISTICS = {"shipped": "In Transit", "in_transit": "In Transit", "delivered": "Delivered"}


def _nf(what: str) -> Result:
    return 404, {"error": "not_found", "message": f"{what} not found"}, False


def _bad(msg: str) -> Result:
    return 400, {"error": "bad_request", "message": msg}, False


def _suffix(*parts: Any) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8]


def _parse_day(s: str, end: bool) -> date:
    parts = [int(p) for p in s.split("-")]
    if len(parts) == 2:
        y, m = parts
        return date(y, m, calendar.monthrange(y, m)[1] if end else 1)
    return date(*parts)


def _in_period(created: str, period: str | None) -> bool:
    if not period:
        return True
    lo, _, hi = period.partition("/")
    day = date.fromisoformat(created[:10])
    return _parse_day(lo, False) <= day <= _parse_day(hi or lo, True)


def find_user(d: MockData, a: dict) -> Result:
    for u in d.users.values():
        if (
            (a.get("name") and u["name"] == a["name"])
            or (a.get("email") and u["email"] == a["email"])
            or (a.get("phone") and u["phone"] == a["phone"])
        ):
            return 200, {"user_id": u["user_id"], "name": u["name"]}, False
    return _nf("user")


def get_user_profile(d: MockData, a: dict) -> Result:
    u = d.users.get(a.get("user_id", ""))
    return (200, dict(u), False) if u else _nf("user")


def update_user_profile(d: MockData, a: dict) -> Result:
    u = d.users.get(a.get("user_id", ""))
    if not u:
        return _nf("user")
    u[a["field"]] = a["value"]
    return 200, {"user_id": u["user_id"], "updated": True}, True


def list_orders(d: MockData, a: dict) -> Result:
    uid = a.get("user_id", "")
    if uid not in d.users:
        return _nf("user")
    try:
        rows = [
            o
            for o in d.orders.values()
            if o["user_id"] == uid
            and _in_period(o["created_at"], a.get("period"))
            and (not a.get("status") or o["status"] == a["status"])
        ]
    except ValueError:
        return _bad("period must be YYYY-MM[-DD][/YYYY-MM[-DD]]")
    rows.sort(key=lambda o: o["created_at"], reverse=True)
    out = [{k: o[k] for k in ("order_id", "status", "amount", "created_at")} for o in rows]
    return 200, {"orders": out, "count": len(out)}, False


def get_order_status(d: MockData, a: dict) -> Result:
    o = d.orders.get(a.get("order_id", ""))
    if not o:
        return _nf("order")
    return 200, {k: o[k] for k in ("order_id", "status", "updated_at", "amount")}, False


def get_logistics(d: MockData, a: dict) -> Result:
    o = d.orders.get(a.get("order_id", ""))
    if not o:
        return _nf("order")
    status = _LOGISTICS.get(o["status"], "unknown")
    body = {
        "order_id": o["order_id"],
        "carrier": o["carrier"],
        "tracking_no": o["tracking_no"],
        "status": status,
        "location": "上海转运中心" if status == "In Transit" else "",
        "eta": o["updated_at"],
    }
    return 200, body, False


def cancel_order(d: MockData, a: dict) -> Result:
    o = d.orders.get(a.get("order_id", ""))
    if not o:
        return _nf("order")
    if o["status"] in ("shipped", "in_transit", "delivered"):
        return 409, {"error": "conflict", "message": f"order already {o['status']}"}, False
    o["status"] = "cancelled"
    return 200, {"order_id": o["order_id"], "cancelled": True}, True


def refund_payment(d: MockData, a: dict) -> Result:
    o = d.orders.get(a.get("order_id", ""))
    if not o:
        return _nf("order")
    return 200, {"refund_id": "RF" + _suffix(o["order_id"], a.get("amount")), "amount": a.get("amount")}, True


def create_invoice(d: MockData, a: dict) -> Result:
    o = d.orders.get(a.get("order_id", ""))
    if not o:
        return _nf("order")
    iid = f"INV{len(d.invoices) + 1:010d}"
    d.invoices[iid] = {
        "invoice_id": iid,
        "status": "issued",
        "amount": o["amount"],
        "title": a.get("title", ""),
    }
    return 200, {"invoice_id": iid, "amount": o["amount"]}, True


def get_invoice(d: MockData, a: dict) -> Result:
    inv = d.invoices.get(a.get("invoice_id", ""))
    return (200, dict(inv), False) if inv else _nf("invoice")


def submit_expense(d: MockData, a: dict) -> Result:
    eid = f"EXP{len(d.expenses) + 1:08d}"
    d.expenses[eid] = {"expense_id": eid, "status": "submitted", "amount": a.get("amount")}
    return 200, {"expense_id": eid, "status": "submitted"}, True


def get_expense_status(d: MockData, a: dict) -> Result:
    e = d.expenses.get(a.get("expense_id", ""))
    return (200, dict(e), False) if e else _nf("expense")


def _world_city(city: str) -> bool | None:
    """Whether perception's world gazetteer knows ``city`` (None when perception is not installed:
    the domain imports only the contracts, so the gazetteer is looked up at run time)."""
    try:
        gz = importlib.import_module("thought_model.perception.gazetteer")
    except ImportError:
        return None
    return bool(gz.is_known_city(city))


def known_city(city: str) -> bool:
    """A city the weather mock answers for: the domain's cities, then any city the world gazetteer
    knows (Chinese or English name); without the gazetteer, any non-empty ASCII name."""
    if not city or not city.strip():
        return False
    if city in HOME_CITIES or city in ZH_CITIES or city.lower() in _EN_CITIES_LOWER:
        return True
    world = _world_city(city)
    return city.isascii() if world is None else world


def get_weather(d: MockData, a: dict) -> Result:
    city = a.get("city", "")
    if not known_city(city):
        return _nf("city")
    day = a.get("date") or d.today.isoformat()
    h = int(_suffix(city, day), 16)
    cond = ["晴", "多云", "阴", "小雨", "雷阵雨"][h % 5]
    return (
        200,
        {
            "city": city,
            "date": day,
            "condition": cond,
            "temperature_c": 5 + h % 25,
            "humidity": f"{40 + h % 50}%",
            "wind": f"{h % 20} km/h",
        },
        False,
    )


def find_meeting_room(d: MockData, a: dict) -> Result:
    rooms = [
        {"room_id": r["room_id"], "capacity": r["capacity"]}
        for r in d.rooms
        if r["capacity"] >= int(a.get("capacity", 1))
    ]
    return 200, {"rooms": rooms[:3]}, False


def book_meeting_room(d: MockData, a: dict) -> Result:
    if not any(r["room_id"] == a.get("room_id") for r in d.rooms):
        return _nf("room")
    return (
        200,
        {"booking_id": "BK" + _suffix(a.get("room_id"), a.get("start")), "room_id": a["room_id"]},
        True,
    )


def list_calendar_events(d: MockData, a: dict) -> Result:
    h = int(_suffix(a.get("date")), 16)
    events = [
        {"title": t, "start": f"{a.get('date', '')[:10]} {9 + 2 * k:02d}:00"}
        for k, t in enumerate(["周会", "需求评审", "1:1"][: h % 4])
    ]
    return 200, {"events": events, "count": len(events)}, False


def _newest_first(rows: list[dict], a: dict, status_key: str = "status") -> list[dict] | None:
    try:
        out = [
            r
            for r in rows
            if _in_period(r["created_at"], a.get("period"))
            and (not a.get("status") or r[status_key] == a["status"])
        ]
    except ValueError:
        return None
    return sorted(out, key=lambda r: r["created_at"], reverse=True)


def list_invoices(d: MockData, a: dict) -> Result:
    uid = a.get("user_id", "")
    if uid not in d.users:
        return _nf("user")
    rows = _newest_first([i for i in d.invoices.values() if i.get("user_id") == uid], a)
    if rows is None:
        return _bad("period must be YYYY-MM[-DD][/YYYY-MM[-DD]]")
    keys = ("invoice_id", "order_id", "status", "amount", "created_at")
    out = [{k: r[k] for k in keys if k in r} for r in rows]
    return 200, {"invoices": out, "count": len(out)}, False


def list_expenses(d: MockData, a: dict) -> Result:
    uid = a.get("user_id", "")
    if uid not in d.users:
        return _nf("user")
    rows = _newest_first([e for e in d.expenses.values() if e.get("user_id") == uid], a)
    if rows is None:
        return _bad("period must be YYYY-MM[-DD][/YYYY-MM[-DD]]")
    keys = ("expense_id", "status", "amount", "created_at")
    out = [{k: r[k] for k in keys if k in r} for r in rows]
    return 200, {"expenses": out, "count": len(out)}, False


def get_order_invoice(d: MockData, a: dict) -> Result:
    oid = a.get("order_id", "")
    if oid not in d.orders:
        return _nf("order")
    inv = next((i for i in d.invoices.values() if i.get("order_id") == oid), None)
    if inv is None:
        return _nf("invoice")
    keys = ("invoice_id", "order_id", "status", "amount", "created_at")
    return 200, {k: inv[k] for k in keys if k in inv}, False


def list_user_calendar_events(d: MockData, a: dict) -> Result:
    uid = a.get("user_id", "")
    if uid not in d.users:
        return _nf("user")
    day = a.get("date", "")[:10]
    h = int(_suffix(uid, day), 16)
    events = [
        {"title": t, "start": f"{day} {10 + 2 * k:02d}:00"}
        for k, t in enumerate(["站会", "客户拜访", "项目复盘"][: h % 4])
    ]
    return 200, {"user_id": uid, "events": events, "count": len(events)}, False


def create_calendar_event(d: MockData, a: dict) -> Result:
    return 200, {"event_id": "EV" + _suffix(a.get("title"), a.get("start"))}, True


def send_email(d: MockData, a: dict) -> Result:
    return 200, {"message_id": "MSG" + _suffix(a.get("to"), a.get("subject"))}, True


HANDLERS: dict[str, Handler] = {
    f.__name__: f
    for f in (
        find_user,
        get_user_profile,
        update_user_profile,
        list_orders,
        get_order_status,
        get_logistics,
        cancel_order,
        refund_payment,
        create_invoice,
        get_invoice,
        submit_expense,
        get_expense_status,
        get_weather,
        find_meeting_room,
        book_meeting_room,
        list_calendar_events,
        create_calendar_event,
        send_email,
        list_invoices,
        list_expenses,
        get_order_invoice,
        list_user_calendar_events,
    )
}
