"""Composition of clause plans: concatenated in clause order, renumbered ``t1..tN``, references
rewritten, repeated asks merged; and the trailing asks a whole plan dropped."""

from __future__ import annotations

import json
import re
from typing import Any

from tao.contracts import PlanStep, ThoughtPlan
from tao.contracts.plan import REF_PATTERN
from thought_model.clause_fill import REF_MARK
from thought_model.compose_job import ComposeJob
from thought_model.engine.base import PlanResult
from thought_model.registry_graph import plan_shape

MULTI_INTENT = "multi_task"


def with_trailing_asks(job: ComposeJob, whole: PlanResult, max_steps: int) -> PlanResult | None:
    """The whole plan plus the last clauses' plans it lacks, when some clause failed (so no
    composition): a trailing clause that planned tools the whole plan has none of, without
    references, is an ask the whole plan dropped ("find a room …, book it, 再建个日程叫周会":
    "book it" came back insufficient alone, the whole plan had find + book only)."""
    if not whole.ok or not isinstance(whole.output, ThoughtPlan):
        return None
    have = {s.tool for s in whole.output.steps}
    tail: list[ThoughtPlan] = []
    for p in reversed(job.parts):
        out = p.output if p is not None and p.ok else None
        if not isinstance(out, ThoughtPlan) or {s.tool for s in out.steps} & have:
            break
        if any(s.dependencies or any(has_ref(v) for v in s.arguments.values()) for s in out.steps):
            break
        tail.insert(0, out)
    if not tail:
        return None
    steps = list(whole.output.steps)
    for out in tail:
        for s in out.steps:
            steps.append(s.model_copy(update={"step_id": f"t{len(steps) + 1}"}))
    if len(steps) > max_steps:
        return None
    plan = whole.output.model_copy(update={"steps": steps, "intent": MULTI_INTENT})
    job.how = "whole+trailing"
    return PlanResult(output=plan, text=plan.model_dump_json(exclude={"thought_id", "created_at"}))


def about_someone_else(job: ComposeJob, k: int, plan: ThoughtPlan, planned: set[str] | None = None) -> bool:
    """A clause with no slot of its own that says "him/her/their" but was planned for the
    session user (``给我他的资料`` after the person was named): a restatement, not a new ask.
    With ``planned`` (the tools of the earlier clauses' steps), only when some tool of the clause's
    own steps with arguments is among them when the clause speaks of a person: "find X, reset his erp
    password" plans a tool nothing before it did, a new ask about X (the referents pass gives it X's
    id); "…, and show me its details" stays a restatement."""
    clause = job.clauses[k]
    me = job.req.session.user_id if job.req.session is not None else None
    if clause.slots or not me:
        return False
    person = re.search(r"他|她|\b(?:him|her|his|their|them)\b", clause.masked, re.I) is not None
    if person and planned is not None and not ({s.tool for s in plan.steps if s.arguments} & planned):
        return False
    rx = re.compile(r"他|她|它|其|各自|\b(?:him|her|his|their|them|its?|each|both)\b", re.I)
    uses_me = any(v == me for s in plan.steps for v in s.arguments.values())
    return bool(rx.search(clause.masked)) and uses_me


def _own_value_call(job: ComposeJob, k: int, plan: ThoughtPlan, plans: list[ThoughtPlan]) -> bool:
    """Whether clause ``k``, which borrowed slots from other clauses, calls a lender's tool again with
    another value of its own for an argument the lender's step already sets ("weather <DATE1> and at
    <DATE2>", the city borrowed): a second call, not a fragment of the lender's ask ("…, invite
    <NAME1> and <NAME2>" fills an argument the lender's step lacks)."""
    lenders = job.borrowed.get(k, set())
    lent = {t for j in lenders for t in job.clauses[j].slots}
    own = {
        v
        for t, v in job.clauses[k].slots.items()
        if t not in lent and not (isinstance(v, str) and v.startswith("\x00"))  # (a reference is lent too)
    }
    if not own:
        return False
    for s in plan.steps:
        for j in lenders:
            for ls in plans[j].steps:
                if ls.tool != s.tool:
                    continue
                for a, v in s.arguments.items():
                    if isinstance(v, str | int | float) and v in own and ls.arguments.get(a, v) != v:
                        return True
    return False


