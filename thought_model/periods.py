"""Periods of the list tools decided by the request's date words.

``list_orders`` / ``list_invoices`` / ``list_expenses`` take an optional ``period`` (a date, a
month or ``D1/D2``). Two date words that bound a range ("between D1 and D2", "from D1 to D2",
"D1 到 D2", "D1 至 D2") are **one** period, not two steps (nor the first date alone): the list
steps that use either date get ``D1/D2`` and the copies for the other date are merged into them.
A day word that is only part of a greeting ("Happy Monday!", "周五快乐", "周一好呀", "have a
nice weekend") is no period: a list step whose period is that date loses it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.entities import Perception
from thought_model.plan_edit import Draft, build, drafts

PERIOD_TOOLS = frozenset({"list_orders", "list_invoices", "list_expenses"})

_TOK = r"(<DATE\d+>)"
_RANGES = [
    re.compile(rf"\bbetween\s+{_TOK}\s+and\s+{_TOK}", re.I),
    re.compile(rf"{_TOK}\s*(?:to|till|until|through|thru|-|–|—|~|\uff5e)\s*{_TOK}", re.I),
    re.compile(rf"{_TOK}\s*(?:到|至|~|\uff5e|-|—)\s*{_TOK}"),
]
_GREETING = [
    re.compile(rf"\bhappy\s+{_TOK}", re.I),
    re.compile(rf"\b(?:have|enjoy)\s+(?:a|an|your)\s+(?:\w+\s+)?{_TOK}", re.I),
    re.compile(rf"{_TOK}\s*(?:快乐|好呀|好啊|好哇|好！|好!|好，|好,|愉快)"),
    re.compile(rf"(?:祝你?|祝您)\s*{_TOK}"),
]


def date_ranges(p: Perception) -> list[tuple[str, str]]:
    """(first, last) date values of the ranges the request states, in order."""
    out: list[tuple[str, str]] = []
    for rx in _RANGES:
        for m in rx.finditer(p.masked):
            a, b = p.slots.get(m.group(1)), p.slots.get(m.group(2))
            if isinstance(a, str) and isinstance(b, str) and a < b and (a, b) not in out:
                out.append((a, b))
    return out


def greeting_dates(p: Perception) -> set[str]:
    """Date values the request names only inside a greeting ("Happy Monday", "周五快乐")."""
    greet = Counter(m.group(1) for rx in _GREETING for m in rx.finditer(p.masked))
    out = set()
    for t, n in greet.items():
        v = p.slots.get(t)
        if isinstance(v, str) and p.masked.count(t) <= n:
            out.add(v)
    others = {v for t, v in p.slots.items() if t.startswith("<DATE") and t not in greet}
    return out - others


def _merge_range(steps: list[Draft], a: str, b: str) -> bool:
    changed = False
    kept: dict[tuple[str, str], Draft] = {}
    out: list[Draft] = []
    for d in steps:
        if d.tool not in PERIOD_TOOLS or d.arguments.get("period") not in (a, b):
            out.append(d)
            continue
        rest = json_key({k: v for k, v in d.arguments.items() if k != "period"})
        first = kept.get((d.tool, rest))
        if first is None:
            d.arguments["period"] = f"{a}/{b}"
            kept[(d.tool, rest)] = d
            out.append(d)
        else:  # the copy for the other end: its users take the first one
            for o in steps:
                o.arguments = {k: _retarget(v, d.key, first.key) for k, v in o.arguments.items()}
                o.dependencies = list(dict.fromkeys(first.key if x == d.key else x for x in o.dependencies))
        changed = True
    steps[:] = out
    return changed


def json_key(args: dict[str, Any]) -> str:
    import json

    return json.dumps(args, sort_keys=True, ensure_ascii=False)


def _retarget(v: Any, old: str, new: str) -> Any:
    if isinstance(v, list):
        return [_retarget(x, old, new) for x in v]
    if isinstance(v, str) and v.startswith(f"${{{old}."):
        return f"${{{new}." + v[len(old) + 3 :]
    return v


def fix_periods(plan: ThoughtPlan, p: Perception) -> ThoughtPlan:
    """``plan`` with range periods merged and greeting days dropped (module doc); ``plan`` itself
    when nothing changes."""
    steps = drafts(plan)
    changed = False
    for a, b in date_ranges(p):
        changed |= _merge_range(steps, a, b)
    greet = greeting_dates(p)
    for d in steps:
        if d.tool in PERIOD_TOOLS and d.arguments.get("period") in greet:
            d.arguments = {k: v for k, v in d.arguments.items() if k != "period"}
            changed = True
    if not changed:
        return plan
    out = build(plan, steps)
    return out if out is not None else plan
