"""Deterministic fan-out: a list of values of one kind gets one step per value.

"the weather in <CITY1>, <CITY2> and <CITY3> for <DATE1>", "find the users with emails <EMAIL1>,
<EMAIL2> and <EMAIL3>", "<ROOM1> 和 <ROOM2> 我都要，…各订<DUR1>", "订单 <ORDER1> 和 <ORDER2> 的物流":
the model often plans the first one or two values only. Perception has already found every
value, so code can finish the list:

1. **coordinated groups** (:func:`coordinated_groups`): two or more slots of one kind (cities,
   names, emails, phones, dates, ids) in the masked text joined only by list separators (``,`` ``、``
   ``/`` ``+`` ``&`` ``和 跟 与 及 以及 还有 或 还是`` ``and or plus n``), optionally repeating the
   object noun ("order <ORDER1> and order <ORDER2>");
2. a group some of whose values the plan uses in a **single-valued** argument and some not at all
   (a value inside a list argument, ``attendees``, means the list *is* the argument: left alone)
   gets, for each unused value, a copy of the step that uses the value before it in the list
   (else the first used one) **with its dependants** (steps that depend on it or reference it,
   transitively), the value swapped in; copies go after the group's last step, in list order;
3. the plan must stay within :data:`~tao.contracts.plan.MAX_STEPS`, else it is left unchanged.

Shared arguments (the date, the duration, the email body) are copied with the step, so "各订一小时"
books every room for the hour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.entities import Perception
from thought_model.plan_edit import Draft, build, drafts, map_refs, points_to

NO_FAN_KINDS = frozenset({"AMOUNT", "DUR", "NUM", "TEXT", "TIME"})
"""Slot kinds a list of which is no list of objects (amounts, durations, counts, free text): every
other kind (cities, names, emails, phones, dates, perception's ids and any id kind of a user
registry's lexicon: ``<TICKET1>``, ``<EMPLOYEE2>``) means one call per value."""


def fans(kind: str) -> bool:
    """Whether a list of ``kind`` slots means one call per value (:data:`NO_FAN_KINDS`)."""
    return kind not in NO_FAN_KINDS


_NOUN = (
    r"(?:(?:the|an?|order|orders|invoice|invoices|expense|expenses|claim|claims|room|rooms|user|users|"
    r"email|phone|number|no\.|id|#|订单号|订单|单号|发票|报销单|会议室|用户|手机号|手机|邮箱|号)\s*)*"
)
_CONJ = r"(?:(?:and|or|plus|as well as)\b|和|跟|与|以及|及|还有|或者|或|还是)"
_SEP = re.compile(
    rf"\s*(?:[,，、/+&]\s*(?:{_CONJ}\s*)?|(?:{_CONJ}|\bn\b)\s*)" + _NOUN,
    re.I,
)
_TOKEN = re.compile(r"<([A-Z][A-Z0-9_]*?[A-Z_])([1-9])>")


@dataclass(frozen=True)
class Group:
    kind: str
    tokens: tuple[str, ...]


def coordinated_groups(masked: str) -> list[Group]:
    """Runs of two or more same-kind slot tokens (kinds that :func:`fans`) joined by list separators,
    the object noun repeated or not ("ticket <TICKET1> and ticket <TICKET2>")."""
    toks = list(_TOKEN.finditer(masked))
    groups: list[Group] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        if len(run) >= 2:
            groups.append(Group(run[0].group(1), tuple(m.group(0) for m in run)))

    for m in toks:
        if not fans(m.group(1)):
            close()
            run = []
            continue
        if run and run[-1].group(1) == m.group(1):
            between = masked[run[-1].end() : m.start()]
            if _joined(between, _noun_before(masked, run[0].start())) or (
                m.group(1) in SPACE_LISTS and between.isspace()
            ):
                run.append(m)
                continue
        close()
        run = [m]
    close()
    return groups


SPACE_LISTS = frozenset({"CITY"})
"""Kinds whose slots separated by spaces alone are a list ("查下 芝加哥 西雅图 波士顿 明天的天气",
"weather in Oslo Bergen Tromso"): a space between two names or dates is no list separator
("<NAME1> <NAME2>" may be one person's name split by perception, "<DATE1> <DATE2>" a day and a
time), between two cities it is."""

_WORD_BEFORE = re.compile(r"([A-Za-z]{2,}|[\u4e00-\u9fff]{1,3})\s*$")


def _noun_before(masked: str, at: int) -> str | None:
    """The word right before a list's first token: the object noun a later item may repeat."""
    m = _WORD_BEFORE.search(masked[:at])
    return m.group(1) if m else None


def _joined(between: str, noun: str | None) -> bool:
    """Whether ``between`` is a list separator, optionally followed by the list's own noun again."""
    if not between.strip():
        return False
    if _SEP.fullmatch(between):
        return True
    if noun is None or not between.rstrip().endswith(noun):
        return False
    head = between.rstrip()[: -len(noun)]
    return bool(head.strip()) and _SEP.fullmatch(head) is not None


def _uses(v: Any, value: Any) -> bool:
    return v == value


def _in_list(v: Any, value: Any) -> bool:
    return isinstance(v, list) and value in v


_CITY_THEN_NAME = re.compile(r"(<CITY[1-9]>)(" + _SEP.pattern + r")(<NAME[1-9]>)", re.I)


def _city_named_as_person(plan: ThoughtPlan, perception: Perception) -> tuple[ThoughtPlan, Perception]:
    """A name slot that ends a list of cities ("Rome, Milan and <NAME1>": a city the gazetteer
    lacks) is a city when the plan uses it only in a ``find_user`` nothing needs: that step is
    dropped and the slot re-read as a city, so the list fans out over it."""
    m = _CITY_THEN_NAME.search(perception.masked)
    if m is None or not m.group(2).strip():
        return plan, perception
    tok = m.group(m.lastindex or 0)
    value = perception.slots.get(tok)
    if value is None:
        return plan, perception
    steps = drafts(plan)
    users = [d for d in steps if any(_uses(v, value) or _in_list(v, value) for v in d.arguments.values())]
    if any(d.tool != "find_user" or any(d.key in points_to(o) for o in steps) for d in users):
        return plan, perception
    free = next(f"<CITY{i}>" for i in range(9, 0, -1) if f"<CITY{i}>" not in perception.slots)
    slots = {k: v for k, v in perception.slots.items() if k != tok} | {free: value}
    seen = Perception(masked=perception.masked.replace(tok, free), slots=slots)
    if users:
        kept = build(plan, [d for d in steps if d not in users])
        if kept is None:
            return plan, perception
        plan = kept
    return plan, seen


def fan_out(plan: ThoughtPlan, perception: Perception) -> ThoughtPlan:
    """``plan`` with one step (and its dependants) per value of every partly used list; ``plan``
    itself when nothing is added."""
    original = plan
    plan, perception = _city_named_as_person(plan, perception)
    steps = drafts(plan)
    changed = False
    n_copy = 0
    for g in coordinated_groups(perception.masked):
        values = [perception.slots.get(t) for t in g.tokens]
        if any(v is None for v in values) or len(set(map(repr, values))) < len(values):
            continue
        if any(_in_list(v, x) for d in steps for v in d.arguments.values() for x in values):
            continue
        used = [[d for d in steps if any(_uses(v, x) for v in d.arguments.values())] for x in values]
        if all(used):
            changed |= _one_tool(steps, [u[0] for u in used])
            continue
        if not any(used):
            continue
        last_used = next(i for i, u in enumerate(used) if u)
        for i, x in enumerate(values):
            if used[i]:
                last_used = i
                continue
            src = values[last_used]
            block = _with_dependants(steps, used[last_used][0])
            n_copy += 1
            new_keys = {d.key: f"fan{n_copy}_{j}" for j, d in enumerate(block)}
            copy = []
            for d in block:
                args = {a: (x if _uses(v, src) else map_refs(v, new_keys)) for a, v in d.arguments.items()}
                copy.append(
                    Draft(new_keys[d.key], d.tool, args, [new_keys.get(k, k) for k in d.dependencies])
                )
            pos = {d.key: j for j, d in enumerate(steps)}
            if last_used < i:  # after the block of the value before it in the list
                at = max(pos[d.key] for d in _with_dependants(steps, used[i - 1][0])) + 1
            else:  # a value listed before every used one: before the first used block
                at = min(pos[d.key] for d in block)
            steps = steps[:at] + copy + steps[at:]
            used[i] = [copy[0]]
            last_used = i
        _one_tool(steps, [u[0] for u in used])
        changed = True
    if not changed:
        return original
    out = build(plan, steps)
    return out if out is not None else original


def _one_tool(steps: list[Draft], users: list[Draft]) -> bool:
    """One predicate over a list means one tool: where the steps using the list's values differ in
    tool (``<ORDER1> 和 <ORDER2> 的物流`` planned get_order_status + get_logistics), a step that
    nothing needs and has the same argument names as the others takes the most common tool (ties:
    the last value's, the one next to the predicate in "A 和 B 的物流")."""
    tools = [d.tool for d in users]
    if len(set(tools)) < 2 or len({tuple(sorted(d.arguments)) for d in users}) != 1:
        return False
    best = max(set(tools), key=lambda t: (tools.count(t), max(i for i, x in enumerate(tools) if x == t)))
    changed = False
    for d in users:
        needed = any(d.key in points_to(o) for o in steps)
        if d.tool != best and not needed:
            d.tool = best
            changed = True
    return changed


def _with_dependants(steps: list[Draft], root: Draft) -> list[Draft]:
    """``root`` and every step that needs it, directly or through another such step (plan order)."""
    keys = {root.key}
    start = next(i for i, d in enumerate(steps) if d.key == root.key)
    for d in steps[start + 1 :]:
        if points_to(d) & keys:
            keys.add(d.key)
    return [d for d in steps if d.key in keys]
