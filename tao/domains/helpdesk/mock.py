"""The helpdesk tools as plain functions over small deterministic mock data (served by
:mod:`tao.mock_service`): ``handler(data, args) -> (status, body, side effect happened)``."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

Result = tuple[int, Any, bool]

_PEOPLE = (
    ("张伟", "zhang.wei"),
    ("王芳", "wang.fang"),
    ("李娜", "li.na"),
    ("刘洋", "liu.yang"),
    ("陈静", "chen.jing"),
    ("Alice Chen", "alice.chen"),
    ("Bob Smith", "bob.smith"),
    ("Grace Kim", "grace.kim"),
    ("David Lee", "david.lee"),
    ("Emma Brown", "emma.brown"),
)
_DEPARTMENTS = ("Engineering", "Finance", "Sales", "HR", "IT", "Marketing")
_LOCATIONS = ("Shanghai HQ", "Beijing Office", "Shenzhen Office", "London Office", "Remote")
_MODELS = (
    ("laptop", "ThinkPad X1 Carbon"),
    ("laptop", "MacBook Pro 14"),
    ("phone", "iPhone 15"),
    ("monitor", "Dell U2723QE"),
    ("phone", "Pixel 8"),
)
_STATUSES = ("open", "in_progress", "waiting", "resolved", "closed")
_ASSIGNEES = ("IT Desk", "Network Team", "Li Ming", "Sam Turner")


@dataclass
class HelpdeskData:
    """Employees (``E`` + 6 digits), their tickets (``TCK-`` + 6 digits) and devices (``AT-`` + 5)."""

    employees: dict[str, dict[str, Any]] = field(default_factory=dict)
    tickets: dict[str, dict[str, Any]] = field(default_factory=dict)
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    counter: int = 0

    @classmethod
    def generate(cls, seed: int = 7, today: date | None = None) -> HelpdeskData:
        rng = random.Random(seed)
        d = cls()
        ids = [f"E{100000 + 4111 * i:06d}" for i in range(len(_PEOPLE))]
        for i, ((name, mail), eid) in enumerate(zip(_PEOPLE, ids, strict=True)):
            d.employees[eid] = {
                "employee_id": eid,
                "name": name,
                "email": f"{mail}@corp.example.com",
                "department": _DEPARTMENTS[i % len(_DEPARTMENTS)],
                "manager_id": ids[(i + 3) % len(ids)],
                "location": _LOCATIONS[i % len(_LOCATIONS)],
            }
            for k in range(1 + i % 3):
                tid = f"TCK-{rng.randint(100000, 999999)}"
                d.tickets[tid] = {
                    "ticket_id": tid,
                    "employee_id": eid,
                    "status": _STATUSES[(i + k) % len(_STATUSES)],
                    "summary": "VPN disconnects" if k == 0 else "laptop battery drains fast",
                    "assignee": _ASSIGNEES[(i + k) % len(_ASSIGNEES)],
                    "seq": rng.random(),
                }
            for k in range(1 + i % 2):
                tag = f"AT-{rng.randint(10000, 99999)}"
                typ, model = _MODELS[(i + k) % len(_MODELS)]
                d.devices[tag] = {"asset_tag": tag, "model": model, "type": typ, "employee_id": eid}
        return d


def _nf(what: str) -> Result:
    return 404, {"error": "not_found", "message": f"{what} not found"}, False


def _bad(msg: str) -> Result:
    return 400, {"error": "bad_request", "message": msg}, False


def _id(prefix: str, *parts: Any, digits: int = 6) -> str:
    h = int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest(), 16)
    return f"{prefix}{h % 10**digits:0{digits}d}"


def find_employee(d: HelpdeskData, a: dict) -> Result:
    name, email = (a.get("name") or "").strip(), (a.get("email") or "").strip().lower()
    if not name and not email:
        return _bad("name or email is required")
    for e in d.employees.values():
        if (name and e["name"].lower() == name.lower()) or (email and e["email"] == email):
            return 200, {k: e[k] for k in ("employee_id", "name", "email")}, False
    for e in d.employees.values():  # a first name alone ("Alice")
        if name and e["name"].lower().split()[0] == name.lower():
            return 200, {k: e[k] for k in ("employee_id", "name", "email")}, False
    return _nf("employee")


def get_employee(d: HelpdeskData, a: dict) -> Result:
    e = d.employees.get(a.get("employee_id", ""))
    return (200, dict(e), False) if e else _nf("employee")


def reset_password(d: HelpdeskData, a: dict) -> Result:
    eid, system = a.get("employee_id", ""), a.get("system")
    if eid not in d.employees:
        return _nf("employee")
    if system not in ("email", "vpn", "erp", "wifi"):
        return _bad(f"unknown system {system!r}")
    d.counter += 1
    return 200, {"reset_id": _id("RST-", eid, system, d.counter), "system": system}, True


def create_ticket(d: HelpdeskData, a: dict) -> Result:
    eid = a.get("employee_id", "")
    if eid not in d.employees:
        return _nf("employee")
    if not a.get("summary") or not a.get("category"):
        return _bad("category and summary are required")
    d.counter += 1
    tid = _id("TCK-", eid, a["summary"], d.counter)
    d.tickets[tid] = {
        "ticket_id": tid,
        "employee_id": eid,
        "status": "open",
        "summary": a["summary"],
        "assignee": "IT Desk",
        "seq": 2.0 + d.counter,
    }
    return 200, {"ticket_id": tid, "status": "open"}, True


def _ticket_view(t: dict[str, Any]) -> dict[str, Any]:
    return {k: t[k] for k in ("ticket_id", "status", "summary", "assignee")}


def get_ticket(d: HelpdeskData, a: dict) -> Result:
    t = d.tickets.get(a.get("ticket_id", ""))
    return (200, _ticket_view(t), False) if t else _nf("ticket")


def list_tickets(d: HelpdeskData, a: dict) -> Result:
    eid = a.get("employee_id", "")
    if eid not in d.employees:
        return _nf("employee")
    ts = [t for t in d.tickets.values() if t["employee_id"] == eid]
    if a.get("status"):
        ts = [t for t in ts if t["status"] == a["status"]]
    ts.sort(key=lambda t: -t["seq"])
    return 200, {"tickets": [_ticket_view(t) for t in ts], "count": len(ts)}, False


def list_devices(d: HelpdeskData, a: dict) -> Result:
    eid = a.get("employee_id", "")
    if eid not in d.employees:
        return _nf("employee")
    ds = [
        {k: v[k] for k in ("asset_tag", "model", "type")}
        for v in d.devices.values()
        if v["employee_id"] == eid
    ]
    return 200, {"devices": ds, "count": len(ds)}, False


def request_device_replacement(d: HelpdeskData, a: dict) -> Result:
    dev = d.devices.get(a.get("asset_tag", ""))
    if dev is None:
        return _nf("device")
    if not a.get("reason"):
        return _bad("reason is required")
    d.counter += 1
    tid = _id("TCK-", dev["asset_tag"], a["reason"], d.counter)
    d.tickets[tid] = {
        "ticket_id": tid,
        "employee_id": dev["employee_id"],
        "status": "open",
        "summary": f"replace {dev['model']}: {a['reason']}",
        "assignee": "IT Desk",
        "seq": 2.0 + d.counter,
    }
    return 200, {"request_id": _id("REQ-", tid), "ticket_id": tid}, True


HANDLERS: dict[str, Callable[[HelpdeskData, dict[str, Any]], Result]] = {
    f.__name__: f
    for f in (
        find_employee,
        get_employee,
        reset_password,
        create_ticket,
        get_ticket,
        list_tickets,
        list_devices,
        request_device_replacement,
    )
}
