"""Deterministic resolution of relative time symbols (``"@last_month"``, ``"@tomorrow T15:00"``).

The plan model emits symbols (see :data:`tao.contracts.plan.TIME_SYMBOL_PATTERN`); this module
turns them into the concrete forms the tool contracts accept, against the session's clock and
time zone — never the model's arithmetic:

* a day (``@today``, ``@days_ago:3``) → ``"YYYY-MM-DD"``;
* a range (``@last_month``, ``@this_week``, ``@this_weekend``, ``@last_days:7``) →
  ``"YYYY-MM-DD/YYYY-MM-DD"`` (both ends inclusive, ISO weeks start on Monday; weekends and
  last/next N days: :mod:`tao.contracts.daysymbols`). An argument that takes one date gets one
  step per day instead (:func:`tao.loop.multiday.expand_multi_day_steps`, run on the plan first);
* a symbol with a time (``@tomorrow T15:00``) or ``@now`` → ``"YYYY-MM-DD HH:MM"`` (a range with a
  time resolves to its first day at that time).

It lives with the contracts (pure functions, stdlib + :mod:`tao.contracts.plan`, no models of its
own) because both sides of a plan need it: the loop resolves the symbols before a call, and the
planner side (perception, evaluation) must agree on the same calendar. Below both, it imports
neither.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tao.contracts.daysymbols import DAY_SYMBOL_ALTS, day_symbol_range
from tao.contracts.plan import TIME_SYMBOL_PATTERN, SessionState

ANY_TIME_SYMBOL_PATTERN = (
    TIME_SYMBOL_PATTERN
    if DAY_SYMBOL_ALTS in TIME_SYMBOL_PATTERN
    else TIME_SYMBOL_PATTERN.replace("^@(", rf"^@({DAY_SYMBOL_ALTS}|", 1)
)
"""The symbols this module resolves: :data:`~tao.contracts.plan.TIME_SYMBOL_PATTERN` plus the
multi-day ones (``@this_weekend``, ``@next_weekend``, ``@last_days:N``, ``@next_days:N``)."""
_SYMBOL = re.compile(ANY_TIME_SYMBOL_PATTERN)


class TimeSymbolError(ValueError):
    """A symbol that looks like a time expression but cannot be resolved."""


def session_now(session: SessionState | None) -> datetime:
    """The session's current local time (its ``now`` in its time zone; the server clock if unset)."""
    tzname = session.timezone if session else "Asia/Shanghai"
    try:
        tz = ZoneInfo(tzname)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise TimeSymbolError(f"unknown time zone {tzname!r}") from exc
    now = session.now if session and session.now else datetime.now(UTC)
    if now.tzinfo is None:
        return now.replace(tzinfo=tz)
    return now.astimezone(tz)


def session_today(session: SessionState | None) -> date:
    """The session's local date: its ``now`` (or the server clock) in its time zone, so a session in
    Asia/Shanghai at 23:30 UTC is already on the next day. An unknown time zone falls back to the
    date the clock itself shows (resolving a time symbol reports that zone as an error)."""
    try:
        return session_now(session).date()
    except TimeSymbolError:
        now = session.now if session and session.now else datetime.now(UTC)
        return now.date()


def _month_range(year: int, month: int) -> tuple[date, date]:
    start = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return start, nxt - timedelta(days=1)


def _range(name: str, today: date) -> tuple[date, date]:
    """(first, last) day of a symbol; a single day has first == last."""
    if name in ("now", "today"):
        return today, today
    simple = {"yesterday": -1, "tomorrow": 1, "day_after_tomorrow": 2}
    if name in simple:
        d = today + timedelta(days=simple[name])
        return d, d
    if name.startswith("days_ago:"):
        d = today - timedelta(days=int(name.split(":")[1]))
        return d, d
    if name.startswith("in_days:"):
        d = today + timedelta(days=int(name.split(":")[1]))
        return d, d
    monday = today - timedelta(days=today.weekday())
    weeks = {"this_week": 0, "last_week": -1, "next_week": 1}
    if name in weeks:
        start = monday + timedelta(weeks=weeks[name])
        return start, start + timedelta(days=6)
    if name == "this_month":
        return _month_range(today.year, today.month)
    if name == "last_month":
        return _month_range(today.year - (today.month == 1), (today.month - 2) % 12 + 1)
    if name == "next_month":
        return _month_range(today.year + (today.month == 12), today.month % 12 + 1)
    if name == "this_year":
        return date(today.year, 1, 1), date(today.year, 12, 31)
    if name == "last_year":
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    days = day_symbol_range(name, today)  # @this_weekend, @last_days:N, ...
    if days is not None:
        return days
    raise TimeSymbolError(f"unknown time symbol @{name}")


def is_time_symbol(value: Any) -> bool:
    return isinstance(value, str) and _SYMBOL.match(value) is not None


def resolve_symbol(value: str, session: SessionState | None = None, *, now: datetime | None = None) -> str:
    """Resolve one symbol string; raises :class:`TimeSymbolError` if it is not a valid symbol."""
    m = _SYMBOL.match(value)
    if m is None:
        raise TimeSymbolError(f"not a time symbol: {value!r}")
    name, clock = m.group(1), m.group(2)
    local = now if now is not None else session_now(session)
    first, last = _range(name, local.date())
    if clock:
        hh, mm = clock.strip()[1:].split(":")
        if int(hh) > 23:
            raise TimeSymbolError(f"hour out of range in {value!r}")
        return f"{first.isoformat()} {hh}:{mm}"
    if name == "now":
        return local.strftime("%Y-%m-%d %H:%M")
    if first == last:
        return first.isoformat()
    return f"{first.isoformat()}/{last.isoformat()}"


def resolve_times(value: Any, session: SessionState | None = None) -> Any:
    """Resolve every time symbol inside a JSON value (dicts and lists walked recursively)."""
    now = session_now(session)

    def walk(v: Any) -> Any:
        if isinstance(v, str) and v.startswith("@") and _SYMBOL.match(v):
            return resolve_symbol(v, session, now=now)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    return walk(value)
