""" "The same title", "抬头一样": a later step's free text that only says "the same" takes the value
the earlier step of that tool has ("给订单 A 开发票，抬头“X”；另外订单 B 也开一张，抬头一样",
"… titled Kestrel Ltd, and another one for order B with the same title"); and a step with no
argument at all of a tool whose arguments are all optional (``find_user({})``: nobody to find) is
dropped when no other step needs it and it is not the only step."""

from __future__ import annotations

import re

from tao.contracts import ThoughtPlan, ToolSpec
from thought_model.plan_edit import build, drafts, points_to

_SAME = re.compile(
    r"^\s*(?:(?:也|都)?(?:一样|相同|同上|同前|一致)(?:的)?|(?:the\s+)?same(?:\s+(?:one|as\s+(?:before|above)))?)\s*$",
    re.I,
)


def same_values(plan: ThoughtPlan, specs: dict[str, ToolSpec]) -> ThoughtPlan:
    """``plan`` with "the same" values copied and empty lookups dropped (module doc)."""
    steps = drafts(plan)
    changed = False
    for i, d in enumerate(steps):
        for a, v in list(d.arguments.items()):
            if isinstance(v, str) and _SAME.match(v):
                prev = next((p for p in reversed(steps[:i]) if p.tool == d.tool and a in p.arguments), None)
                if prev is not None and not (
                    isinstance(prev.arguments[a], str) and _SAME.match(prev.arguments[a])
                ):
                    d.arguments[a] = prev.arguments[a]
                    changed = True
    if len(steps) > 1:
        needed = set().union(*(points_to(d) for d in steps))
        empty = [
            d
            for d in steps
            if not d.arguments
            and d.key not in needed
            and (spec := specs.get(d.tool)) is not None
            and spec.args_schema.get("properties")
            and not spec.args_schema.get("required")
        ]
        if empty and len(empty) < len(steps):
            steps = [d for d in steps if d not in empty]
            changed = True
    if not changed:
        return plan
    out = build(plan, steps)
    return out if out is not None else plan
