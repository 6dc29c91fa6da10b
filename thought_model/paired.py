"""Fan-out over repeated value tuples: "<ORDER1> 退款 <AMOUNT1>，<ORDER2> 退款 <AMOUNT2>".

:mod:`thought_model.fanout` finishes a *list* of one kind ("<CITY1>, <CITY2> and <CITY3>"). A
request can also repeat a whole argument tuple, one per object: "refund <AMOUNT1> on <ORDER1> and
<AMOUNT2> on <ORDER2>", "log two claims: <AMOUNT1> on <DATE1> … <TEXT1>; and <AMOUNT2> on <DATE2> …
<TEXT2>". Perception numbers the slots of each kind in text order, so the k-th object's values are
the slots numbered k. :func:`paired_fan_out`:

1. **misassigned copies**: two or more steps of one tool that pass the *same* slot value in one
   argument, while that kind has as many numbered slots (the others used by no step), take the
   k-th slot in the k-th step ("two claims" planned with the first amount twice);
2. **missing copies**: a step whose arguments use slots numbered 1 of at least two kinds (an id,
   an amount, a date, a text), where every one of those kinds also has a slot numbered k that no
   step uses, gets a copy per k with the k-th values (k = 2, 3, … while the tuple is complete);
   copies go right after the step;
3. the plan must stay within :data:`~tao.contracts.plan.MAX_STEPS`, else it is left unchanged.
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.entities import Perception
from thought_model.plan_edit import Draft, build, drafts, points_to

NO_PAIR_KINDS = frozenset({"NAME", "DUR"})
"""Slot kinds that belong to no one object of a repeated tuple (a name is looked up first, a
duration is shared); every other kind does, a user registry's id kinds (``<ASSET1>``) included."""
_TOKEN = re.compile(r"^<([A-Z][A-Z0-9_]*?[A-Z_])([1-9])>$")


def _tokens(perception: Perception) -> dict[tuple[str, int], Any]:
    out: dict[tuple[str, int], Any] = {}
    for tok, v in perception.slots.items():
        m = _TOKEN.match(tok)
        if m and m.group(1) not in NO_PAIR_KINDS:
            out[(m.group(1), int(m.group(2)))] = v
    return out


def _used_values(steps: list[Draft]) -> list[Any]:
    return [v for d in steps for v in d.arguments.values()]


def _slot_of(value: Any, toks: dict[tuple[str, int], Any]) -> tuple[str, int] | None:
    hits = [k for k, v in toks.items() if v == value and type(v) is type(value)]
    return hits[0] if len(hits) == 1 else None


def _reassign(steps: list[Draft], toks: dict[tuple[str, int], Any]) -> bool:
    changed = False
    tools = {d.tool for d in steps}
    for tool in tools:
        same = [d for d in steps if d.tool == tool and not any(o.key in points_to(d) for o in steps)]
        if len(same) < 2:
            continue
        for arg in same[0].arguments:
            vals = [d.arguments.get(arg) for d in same]
            slot = _slot_of(vals[0], toks)
            if slot is None or slot[1] != 1 or any(v != vals[0] for v in vals):
                continue
            kind = slot[0]
            others = [toks.get((kind, k)) for k in range(2, len(same) + 1)]
            used = _used_values(steps)
            if any(v is None or v in used for v in others) or (kind, len(same) + 1) in toks:
                continue
            for d, v in zip(same[1:], others, strict=True):
                d.arguments[arg] = v
            changed = True
    return changed


def _copies(steps: list[Draft], toks: dict[tuple[str, int], Any]) -> bool:
    changed = False
    n = 0
    for d in list(steps):
        slots = {a: s for a, v in d.arguments.items() if (s := _slot_of(v, toks)) is not None}
        kinds = {s[0] for s in slots.values()}
        if len(kinds) < 2 or any(s[1] != 1 for s in slots.values()):
            continue
        at = steps.index(d) + 1
        k = 2
        while all((kind, k) in toks for kind in kinds):
            used = _used_values(steps)
            new = {a: toks[(s[0], k)] for a, s in slots.items()}
            if any(v in used for v in new.values()):
                break
            n += 1
            steps.insert(at, Draft(f"pair{n}", d.tool, {**d.arguments, **new}, list(d.dependencies)))
            at += 1
            k += 1
            changed = True
    return changed


def paired_fan_out(plan: ThoughtPlan, perception: Perception) -> ThoughtPlan:
    """``plan`` with repeated tuples planned one step each (module doc); ``plan`` when unchanged."""
    toks = _tokens(perception)
    if not toks:
        return plan
    steps = drafts(plan)
    changed = _reassign(steps, toks)
    changed |= _copies(steps, toks)
    if not changed:
        return plan
    out = build(plan, steps)
    return out if out is not None else plan
