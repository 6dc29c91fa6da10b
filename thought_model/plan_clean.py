"""Clean-up of the whole-request plan: repeated steps, a stray chain for the session user."""

from __future__ import annotations

import json
import re
from typing import Any

from tao.contracts import ThoughtPlan
from tao.contracts.plan import REF_PATTERN

_FIRST_PERSON = re.compile(r"我|咱|\b(?:i|i'm|i've|me|my|mine|myself|we|us|our)\b", re.I)


def _mentions(v: Any, value: str) -> bool:
    if isinstance(v, list):
        return any(_mentions(x, value) for x in v)
    return v == value


def clean_plan(
    plan: ThoughtPlan,
    me: str | None,
    text: str,
    me_field: str = "user_id",
    finder: str = "find_user",
) -> ThoughtPlan:
    """The whole-request plan without what the model repeated or strayed into (``plan`` itself
    when nothing is dropped):

    * a step with the same tool and arguments as an earlier one (``update phone, update city,
      update phone``): later references and dependencies point to the earlier step;
    * steps for the session user (``<ME>``), and the steps that depend on them, in a plan that
      also serves someone else (a ``find_user`` step, another user id) when the request never
      speaks of the speaker ("track down the account tied to <PHONE1> and run through its
      purchase history" planned a second ``list_orders`` for the caller).

    ``me_field`` / ``finder``: the registry's session-user id argument and the tool that finds a
    person by name (a user registry's, :func:`thought_model.referents.person_lookup`)."""
    alias: dict[str, str] = {}
    seen: dict[str, str] = {}
    for s in plan.steps:
        key = json.dumps([s.tool, s.arguments], sort_keys=True, ensure_ascii=False)
        if key in seen:
            alias[s.step_id] = seen[key]
        else:
            seen[key] = s.step_id
    drop = set(alias)
    if me and not _FIRST_PERSON.search(text):
        mine = {s.step_id for s in plan.steps if any(_mentions(v, me) for v in s.arguments.values())}
        for s in plan.steps:  # and what depends on them
            if set(s.dependencies) & mine:
                mine.add(s.step_id)
        other = any(
            s.step_id not in mine
            and (
                s.tool == finder
                or any(a == me_field and isinstance(v, str) and v != me for a, v in s.arguments.items())
            )
            for s in plan.steps
        )
        if mine and other:
            drop |= mine - set(alias.values())
    if not drop:
        return plan
    kept = [s for s in plan.steps if s.step_id not in drop]
    if not kept:
        return plan
    new_id = {s.step_id: f"t{i}" for i, s in enumerate(kept, 1)}
    for a, b in alias.items():
        if b in new_id:
            new_id[a] = new_id[b]

    def ref(v: Any) -> Any:
        if isinstance(v, list):
            return [ref(x) for x in v]
        m = re.fullmatch(REF_PATTERN, v) if isinstance(v, str) else None
        if m is None:
            return v
        if m.group(1) not in new_id:
            raise KeyError(m.group(1))
        return f"${{{new_id[m.group(1)]}.{m.group(2)}}}"

    steps = []
    try:
        for s in kept:
            deps = []
            for d in s.dependencies:
                if d not in new_id:
                    raise KeyError(d)
                if new_id[d] not in deps:
                    deps.append(new_id[d])
            args = {a: ref(v) for a, v in s.arguments.items()}
            steps.append(
                s.model_copy(update={"step_id": new_id[s.step_id], "arguments": args, "dependencies": deps})
            )
        return plan.model_copy(update={"steps": steps})
    except (KeyError, ValueError):  # a kept step needs a dropped one: keep the model's plan
        return plan
