"""Schema helpers of the carry-over step: which arguments take a follow-up's value, how a time
value merges with the carried one, how a value is written into a rewritten request."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from tao.contracts import SessionState
from tao.contracts.timeexpr import TimeSymbolError, resolve_symbol
from tao.loop.followup import Delta

_TIME_PROP = "@(now|today"
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DAYTIME = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})$")
_CLOCK = re.compile(r"T(\d{2}:\d{2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_WORDS = {
    "order_id": ("订单", "order"),
    "room_id": ("会议室", "room"),
    "invoice_id": ("发票", "invoice"),
    "expense_id": ("报销单", "expense"),
    "event_id": ("日程", "event"),
    "booking_id": ("预订", "booking"),
    "user_id": ("用户", "user"),
}
_MONTHS_EN = "January February March April May June July August September October November December".split()


@lru_cache(maxsize=512)
def _validator(schema_json: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(json.loads(schema_json))


def accepts(prop: Mapping[str, Any], value: Any) -> bool:
    try:
        return bool(_validator(json.dumps(prop, sort_keys=True)).is_valid(value))
    except Exception:
        return False


def _props(schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in (schema.get("properties") or {}).items() if isinstance(v, dict)}


def _is_time(prop: Mapping[str, Any]) -> bool:
    return _TIME_PROP in json.dumps(prop)


def _is_int(prop: Mapping[str, Any]) -> bool:
    return '"integer"' in json.dumps(prop)


def _targets(d: Delta, schema: Mapping[str, Any], used: Mapping[str, Any]) -> list[str]:
    """The arguments of one tool that can take one delta, preferred first (those the previous
    plan set, then required ones)."""
    props = _props(schema)
    req = set(schema.get("required") or [])
    if d.type == "DATE":
        names = [k for k, p in props.items() if _is_time(p)]
    elif d.type == "DUR":
        names = [k for k, p in props.items() if _is_int(p) and ("duration" in k or k.endswith("_min"))]
    elif d.type == "NUM":
        names = [k for k, p in props.items() if _is_int(p) and "duration" not in k and not k.endswith("_min")]
    elif d.type == "AMOUNT":
        names = [k for k, p in props.items() if "amount" in k and accepts(p, d.value)]
    elif d.type == "CITY":
        names = [k for k, p in props.items() if "city" in k and accepts(p, d.value)]
    elif d.type == "EMAIL":  # "same email to c@d.com": the recipient (or a finding step's email)
        names = [k for k, p in props.items() if k in ("to", "email") and accepts(p, d.value)]
    elif d.type.startswith("ENUM:"):  # a filter value ("refunded", "已取消") of the named argument
        arg = d.type.removeprefix("ENUM:")
        names = [arg] if arg in props and accepts(props[arg], d.value) else []
    else:  # an id kind of the lexicon
        names = [
            k
            for k, p in props.items()
            if isinstance(d.value, str) and accepts(p, d.value) and not _is_time(p) and k.endswith("_id")
        ]
    return sorted(names, key=lambda k: (k not in used, k not in req))


def _resolve(value: Any, session: SessionState, now: datetime) -> Any:
    if isinstance(value, str) and value.startswith("@"):
        try:
            return resolve_symbol(value, session, now=now)
        except TimeSymbolError:
            return value
    return value


def _time_value(d: Delta, prev: Any, session: SessionState, now: datetime) -> Any:
    """A time delta against the carried value: a clock time alone keeps the carried day, a day
    alone keeps the carried clock time; otherwise the delta itself (a symbol is resolved by the
    loop against this turn's clock, as any request's)."""
    prev_s = prev if isinstance(prev, str) else ""
    pm = _DAYTIME.match(prev_s)
    if d.time_only and isinstance(d.value, str):
        clock = _CLOCK.search(d.value)
        day = pm.group(1) if pm else (prev_s if _DAY.match(prev_s) else None)
        if clock and day:
            return f"{day} {clock.group(1)}"
    if pm and isinstance(d.value, str) and not _CLOCK.search(d.value):
        day = _resolve(d.value, session, now)
        if isinstance(day, str) and _DAY.match(day):
            return f"{day} {pm.group(2)}"
    return d.value


def _render(d: Delta, value: Any, zh: bool) -> str:
    """How a delta is written into a rewritten request."""
    if isinstance(value, str) and (m := _MONTH.match(value)):
        y, mo = int(m.group(1)), int(m.group(2))
        return f"{y}年{mo}月" if zh else f"{_MONTHS_EN[mo - 1]} {y}"
    if isinstance(value, str) and (m := _DAYTIME.match(value)):
        return f"{m.group(1)} {m.group(2)}" if zh else f"on {m.group(1)} at {m.group(2)}"
    if isinstance(value, str) and _DAY.match(value) and not zh:
        return f"on {value}"
    if d.type == "DATE" and isinstance(value, str) and value.startswith("@"):
        return d.text
    return str(value) if d.type not in ("NUM", "DUR") else d.text
