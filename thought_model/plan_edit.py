"""Small plan edits shared by the code passes around the model (fan-out, evidence pruning).

A plan is edited as a list of :class:`Draft` steps that keep their original ids (copies get ids
of their own); :func:`build` renumbers them ``t1..tN`` in list order and rewrites dependencies and
``${tK.x}`` references, or returns None when a step would point at a step that is not earlier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tao.contracts import PlanStep, ThoughtPlan
from tao.contracts.plan import MAX_STEPS

_REF_ANY = re.compile(r"^\$\{([A-Za-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\}$")


@dataclass
class Draft:
    """One step being edited: ``key`` is unique in the draft list (the original step id or a copy's)."""

    key: str
    tool: str
    arguments: dict[str, Any]
    dependencies: list[str] = field(default_factory=list)


def ref_of(value: Any) -> tuple[str, str] | None:
    """(step key, output) of a whole-value reference ``${key.output}``, else None."""
    m = _REF_ANY.fullmatch(value) if isinstance(value, str) else None
    return (m.group(1), m.group(2)) if m else None


def refs_in(value: Any) -> list[tuple[str, str]]:
    if isinstance(value, list):
        return [r for v in value for r in refs_in(v)]
    r = ref_of(value)
    return [r] if r else []


def drafts(plan: ThoughtPlan) -> list[Draft]:
    return [Draft(s.step_id, s.tool, dict(s.arguments), list(s.dependencies)) for s in plan.steps]


def points_to(d: Draft) -> set[str]:
    """Keys this step needs: its dependencies and the steps its references name."""
    return set(d.dependencies) | {k for v in d.arguments.values() for k, _ in refs_in(v)}


def map_refs(value: Any, new: dict[str, str]) -> Any:
    """``value`` with reference keys mapped by ``new`` (others unchanged)."""
    if isinstance(value, list):
        return [map_refs(v, new) for v in value]
    r = ref_of(value)
    if r is None or r[0] not in new:
        return value
    return f"${{{new[r[0]]}.{r[1]}}}"


def build(plan: ThoughtPlan, steps: list[Draft]) -> ThoughtPlan | None:
    """``steps`` as a plan like ``plan`` (ids ``t1..tN`` in order); None when there are more than
    :data:`MAX_STEPS`, none, or a step names a key that is missing or not earlier."""
    if not steps or len(steps) > MAX_STEPS:
        return None
    new = {d.key: f"t{i}" for i, d in enumerate(steps, 1)}
    out: list[PlanStep] = []
    for i, d in enumerate(steps, 1):
        need = points_to(d)
        if any(k not in new or int(new[k][1:]) >= i for k in need):
            return None
        deps = list(dict.fromkeys(new[k] for k in d.dependencies))
        args = {a: map_refs(v, new) for a, v in d.arguments.items()}
        out.append(PlanStep(step_id=new[d.key], tool=d.tool, arguments=args, dependencies=deps))
    try:
        return plan.model_copy(update={"steps": out})
    except ValueError:
        return None