def concat(
    job: ComposeJob, plans: list[ThoughtPlan], max_steps: int, intent_shapes: dict[tuple, str]
) -> ThoughtPlan | None:
    steps: list[PlanStep] = []
    seen: dict[str, str] = {}  # canonical (tool, args) -> global id
    contributing: list[int] = []  # clauses that added at least one new step
    by_index: list[list[str]] = []
    cross = False
    for k, plan in enumerate(plans):
        ids: dict[str, str] = {}
        idx: list[str] = []
        lender_tools = {s.tool for j in job.borrowed.get(k, ()) for s in plans[j].steps}
        if (
            lender_tools & {s.tool for s in plan.steps} and not _own_value_call(job, k, plan, plans)
        ) or about_someone_else(job, k, plan, {s.tool for s in steps}):
            # a clause that took arguments from another clause and plans the same tool is a
            # fragment of that clause's ask ("…, invite Alice and Bob"): contributes nothing
            by_index.append([])
            continue
        for s in plan.steps:
            deps = [ids[d] for d in s.dependencies if d in ids]
            args: dict[str, Any] = {}
            for a, v in s.arguments.items():
                try:
                    v, extra = _rewrite(v, ids, by_index)
                except IndexError:  # a reference into a clause dropped as a fragment
                    return None
                if extra:
                    cross = True
                deps += [d for d in extra if d not in deps]
                args[a] = v
            key = json.dumps([s.tool, args], sort_keys=True, ensure_ascii=False)
            same = seen.get(key) or _same_ask(s.tool, args, deps, steps)
            if same:  # a repeated ask (or a fragment of an earlier one): reuse that step
                ids[s.step_id] = same
                idx.append(same)
                continue
            gid = f"t{len(steps) + 1}"
            if len(steps) >= max_steps:
                return None
            if not contributing or contributing[-1] != k:
                contributing.append(k)
            steps.append(PlanStep(step_id=gid, tool=s.tool, arguments=args, dependencies=deps))
            job.origin[gid] = k
            seen[key] = gid
            ids[s.step_id] = gid
            idx.append(gid)
        by_index.append(idx)
    if len(contributing) <= 1:
        intent = plans[contributing[0] if contributing else 0].intent
    else:
        intent = MULTI_INTENT
    try:
        plan = ThoughtPlan(intent=intent, steps=steps)
    except ValueError:
        return None
    if cross:
        named = intent_shapes.get(plan_shape(plan))
        if named:
            plan = plan.model_copy(update={"intent": named})
    return plan


def _same_ask(tool: str, args: dict[str, Any], deps: list[str], steps: list[PlanStep]) -> str | None:
    """The id of an earlier step this one only repeats, merging arguments in place:

    * same tool and no conflicting argument values (``get_weather(city)`` after
      ``get_weather(city, date)``; ``create_calendar_event`` with the attendees added): the
      earlier step takes the union of both argument sets;
    * a step that re-reads what it references (``get_user_profile(user_id=${t2.user_id})`` where
      t2 is ``get_user_profile``): the referenced step."""
    by_id = {s.step_id: s for s in steps}
    refs = [re.fullmatch(REF_PATTERN, v) if isinstance(v, str) else None for v in args.values()]
    if args and all(m is not None for m in refs):
        targets = {m.group(1) for m in refs if m}
        if len(targets) == 1:
            t = by_id.get(next(iter(targets)))
            if (
                t is not None
                and t.tool == tool
                and all(m is not None and m.group(2) == a for a, m in zip(args, refs, strict=True))
            ):
                return t.step_id
    for s in reversed(steps):
        if s.tool != tool:
            continue
        shared = set(s.arguments) & set(args)
        if all(s.arguments[a] == args[a] for a in shared):
            s.arguments.update({a: v for a, v in args.items() if a not in s.arguments})
            s.dependencies.extend(d for d in deps if d not in s.dependencies and d < s.step_id)
            return s.step_id
        return None
    return None


