"""Fan-out over a list of enum values: one call per value the request coordinates (issue #15).

:mod:`thought_model.fanout` finishes a list of slot values ("<TICKET1> and <TICKET2>"); enum
values are words, not slots: "reset my email and wifi passwords", "重设邮箱密码和VPN密码", "list
my closed tickets and also the ones in progress". The model plans the first value only, and
:func:`~thought_model.enum_words.fix_enums` leaves a step alone when two values are written.
:func:`enum_fan_out`, for a user registry with known enum words (:class:`EnumWords`):

1. per enum argument that exactly one step of the plan has (a step no later step needs), the
   words of its values are found in the request outside its free text, in text order;
2. a run of two or more **different** values joined as a list (:func:`coordinated_values`: what
   lies between two words is short, has a list conjunction or separator and no sentence
   punctuation: "email and wifi", "邮箱密码和VPN密码", "closed tickets and also the ones in
   progress") whose values include the step's value (or the step leaves the optional argument
   out, or its value is one the request writes nowhere: "重设我的ERP和VPN密码" planned as one
   email reset) gives the step the run's first value and a copy right after it per further value;
3. the plan must stay within :data:`~tao.contracts.plan.MAX_STEPS`, else it is left unchanged.

Values written in two clauses ("查一下我的设备，再开个软件工单") are no list: the comma ends it.

The other way round, :func:`drop_unwritten_twins`: two steps that differ only in one enum value,
where the request writes one value of that argument and it is one step's, are one ask ("提一个软件
工单：…，紧急" planned as a high and an urgent ticket): the step with the unwritten value goes.
"""

from __future__ import annotations

import re

from tao.contracts import ThoughtPlan
from thought_model.enum_words import EnumWords, outside_free_text
from thought_model.plan_edit import Draft, build, drafts, points_to

_LIST_JOIN = re.compile(r"(?:\b(?:and|or|plus|as well as)\b|[、/+&]|和|跟|与|以及|及|还有|或者|或)", re.I)
_SENTENCE = re.compile(r"[，,;；。.!！?？:：\n]")
_MAX_GAP = 30
"""Characters at most between two values of one list ("closed tickets and also the ones in ")."""


def coordinated_values(text: str, spans: list[tuple[int, int, str]]) -> list[str]:
    """The values of the longest run of ``spans`` joined as a list (module doc), in text order;
    [] when no two different values are."""
    best: list[str] = []
    run: list[str] = []
    prev_end = -1
    for a, b, value in spans:
        gap = text[prev_end:a] if run else ""
        joined = (
            bool(run)
            and len(gap) <= _MAX_GAP
            and _LIST_JOIN.search(gap) is not None
            and (_SENTENCE.search(gap) is None or gap.strip() in {",", "，"})
        )
        if not joined:
            run = []
        if value not in run:
            run.append(value)
        prev_end = b
        if len(run) > len(best):
            best = list(run)
    return best if len(best) >= 2 else []


def enum_fan_out(plan: ThoughtPlan, masked: str, words: EnumWords) -> ThoughtPlan:
    """``plan`` with one step per coordinated enum value (module doc); ``plan`` when unchanged.
    ``masked`` is perception's masked request."""
    text = outside_free_text(masked)
    steps = drafts(plan)
    count: dict[str, int] = {}
    for d in steps:
        for a in _enum_args(words, d.tool):
            count[a] = count.get(a, 0) + 1
    changed = False
    n = 0
    for d in list(steps):
        if any(d.key in points_to(o) for o in steps):
            continue
        for arg in _enum_args(words, d.tool):
            if count[arg] != 1:
                continue
            values = coordinated_values(text, words.spans(arg, text))
            current = d.arguments.get(arg)
            required = arg in words.tools[d.tool].args_schema.get("required", [])
            if not values or (current not in values and current is None and required):
                continue
            if (
                current is not None
                and current not in values
                and current in {v for _, _, v in words.spans(arg, text)}
            ):
                continue  # the step's own value is written apart from the list: another ask's list
            d.arguments[arg] = values[0]
            at = steps.index(d) + 1
            for v in values[1:]:
                n += 1
                steps.insert(at, Draft(f"enum{n}", d.tool, {**d.arguments, arg: v}, list(d.dependencies)))
                at += 1
            changed = True
            break
    if not changed:
        return plan
    out = build(plan, steps)
    return out if out is not None else plan


def drop_unwritten_twins(plan: ThoughtPlan, masked: str, words: EnumWords) -> ThoughtPlan:
    """``plan`` without a step whose only difference from another is an enum value the request
    does not write, while it writes the other's (module doc); ``plan`` when unchanged."""
    text = outside_free_text(masked)
    steps = drafts(plan)
    drop: set[str] = set()
    for d in steps:
        for o in steps:
            if o is d or o.tool != d.tool or d.key in drop or o.key in drop:
                continue
            diff = [a for a in {*d.arguments, *o.arguments} if d.arguments.get(a) != o.arguments.get(a)]
            if len(diff) != 1 or diff[0] not in _enum_args(words, d.tool):
                continue
            if any(o.key in points_to(x) for x in steps) or o.dependencies != d.dependencies:
                continue
            if words.written(diff[0], text) == {d.arguments.get(diff[0])}:
                drop.add(o.key)
    if not drop:
        return plan
    out = build(plan, [d for d in steps if d.key not in drop])
    return out if out is not None else plan


def _enum_args(words: EnumWords, tool: str) -> list[str]:
    spec = words.tools.get(tool)
    props = spec.args_schema.get("properties", {}) if spec is not None else {}
    return [a for a, p in props.items() if isinstance(p, dict) and "enum" in p]
