"""References repaired after decoding, before the plan check (:func:`thought_model.output_parse.parse_output`).

The per-request grammar lets an argument reference any earlier step (``${t1.amount}``): JSON
Schema cannot tie the output name to the tool at that position. So a decoded plan can reference a
step without listing it as a dependency, or reference an output the step's tool does not extract
(``submit_expense.amount = ${t1.amount}`` where t1 is another ``submit_expense``): the plan check
then refuses the whole plan (``REFERENCE_NOT_DEPENDENCY``). Deterministic rules:

* **a literal in the request wins**: a numeric argument that references a step while the request
  has a number of the argument's kind that no step uses takes that number;
* **a reference implies its dependency**: a reference to an earlier step whose tool extracts the
  output adds that step to the dependencies;
* a reference to a step that does not extract the output moves to the nearest earlier step that
  does (and depends on it);
* a reference to the step itself (``${t3.user_id}`` inside t3: the grammar of one step does not
  know its own position) moves to the nearest earlier step that extracts the output; a reference to
  a later step is left to the plan check;
* a step whose reference no earlier step can produce is built on nothing: it is dropped with the
  steps that need it, when another step remains (the plan is renumbered).

Anything else is left for the plan check (typed error, as before).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tao.contracts import PlanStep, ThoughtPlan, ToolSpec
from thought_model.entities import Perception
from thought_model.plan_edit import ref_of

NUMBER_SLOT_KINDS = {"number": ("AMOUNT",), "integer": ("NUM", "DUR")}


def _type(tool: ToolSpec | None, arg: str) -> str | None:
    if tool is None:
        return None
    prop = tool.args_schema.get("properties", {}).get(arg, {})
    for key in ("anyOf", "oneOf"):
        if key in prop:
            types = [o.get("type") for o in prop[key] if o.get("type") != "null"]
            return types[0] if len(types) == 1 else None
    return prop.get("type")


def _free_number(kinds: Sequence[str], perception: Perception, plan: ThoughtPlan) -> Any:
    used = [v for s in plan.steps for v in s.arguments.values()]
    for tok, v in perception.slots.items():
        if any(tok.startswith(f"<{k}") for k in kinds) and isinstance(v, int | float) and v not in used:
            return v
    return None


def repair_references(plan: ThoughtPlan, tools: Sequence[ToolSpec], perception: Perception) -> ThoughtPlan:
    """``plan`` with the rules of the module doc applied (``plan`` itself when nothing changes)."""
    specs = {t.name: t for t in tools}
    pos = {s.step_id: i for i, s in enumerate(plan.steps)}
    steps: list[PlanStep] = []
    changed = False
    unfounded: set[str] = set()
    for i, s in enumerate(plan.steps):
        args = dict(s.arguments)
        deps = list(s.dependencies)
        for a, v in s.arguments.items():
            r = ref_of(v)
            if r is None or r[0] not in pos:
                continue
            if pos[r[0]] > i:
                continue  # a later step: left to the plan check (refused)
            if pos[r[0]] == i:  # itself: the nearest earlier step that extracts the output
                producer = next(
                    (
                        p
                        for p in reversed(plan.steps[:i])
                        if (ps := specs.get(p.tool)) is not None and r[1] in ps.extract
                    ),
                    None,
                )
                if producer is None:
                    unfounded.add(s.step_id)
                    continue
                args[a] = f"${{{producer.step_id}.{r[1]}}}"
                deps = [d for d in deps if d in pos and pos[d] < i]
                if producer.step_id not in deps:
                    deps.append(producer.step_id)
                continue
            typ = _type(specs.get(s.tool), a)
            if typ in NUMBER_SLOT_KINDS:
                lit = _free_number(NUMBER_SLOT_KINDS[typ], perception, plan)
                if lit is not None:
                    args[a] = lit
                    continue
            target = plan.steps[pos[r[0]]]
            spec = specs.get(target.tool)
            if spec is not None and r[1] not in spec.extract:
                producer = next(
                    (
                        p
                        for p in reversed(plan.steps[:i])
                        if (ps := specs.get(p.tool)) is not None and r[1] in ps.extract
                    ),
                    None,
                )
                if producer is None:
                    unfounded.add(s.step_id)
                    continue
                target = producer
                args[a] = f"${{{producer.step_id}.{r[1]}}}"
            if target.step_id not in deps:
                deps.append(target.step_id)
        if args != s.arguments or deps != s.dependencies:
            changed = True
            still = {r[0] for x in args.values() if (r := ref_of(x)) is not None}
            # a dependency kept only for a reference the literal replaced is dropped
            deps = [d for d in deps if d in still or (d in s.dependencies and d not in _replaced(s, args))]
            s = s.model_copy(update={"arguments": args, "dependencies": deps})
        steps.append(s)
    out = plan.model_copy(update={"steps": steps}) if changed else plan
    return _drop_unfounded(out, unfounded) if unfounded else out


def _drop_unfounded(plan: ThoughtPlan, unfounded: set[str]) -> ThoughtPlan:
    from thought_model.plan_edit import build, drafts, points_to

    steps = drafts(plan)
    gone = set(unfounded)
    for d in steps:
        if points_to(d) & gone:
            gone.add(d.key)
    kept = [d for d in steps if d.key not in gone]
    out = build(plan, kept) if kept else None
    return out if out is not None else plan


def _replaced(s: PlanStep, args: dict[str, Any]) -> set[str]:
    """Steps ``s`` referenced in an argument that now holds a literal."""
    out = set()
    for a, v in s.arguments.items():
        r = ref_of(v)
        if r is not None and ref_of(args.get(a)) is None:
            out.add(r[0])
    return out
