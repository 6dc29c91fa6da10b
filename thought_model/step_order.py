"""Independent steps in the order the request asks them (any registry).

"重置VPN密码，另外帮我开个工单：…" is two asks, in that order; the whole-request plan sometimes
lists them the other way round (create_ticket, then reset_password), while the clauses, planned
one by one, each name their own step. :func:`clause_order` sorts the final plan's steps by the
clause each one comes from when that is known for every step:

* only a plan none of whose steps needs another (no dependencies, no references): a chain's order
  is its data flow, not the text's;
* a step comes from the clause whose plan has a step of the same tool (of those, the one with the
  same arguments when several have the tool); a step no clause or several clauses claim leaves the
  plan as it is;
* the sort is stable: steps of one clause (a fanned-out list) keep their order.
"""

from __future__ import annotations

from collections.abc import Sequence

from tao.contracts import PlanStep, ThoughtPlan
from thought_model.plan_edit import build, drafts, points_to


def clause_order(plan: ThoughtPlan, parts: Sequence[Sequence[PlanStep] | None]) -> ThoughtPlan:
    """``plan`` with its steps in clause order (module doc); ``parts[k]`` is the steps clause
    ``k`` planned (None: no plan). ``plan`` itself when the order is unknown or unchanged."""
    if len(parts) < 2:
        return plan
    steps = drafts(plan)
    if any(points_to(d) for d in steps):
        return plan
    where: list[int] = []
    for d in steps:
        claims = [k for k, p in enumerate(parts) if p and any(s.tool == d.tool for s in p)]
        if len(claims) > 1:
            claims = [
                k
                for k in claims
                if any(s.tool == d.tool and s.arguments == d.arguments for s in parts[k] or ())
            ]
        if len(claims) != 1:
            return plan
        where.append(claims[0])
    if where == sorted(where):
        return plan
    order = sorted(range(len(steps)), key=lambda i: where[i])
    out = build(plan, [steps[i] for i in order])
    return out if out is not None else plan
