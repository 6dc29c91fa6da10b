"""The rule-based planner: one step of one tool, its arguments from the request's perceived slots.

Used by the planning decision point (:mod:`.decision`) for the direct single-step path (urgency)
and after the plan model failed twice: the tool is the router's single best; each argument takes
the first perceived entity that fits its schema (an id whose pattern it matches, the city, the
date, the name, an email or phone, a number, the free text after a cue), an enum argument the value
whose literal or words (``Domain.value_words``) the request contains, the session user's id for
the requester's own id field. A required argument left empty makes the output
``insufficient_context`` naming it (never an invented value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.contracts.plan import PlanStep
from tao.contracts.tools import ToolSpec

_ME_FIELDS = ("user_id", "employee_id", "customer_id")
_PREFER: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"city|origin|destination|location"), ("CITY",)),
    (re.compile(r"date|day|when|start|end|check_in|period|month"), ("DATE",)),
    (re.compile(r"^name$|person|attendee"), ("NAME",)),
    (re.compile(r"email|to$|recipient"), ("EMAIL",)),
    (re.compile(r"phone"), ("PHONE",)),
    (re.compile(r"reason|summary|body|subject|title|note|description|text"), ("TEXT",)),
    (re.compile(r"count|nights|amount|people|size|capacity|num"), ("NUM", "AMOUNT")),
)


def _nonnull(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    for key in ("anyOf", "oneOf"):
        if key in prop:
            opts = [s for s in prop[key] if s.get("type") != "null"]
            if len(opts) == 1:
                return {**{k: v for k, v in prop.items() if k != key}, **opts[0]}
    return prop


def _fits(prop: Mapping[str, Any], value: Any) -> bool:
    typ = prop.get("type")
    if "enum" in prop:
        return value in prop["enum"]
    if typ in ("integer", "number"):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        if typ == "integer" and not float(value).is_integer():
            return False
        lo, hi = prop.get("minimum"), prop.get("maximum")
        return (lo is None or value >= lo) and (hi is None or value <= hi)
    if not isinstance(value, str):
        return False
    pat = prop.get("pattern")
    if isinstance(pat, str) and not re.search(pat, value):
        return False
    return prop.get("minLength", 0) <= len(value) <= prop.get("maxLength", 10**6)


def _enum_value(prop: Mapping[str, Any], text: str, words: Mapping[str, Sequence[str]]) -> Any:
    low = text.lower()
    best: tuple[int, Any] | None = None
    for v in prop.get("enum", []):
        for w in [str(v), *words.get(str(v), ())]:
            if w and w.lower() in low and (best is None or len(w) > best[0]):
                best = (len(w), v)
    return best[1] if best else None


def rule_plan(
    request: str,
    tool: ToolSpec,
    session: SessionState,
    entities: Sequence[tuple[str, Any]],
    value_words: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> ThoughtPlan | InsufficientContext:
    """A one-step plan of ``tool`` from ``entities`` (``(type, value)`` in request order, as
    perception found them), or insufficient_context naming the required arguments left empty."""
    schema = tool.args_schema
    props = {n: _nonnull(p) for n, p in schema.get("properties", {}).items()}
    required = list(schema.get("required", []))
    used: set[int] = set()
    args: dict[str, Any] = {}
    for name, prop in props.items():
        if "enum" in prop:
            v = _enum_value(prop, request, (value_words or {}).get(name, {}))
            if v is not None:
                args[name] = v
            continue
        prefer = next((types for rx, types in _PREFER if rx.search(name)), ())
        candidates = [i for i, (t, _v) in enumerate(entities) if i not in used]
        ranked = [i for i in candidates if entities[i][0] in prefer] + [
            i for i in candidates if entities[i][0] not in prefer and not prefer
        ]
        for i in ranked:
            if _fits(prop, entities[i][1]):
                args[name] = entities[i][1]
                used.add(i)
                break
        if name not in args and name in _ME_FIELDS and session.user_id and _fits(prop, session.user_id):
            args[name] = session.user_id
    missing = [r for r in required if r not in args]
    if missing:
        return InsufficientContext(required_fields=missing, intent=tool.name)
    return ThoughtPlan(intent=tool.name, steps=[PlanStep(step_id="t1", tool=tool.name, arguments=args)])


def perceived(request: str, session: SessionState, lexicon: Any) -> list[tuple[str, Any]]:
    """``(type, value)`` of every entity perception finds in ``request`` (request order)."""
    from thought_model.entities import perceive

    today = session.now.date() if session.now else None
    p = perceive(request, today=today, user_known=bool(session.user_id), lexicon=lexicon)
    return [(e.type, e.value) for e in sorted(p.entities, key=lambda e: e.start)]
