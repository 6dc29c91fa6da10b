"""Step expansion for multi-day time symbols on arguments that take one date.

``@this_weekend`` is two days; ``get_weather(date=…)`` takes one. Rather than asking the plan
model to emit two steps, :func:`expand_multi_day_steps` rewrites the plan deterministically:

* an argument holding a multi-day symbol (:mod:`tao.contracts.daysymbols`) is **kept** when the
  tool's schema accepts the resolved period (``YYYY-MM-DD/YYYY-MM-DD``, e.g. ``list_orders.period``);
* it is **expanded** when the schema rejects the period but accepts one date: the step becomes one
  step per day, first day first (Saturday before Sunday), each with that day's ISO date (plus the
  symbol's clock time, ``@this_weekend T09:00`` → ``2026-12-05 09:00``);
* steps are renumbered ``t1..tn`` in order; a later step that **references** an expanded step's
  output (``${t1.x}``) is expanded alongside it, copy *i* pointing at copy *i*; one that only
  **depends** on it depends on all its copies;
* when the result would exceed :data:`~tao.contracts.plan.MAX_STEPS`, or one step holds two
  different multi-day symbols, the plan is returned unchanged (the plan check then reports it).

Pure: no I/O, the input plan is not modified, the same plan, tools and date give the same result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from tao.contracts.daysymbols import DAY_SYMBOL_ALTS, day_symbol_range
from tao.contracts.plan import MAX_STEPS, PlanStep, ThoughtPlan
from tao.contracts.tools import ToolSpec

_SYMBOL = re.compile(rf"^@({DAY_SYMBOL_ALTS})( T[0-2][0-9]:[0-5][0-9])?$")
_REF = re.compile(r"\$\{(t[1-7])\.")


def _schemas(tools: Mapping[str, ToolSpec] | Mapping[str, dict] | Sequence[ToolSpec]) -> dict[str, dict]:
    """Tool name -> arguments schema, from ToolSpecs (a list or a name map) or a map of schemas."""
    if isinstance(tools, Mapping):
        # a plain dict first: isinstance against a pydantic model class goes through its
        # metaclass hook, ~1 µs a value (22 tools, twice per plan)
        return {
            k: (v if type(v) is dict else v.args_schema if isinstance(v, ToolSpec) else v)
            for k, v in tools.items()
        }
    return {t.name: t.args_schema for t in tools}


@lru_cache(maxsize=512)
def _validator(schema_json: str) -> Any:
    import json

    import jsonschema_rs

    return jsonschema_rs.validator_for(json.loads(schema_json))


def _accepts(prop: dict, value: str) -> bool:
    import json

    try:
        return bool(_validator(json.dumps(prop, sort_keys=True)).is_valid(value))
    except Exception:  # a schema we cannot compile: do not guess
        return False


def has_multi_day(arguments: Mapping[str, Any]) -> bool:
    """Some argument holds a multi-day symbol: the only case where a step may be expanded."""
    return any(isinstance(v, str) and v[:1] == "@" and _SYMBOL.match(v) for v in arguments.values())


def _days(value: Any, today: date) -> list[str] | None:
    """The per-day values of a multi-day symbol, or None if ``value`` is not one."""
    if not isinstance(value, str):
        return None
    m = _SYMBOL.match(value)
    if m is None:
        return None
    rng = day_symbol_range(m.group(1), today)
    if rng is None:
        return None
    first, last = rng
    clock = f" {m.group(2).strip()[1:]}" if m.group(2) else ""
    n = (last - first).days + 1
    return [(first + timedelta(days=i)).isoformat() + clock for i in range(n)]


def _needs_expansion(step: PlanStep, schemas: dict[str, dict], today: date) -> tuple[str, list[str]] | None:
    """(argument, per-day values) when ``step`` must be expanded; None otherwise."""
    props = schemas.get(step.tool, {}).get("properties", {})
    found: list[tuple[str, list[str]]] = []
    for arg, v in step.arguments.items():
        days = _days(v, today)
        if days is None or len(days) < 2 or arg not in props:
            continue
        period = f"{days[0][:10]}/{days[-1][:10]}"
        if _accepts(props[arg], period) or not _accepts(props[arg], days[0]):
            continue  # the tool takes the period (or takes neither form: leave it to the checks)
        found.append((arg, days))
    if not found:
        return None
    if len({tuple(d) for _, d in found}) > 1:
        raise _Skip
    return found[0][0], found[0][1]


class _Skip(Exception):
    pass


def _rewrite_refs(value: Any, mapping: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return _REF.sub(lambda m: "${" + mapping.get(m.group(1), m.group(1)) + ".", value)
    if isinstance(value, list):
        return [_rewrite_refs(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: _rewrite_refs(v, mapping) for k, v in value.items()}
    return value


def _refs(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(_REF.findall(value))
    if isinstance(value, list):
        return set().union(*(_refs(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return set().union(*(_refs(v) for v in value.values())) if value else set()
    return set()


def expand_multi_day_steps(
    plan: ThoughtPlan,
    tools: Mapping[str, ToolSpec] | Mapping[str, dict] | Sequence[ToolSpec],
    today: date,
) -> ThoughtPlan:
    """The plan with single-date arguments holding multi-day symbols expanded (see module doc).

    ``tools``: the registry's ToolSpecs (a list or a name map) or a map of arguments schemas.
    """
    schemas = _schemas(tools)
    try:
        plans = {s.step_id: _needs_expansion(s, schemas, today) for s in plan.steps}
    except _Skip:
        return plan
    if not any(plans.values()):
        return plan
    # how many copies each step gets: its own days, or those of an expanded step it references
    copies: dict[str, int] = {}
    ref_source: dict[str, str] = {}
    for s in plan.steps:
        own = plans[s.step_id]
        n = len(own[1]) if own else 1
        for r in _refs(s.arguments):
            if copies.get(r, 1) > 1:
                if n > 1 and n != copies[r]:
                    return plan  # two different expansions meet: leave it to the plan check
                n = copies[r]
                ref_source[s.step_id] = r
        copies[s.step_id] = n
    if sum(copies.values()) > MAX_STEPS:
        return plan
    new_ids: dict[str, list[str]] = {}
    k = 0
    for s in plan.steps:
        new_ids[s.step_id] = [f"t{k + i + 1}" for i in range(copies[s.step_id])]
        k += copies[s.step_id]
    steps: list[PlanStep] = []
    for s in plan.steps:
        own = plans[s.step_id]
        for i, sid in enumerate(new_ids[s.step_id]):
            args = dict(s.arguments)
            if own:
                args[own[0]] = own[1][i]
            # references: copy i of a step sees copy i of an expanded source, else its only copy
            mapping = {old: (ids[i] if len(ids) > 1 else ids[0]) for old, ids in new_ids.items()}
            args = _rewrite_refs(args, mapping)
            deps: list[str] = []
            for d in s.dependencies:
                ids = new_ids.get(d, [d])
                pick = [ids[i]] if len(ids) > 1 and ref_source.get(s.step_id) == d else ids
                deps += [x for x in pick if x not in deps]
            steps.append(s.model_copy(update={"step_id": sid, "arguments": args, "dependencies": deps}))
    return plan.model_copy(update={"steps": steps})
