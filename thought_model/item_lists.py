"""A clause that asks about *its* records without an id: the list, not a missing id.

"看下我的发票", "跟他的订单", "<DATE2>的发票", "顺便看看发票开了没": the clause model answers
``insufficient_context`` for a single-record read (``query_invoice`` missing ``invoice_id``) although
the registry serves the ask. :func:`served_instead` plans it from the contracts:

* a **read of the record another clause names**: a read tool whose one required argument is an id
  slot of the request (another clause's ``<ORDER1>``) and which extracts the missing id
  (``get_order_invoice(order_id)`` → ``invoice_id``): "单号 <ORDER1> 到哪了 顺便看看发票开了没";
* else the **list** of those records: a read tool that extracts the missing id and requires only a
  user id, for the speaker (我 / my, with a session user) or for the user another clause names
  ("查下用户 <USER1> 的资料 跟他的订单"), on the clause's period (its ``<DATE>`` slot) when the tool
  takes one.

Only for a clause whose single missing field is such an id, that no slot of the request gives, and
that has no selection word ("最近那张", "my latest": the model's own list → read chain handles it).
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import InsufficientContext, PlanStep, ThoughtPlan, ToolSpec
from tao.contracts.tools import Permission
from thought_model.clauses import Clause
from thought_model.registry_graph import RegistryGraph

_SELECT = re.compile(r"最近|最新|最后|上一|\b(?:latest|newest|last|most\s+recent|recent)\b", re.I)
_MINE = re.compile(r"我|\bmy\b|\bmine\b", re.I)
_THEIRS = re.compile(r"他|她|\bhis\b|\bher\b|\btheir\b", re.I)


def _kind(tok: str) -> str:
    return re.sub(r"[0-9<>]", "", tok)


def served_instead(
    out: InsufficientContext,
    clause: Clause,
    all_slots: dict[str, Any],
    request: str,
    me: str | None,
    graph: RegistryGraph,
) -> ThoughtPlan | None:
    """The plan that serves the clause instead of its insufficiency (module doc), or None."""
    if len(out.required_fields) != 1 or _SELECT.search(clause.masked):
        return None
    field = out.required_fields[0]
    if not field.endswith("_id") or field == "user_id" or not _names_record(field, clause.masked):
        return None  # a record id the clause names the record of ("我的发票": invoice_id), nothing else
    if set(graph.slot_kinds(field)) & {_kind(t) for t in all_slots}:
        return None  # the request gives such an id: the fill rules decide
    readers = [
        t
        for t in graph.tools.values()
        if t.permission is Permission.READ and graph.provider(t.name, field) and field not in _required(t)
    ]
    for t in readers:  # the record another clause names
        req = _required(t)
        if len(req) != 1:
            continue
        kinds = set(graph.slot_kinds(req[0]))
        tok = next((x for x in all_slots if _kind(x) in kinds and _kind(x) != "USER"), None)
        if tok is not None:
            return _plan(t, {req[0]: all_slots[tok]})
    for t in readers:  # the list of the speaker's / the named user's records
        if _required(t) != ["user_id"]:
            continue
        user = None
        if _THEIRS.search(clause.masked):
            user = next((v for x, v in all_slots.items() if _kind(x) == "USER"), None)
        elif me and (_MINE.search(clause.masked) or _MINE.search(request)):
            user = me
        if user is None:
            continue
        args: dict[str, Any] = {"user_id": user}
        days = [v for x, v in clause.slots.items() if _kind(x) == "DATE"]
        if len(days) == 1 and "period" in t.args_schema.get("properties", {}):
            args["period"] = days[0]
        return _plan(t, args)
    return None


_ZH_RECORDS = {"order": "订单|单子|订單|单", "invoice": "发票|發票|票", "expense": "报销|報銷|费用"}
"""Chinese nouns of the records a reference id names (a user registry's ids name theirs in English)."""


def _names_record(field: str, masked: str) -> bool:
    """Whether the clause names the record ``field`` identifies (``invoice_id``: invoice / 发票)."""
    noun = field.removesuffix("_id")
    zh = _ZH_RECORDS.get(noun)
    rx = rf"{re.escape(noun.replace('_', ' '))}" + (f"|{zh}" if zh else "")
    return re.search(rx, masked, re.I) is not None


def _required(t: ToolSpec) -> list[str]:
    return list(t.args_schema.get("required", []))


def _plan(t: ToolSpec, args: dict[str, Any]) -> ThoughtPlan:
    return ThoughtPlan(
        intent=t.name, steps=[PlanStep(step_id="t1", tool=t.name, arguments=args, dependencies=[])]
    )