def _rewrite(v: Any, ids: dict[str, str], by_index: list[list[str]]) -> tuple[Any, list[str]]:
    """Rewrite local references and reference slots; returns (value, extra dependencies)."""
    if isinstance(v, list):
        out, extra = [], []
        for x in v:
            y, e = _rewrite(x, ids, by_index)
            out.append(y)
            extra += e
        return out, extra
    if not isinstance(v, str):
        return v, []
    if v.startswith(REF_MARK):
        j, i, o = v[len(REF_MARK) :].split(":", 2)
        gid = by_index[int(j)][int(i)]
        return f"${{{gid}.{o}}}", [gid]
    m = re.fullmatch(REF_PATTERN, v)
    if m and m.group(1) in ids:
        return f"${{{ids[m.group(1)]}.{m.group(2)}}}", []
    return v, []


def has_ref(v: Any) -> bool:
    if isinstance(v, list):
        return any(has_ref(x) for x in v)
    return isinstance(v, str) and (v.startswith(REF_MARK) or re.fullmatch(REF_PATTERN, v) is not None)


def same_shape(plan: ThoughtPlan, other: Any) -> bool:
    """Same tools in the same order with the same dependency positions (arguments aside)."""
    return isinstance(other, ThoughtPlan) and plan_shape(plan) == plan_shape(other)


def distinct_calls(out: Any) -> int:
    if not isinstance(out, ThoughtPlan):
        return 0
    return len({json.dumps([s.tool, s.arguments], sort_keys=True, ensure_ascii=False) for s in out.steps})


def distinct_tools(out: Any) -> int:
    return len({s.tool for s in out.steps}) if isinstance(out, ThoughtPlan) else 0


def misread_ask(whole: ThoughtPlan, composed: ThoughtPlan, job: ComposeJob) -> bool:
    """Whether the whole-request plan misreads an ask the clause plans read: a whole step takes a
    slot value of clause k whose own plan has no step of that tool ("…, and also email <EMAIL1>
    subject … body …" planned as an email *update*; "<CITY1><DATE1>天气咋样？另外我<DATE2>有啥会"
    planned the calendar for <DATE1> too; "expenses from <DATE1>, and my shipped orders" gave the
    period to the orders). Only when every clause produced a plan and the composed plan keeps as
    many steps as the whole one has beside its misread steps (or, dropping a copy, the same tools)."""
    parts = [p.output for p in job.parts if p is not None]
    if len(parts) != len(job.clauses) or not all(isinstance(p, ThoughtPlan) for p in parts):
        return False
    if _n_refs(whole) > _n_refs(composed):  # the clause plans lost a link the whole plan made
        return False
    misread = [
        s
        for s in whole.steps
        if any(
            v in c.slots.values() and all(o.tool != s.tool for o in p.steps)  # type: ignore[union-attr]
            for v in s.arguments.values()
            for c, p in zip(job.clauses, parts, strict=True)
        )
    ]
    if not misread:
        return False
    same_tools = {s.tool for s in whole.steps} == {s.tool for s in composed.steps}
    # fewer composed steps: only what the misread steps account for ("<CITY1><DATE1>多少度、…、我<DATE2>有啥会"
    # planned a calendar read for <DATE1> as well as for <DATE2>)
    return same_tools or len(composed.steps) >= len(whole.steps) - len(misread)


def _n_refs(plan: ThoughtPlan) -> int:
    return sum(has_ref(v) for s in plan.steps for v in s.arguments.values())
