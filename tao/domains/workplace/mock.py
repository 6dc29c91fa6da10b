"""The workplace tools as plain functions over small deterministic mock data (served by
:mod:`tao.mock_service`): ``handler(data, args) -> (status, body, side effect happened)``.

Employees are the helpdesk domain's ids (``E`` + 6 digits, the same generator), so a combined
registry's find_employee result feeds request_leave. Relative dates (``@tomorrow``) arrive resolved.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

Result = tuple[int, Any, bool]

_N_EMPLOYEES = 10
_LEAVE_TYPES = ("annual", "sick", "personal", "parental")
_STATUSES = ("pending", "approved", "rejected", "cancelled")
_CARRIERS = ("CA", "MU", "CZ", "HU", "BA", "AF")
_HOTELS = ("Grand Plaza", "City Inn", "Riverside Hotel", "Garden Suites", "Airport Lodge")


def employee_ids() -> list[str]:
    """The employee ids the helpdesk mock generates (same formula)."""
    return [f"E{100000 + 4111 * i:06d}" for i in range(_N_EMPLOYEES)]


def _id(prefix: str, *parts: Any, digits: int = 6) -> str:
    h = int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest(), 16)
    return f"{prefix}{h % 10**digits:0{digits}d}"


@dataclass
class WorkplaceData:
    """Leave balances and requests per employee, flight/hotel offers made on search, trips."""

    balances: dict[str, dict[str, float]] = field(default_factory=dict)
    leaves: dict[str, dict[str, Any]] = field(default_factory=dict)
    flights: dict[str, dict[str, Any]] = field(default_factory=dict)
    hotels: dict[str, dict[str, Any]] = field(default_factory=dict)
    trips: dict[str, dict[str, Any]] = field(default_factory=dict)
    today: date = field(default_factory=date.today)
    counter: int = 0

    @classmethod
    def generate(cls, seed: int = 7, today: date | None = None) -> WorkplaceData:
        rng = random.Random(seed)
        d = cls(today=today or date.today())
        for i, eid in enumerate(employee_ids()):
            d.balances[eid] = {"annual": 5.0 + i % 10, "sick": 10.0 - i % 4, "personal": 3.0, "parental": 0.0}
            for k in range(1 + i % 3):
                lid = f"LV-{rng.randint(100000, 999999)}"
                start = d.today - timedelta(days=rng.randint(-30, 90))
                d.leaves[lid] = {
                    "leave_id": lid,
                    "employee_id": eid,
                    "leave_type": _LEAVE_TYPES[(i + k) % 3],
                    "start_date": start.isoformat(),
                    "end_date": (start + timedelta(days=k)).isoformat(),
                    "status": _STATUSES[(i + k) % len(_STATUSES)],
                    "seq": rng.random(),
                }
            tid = f"TRP-{rng.randint(100000, 999999)}"
            d.trips[tid] = {
                "trip_id": tid,
                "employee_id": eid,
                "status": "booked",
                "bookings": [],
                "total": 0.0,
            }
        return d


def _nf(what: str) -> Result:
    return 404, {"error": "not_found", "message": f"{what} not found"}, False


def _bad(msg: str) -> Result:
    return 400, {"error": "bad_request", "message": msg}, False


def _day(s: Any) -> date | None:
    try:
        return date.fromisoformat(str(s)[:10])
    except ValueError:
        return None


def get_leave_balance(d: WorkplaceData, a: dict) -> Result:
    b = d.balances.get(a.get("employee_id", ""))
    if b is None:
        return _nf("employee")
    lt = a.get("leave_type")
    body: dict[str, Any] = {"employee_id": a["employee_id"], "balances": dict(b)}
    if lt:
        body["days"] = b.get(lt, 0.0)
    return 200, body, False


def request_leave(d: WorkplaceData, a: dict) -> Result:
    eid = a.get("employee_id", "")
    if eid not in d.balances:
        return _nf("employee")
    start, end = _day(a.get("start_date")), _day(a.get("end_date"))
    if start is None or end is None or end < start:
        return _bad("start_date and end_date must be dates, end not before start")
    days = float((end - start).days + 1)
    lt = a.get("leave_type", "annual")
    if d.balances[eid].get(lt, 0.0) < days and lt != "sick":
        return (
            409,
            {"error": "insufficient_balance", "message": f"only {d.balances[eid].get(lt)} {lt} days"},
            False,
        )
    d.counter += 1
    lid = _id("LV-", eid, start, end, d.counter)
    d.leaves[lid] = {
        "leave_id": lid,
        "employee_id": eid,
        "leave_type": lt,
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "status": "pending",
        "seq": 2.0 + d.counter,
    }
    return 200, {"leave_id": lid, "status": "pending", "days": days}, True


def _leave_view(x: dict[str, Any]) -> dict[str, Any]:
    return {k: x[k] for k in ("leave_id", "leave_type", "start_date", "end_date", "status")}


def list_leave_requests(d: WorkplaceData, a: dict) -> Result:
    eid = a.get("employee_id", "")
    if eid not in d.balances:
        return _nf("employee")
    rows = [x for x in d.leaves.values() if x["employee_id"] == eid]
    if a.get("status"):
        rows = [x for x in rows if x["status"] == a["status"]]
    rows.sort(key=lambda x: -x["seq"])
    return 200, {"requests": [_leave_view(x) for x in rows], "count": len(rows)}, False


def cancel_leave_request(d: WorkplaceData, a: dict) -> Result:
    x = d.leaves.get(a.get("leave_id", ""))
    if x is None:
        return _nf("leave request")
    if x["status"] not in ("pending", "approved"):
        return 409, {"error": "conflict", "message": f"leave request is {x['status']}"}, False
    x["status"] = "cancelled"
    return 200, {"leave_id": x["leave_id"], "cancelled": True}, True


def get_payslip(d: WorkplaceData, a: dict) -> Result:
    eid, month = a.get("employee_id", ""), str(a.get("month", ""))
    if eid not in d.balances:
        return _nf("employee")
    gross = 12000.0 + int(_id("", eid, digits=4)) % 9000
    tax = round(gross * 0.12, 2)
    return 200, {"month": month, "gross": gross, "tax": tax, "net": round(gross - tax - 1200.0, 2)}, False


def search_flights(d: WorkplaceData, a: dict) -> Result:
    o, dst, day = a.get("origin", ""), a.get("destination", ""), _day(a.get("date"))
    if not o or not dst or day is None:
        return _bad("origin, destination and date are required")
    if o.lower() == dst.lower():
        return _bad("origin and destination are the same city")
    cabin = a.get("cabin", "economy")
    out = []
    for k in range(3):
        fid = _id("FLT-", o, dst, day, cabin, k)
        price = 600.0 + int(fid[-3:]) + 800 * ("economy", "premium", "business").index(cabin) + 150 * k
        row = {"flight_id": fid, "flight_no": f"{_CARRIERS[k]}{1000 + int(fid[-4:]) % 9000}"}
        row |= {"depart": f"{day.isoformat()} {8 + 4 * k:02d}:00", "price": price}
        d.flights[fid] = {**row, "origin": o, "destination": dst}
        out.append(row)
    out.sort(key=lambda r: r["price"])
    return 200, {"flights": out, "count": len(out)}, False


def _trip_for(d: WorkplaceData, eid: str) -> dict[str, Any]:
    d.counter += 1
    tid = _id("TRP-", eid, d.counter)
    trip = {"trip_id": tid, "employee_id": eid, "status": "booked", "bookings": [], "total": 0.0}
    d.trips[tid] = trip
    return trip


def book_flight(d: WorkplaceData, a: dict) -> Result:
    f, eid = d.flights.get(a.get("flight_id", "")), a.get("employee_id", "")
    if f is None:
        return _nf("flight offer")
    if eid not in d.balances:
        return _nf("employee")
    trip = _trip_for(d, eid)
    trip["bookings"].append({"kind": "flight", "id": f["flight_id"], "price": f["price"]})
    trip["total"] += f["price"]
    return 200, {"booking_id": _id("BKF-", f["flight_id"], d.counter), "trip_id": trip["trip_id"]}, True


def search_hotels(d: WorkplaceData, a: dict) -> Result:
    city, day = a.get("city", ""), _day(a.get("check_in"))
    if not city or day is None:
        return _bad("city and check_in are required")
    nights = int(a.get("nights") or 1)
    out = []
    for k, name in enumerate(_HOTELS[:3]):
        hid = _id("HTL-", city, day, k, digits=5)
        row = {"hotel_id": hid, "name": f"{city} {name}", "price_per_night": 300.0 + int(hid[-3:])}
        d.hotels[hid] = {**row, "nights": nights}
        out.append(row)
    out.sort(key=lambda r: r["price_per_night"])
    return 200, {"hotels": out, "count": len(out)}, False


def book_hotel(d: WorkplaceData, a: dict) -> Result:
    h, eid = d.hotels.get(a.get("hotel_id", "")), a.get("employee_id", "")
    if h is None:
        return _nf("hotel offer")
    if eid not in d.balances:
        return _nf("employee")
    trip = _trip_for(d, eid)
    cost = h["price_per_night"] * h["nights"]
    trip["bookings"].append({"kind": "hotel", "id": h["hotel_id"], "price": cost})
    trip["total"] += cost
    return 200, {"booking_id": _id("BKH-", h["hotel_id"], d.counter), "trip_id": trip["trip_id"]}, True


def get_trip(d: WorkplaceData, a: dict) -> Result:
    t = d.trips.get(a.get("trip_id", ""))
    if t is None:
        return _nf("trip")
    return 200, {k: t[k] for k in ("trip_id", "status", "bookings", "total")}, False


def cancel_trip(d: WorkplaceData, a: dict) -> Result:
    t = d.trips.get(a.get("trip_id", ""))
    if t is None:
        return _nf("trip")
    if t["status"] == "cancelled":
        return 409, {"error": "conflict", "message": "trip already cancelled"}, False
    t["status"] = "cancelled"
    return 200, {"trip_id": t["trip_id"], "cancelled": True, "fee": round(0.1 * t["total"], 2)}, True


HANDLERS: dict[str, Callable[[WorkplaceData, dict[str, Any]], Result]] = {
    f.__name__: f
    for f in (
        get_leave_balance,
        request_leave,
        list_leave_requests,
        cancel_leave_request,
        get_payslip,
        search_flights,
        book_flight,
        search_hotels,
        book_hotel,
        get_trip,
        cancel_trip,
    )
}
