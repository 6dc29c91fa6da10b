"""Who "he / she / 他 / 她" is: the person the request names, not the speaker.

"Look up John Smith, then change his city to Boston", "找到刘洋，把他的手机号改成…", "幫我找一下黃志明，
看看他的訂單": the model sometimes fills the user argument of the second ask with the session
user's own id (``<ME>``) instead of ``${t1.user_id}`` of the ``find_user`` step, or leaves the
``find_user`` out altogether. :func:`third_person_user` rewrites it when

* the request speaks of a third person (他 她 TA, he him his she her their them) and never of the
  speaker's own things (我的 我自己 本人 我名下, my mine myself our), and
* some step passes the session user's id;

then those steps take ``${tK.user_id}`` of the ``find_user`` step before them, or, when there is
none, of a new ``find_user`` step put first, on the one person value (name, email, phone) of the
request that no step uses. When another step already takes a person id the request writes
("查一下E471902的档案，再把他的ERP密码重置"), that id replaces the speaker's instead. Repeated steps it
creates are merged by the composer's clean-up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tao.contracts import ThoughtPlan, ToolSpec
from thought_model.perception.normalize import to_simplified
from thought_model.plan_edit import Draft, build, drafts

_THIRD = re.compile(r"他|她|\bta\b|\b(?:he|him|his|she|her|hers|they|them|their)\b", re.I)
_OWN = re.compile(r"我的|我自己|本人|我名下|咱的|咱们的|\b(?:my|mine|myself|our|ours)\b", re.I)
_PERSON = {"NAME": "name", "EMAIL": "email", "PHONE": "phone"}
_MY_ROLE = re.compile(
    r"\b(?:my|our)\s+(?:colleague|co-?worker|teammate|manager|boss|intern|customer|client|friend|employee|"
    r"assistant|report|supervisor)s?\b|我的(?:同事|经理|主管|老板|领导|实习生|客户|朋友|同学|员工|助理)",
    re.I,
)
"""Possessives that name a relation, not the speaker's own things ("my colleague X", "我的同事X")."""


def person_lookup(tools: Sequence[ToolSpec], me_kind: str | None) -> tuple[str, str] | None:
    r"""(the session user's id field, the tool that finds it by name) of a user registry:
    ``(employee_id, find_employee)`` for the helpdesk; None when no single tool qualifies. The
    field is the one a lookup tool ``extract``\ s without taking it (its inputs are a name, an
    email, ...), and ``me_kind`` says the registry has a session-user id at all."""
    if me_kind is None:
        return None
    found = [
        (out, t.name)
        for t in tools
        for out in t.extract
        if out.endswith("_id")
        and out not in t.args_schema.get("properties", {})
        and any(out in u.args_schema.get("properties", {}) for u in tools if u is not t)
        and {"name", "email"} & set(t.args_schema.get("properties", {}))
    ]
    return found[0] if len(found) == 1 else None


def person_variants(tools: Sequence[ToolSpec], me_field: str) -> dict[str, str]:
    """Tools that act for the speaker only, each with its variant for anyone: the variant takes the
    same arguments plus ``me_field`` (reference: ``list_calendar_events`` → ``list_user_calendar_events``).
    A tool with two such variants has none (no way to choose)."""
    props = {t.name: set(t.args_schema.get("properties", {})) for t in tools}
    found: dict[str, list[str]] = {}
    for t in tools:
        if me_field in props[t.name]:
            continue
        for u in tools:
            if u is not t and props[u.name] == props[t.name] | {me_field}:
                found.setdefault(t.name, []).append(u.name)
    return {k: v[0] for k, v in found.items() if len(v) == 1}


def third_person_user(
    plan: ThoughtPlan,
    text: str,
    me: str | None,
    slots: dict[str, Any],
    me_field: str = "user_id",
    finder: str = "find_user",
    tools: Sequence[ToolSpec] = (),
) -> ThoughtPlan:
    """``plan`` with the session user's id replaced by the named person's (module doc); ``plan``
    itself when the rule does not apply. ``me_field`` / ``finder``: the registry's session-user
    argument and its lookup tool (the reference domain's by default; :func:`person_lookup`).
    ``tools``: the registry, for the speaker-only tools' person variants (:func:`person_variants`)."""
    t = to_simplified(text)
    if not me or _OWN.search(_MY_ROLE.sub(" ", t)):
        return plan
    steps = drafts(plan)
    if _THIRD.search(t):  # "先帮我看看他后天的日程": the person's calendar, not the speaker's
        variants = person_variants(tools, me_field)
        for d in steps:
            if d.tool in variants and me_field not in d.arguments:
                d.tool = variants[d.tool]
                d.arguments[me_field] = me
    mine = [i for i, d in enumerate(steps) if d.arguments.get(me_field) == me]
    if not mine:
        return plan
    if _THIRD.search(t):  # "查一下E471902的档案，再把他的ERP密码重置": the one person id another step
        named = {  # of the plan takes, from the request (not a reference)
            v
            for d in steps
            if isinstance(v := d.arguments.get(me_field), str) and v != me and v in slots.values()
        }
        if len(named) == 1:
            (who,) = named
            for i in mine:
                steps[i].arguments[me_field] = who
            out = build(plan, steps)
            return out if out is not None else plan
    finder_step = next((d for d in steps[: mine[0]] if d.tool == finder), None)
    used = [v for d in steps for v in d.arguments.values()]
    people = [
        (_PERSON[k], v)
        for tok, v in slots.items()
        if (k := re.sub(r"[0-9<>]", "", tok)) in _PERSON and v not in used
    ]
    # no pronoun: the request still names one person nobody's step uses ("赵强开过哪些发票",
    # "customer X's shipped orders") and never the speaker's own things
    if not _THIRD.search(t) and finder_step is None and len(people) != 1:
        return plan
    if finder_step is None:
        if len(people) != 1:
            return plan
        arg, value = people[0]
        finder_step = Draft("who", finder, {arg: value})
        steps.insert(0, finder_step)
    for d in steps:
        if d.arguments.get(me_field) == me:
            d.arguments[me_field] = f"${{{finder_step.key}.{me_field}}}"
            if finder_step.key not in d.dependencies:
                d.dependencies.append(finder_step.key)
    out = build(plan, steps)
    return out if out is not None else plan
