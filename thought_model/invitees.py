"""Invitees: the people a request asks to invite fill the event's list argument (issue #14).

The plan model often dropped the optional ``attendees`` list ("… and invite a@x.cn"), or planned
the invitee's email as an ``update_user_profile(field=email)`` step of the session user. After
decoding, :func:`attach_invitees` reads the masked request: slot tokens (emails, names) right after
an invite cue (``invite / inviting / with / cc / 邀请 / 叫上 / 拉上 / 通知``) or inside ``把 X 也拉进来 /
把 X 叫上`` are invitees; a step whose tool has a people list (an array argument named like
:data:`PEOPLE_FIELDS`) and leaves it empty gets them (so does one that lists only some of them), and an ``update_user_profile`` step that only
writes an invitee's email as the user's own is dropped when the request never speaks of changing
an email. Repeats in a list are removed by :func:`thought_model.output_parse.tidy_arguments`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from tao.contracts import PlanStep, ThoughtPlan, ToolSpec
from thought_model.entities import Perception

PEOPLE_FIELDS = frozenset({"attendees", "participants", "invitees", "members", "cc"})
"""Array arguments that list people."""

_RUN = r"(?P<run><(?:EMAIL|NAME)[1-9]>(?:\s*(?:,|，|、|和|及|与|跟|以及|and|&)\s*<(?:EMAIL|NAME)[1-9]>)*)"
_CUE_THEN_RUN = re.compile(
    r"(?:邀请|邀上|叫上|喊上|拉上|约上|通知|抄送|请上|参会人员|参会人|参会者|与会人员|与会人|与会者|参加人员|参加的人|参与人"
    r"|invite|inviting|invites|with|cc|include|including|add|attendees?|participants?|invitees?|guests?)"
    r"\s*(?:the\s+)?(?:(?:attendees?|participants?|invitees?|guests?)\s*)?(?:[:：]|是|为|有)?\s*" + _RUN,
    re.I,
)
_RUN_THEN_CUE = re.compile(
    r"把\s*"
    + _RUN
    + r"\s*(?:也|都|一起)?\s*(?:拉进来|拉进|拉上|叫上|叫来|加进来|加上|加进|邀请进来|邀请上|邀请)"
    r"|"
    + _RUN.replace("run", "run2")
    + r"\s*(?:也|都)?\s*(?:一起参加|参加|一起来|also\s+invited|are\s+invited|is\s+invited)",
    re.I,
)
_TOKEN = re.compile(r"<(?:EMAIL|NAME)[1-9]>")
_EMAIL_UPDATE = re.compile(
    r"邮箱|电子邮件地址|改|更新|换成|换为|修改|设置|设为|update|change|set\s+my|my\s+e-?mail|email\s+address|profile",
    re.I,
)


def invitee_tokens(masked: str) -> list[str]:
    """The slot tokens of ``masked`` the request asks to invite, in order, each once."""
    out: list[str] = []
    for rx in (_CUE_THEN_RUN, _RUN_THEN_CUE):
        for m in rx.finditer(masked):
            run = m.groupdict().get("run") or m.groupdict().get("run2") or ""
            out += _TOKEN.findall(run)
    return list(dict.fromkeys(out))


_MINE = re.compile(r"我|\bmy\b|\bI\b|\bme\b", re.I)
_LOOKUP_ASK = re.compile(
    r"\b(?:find|look\s*up|search|who\s+is|profile|calendar\s+of|(?:his|her|their)\s+(?:calendar|schedule))\b|找|查一下他|查一下她|资料|是谁|他的日程|她的日程",
    re.I,
)
"""Words asking about a person (not only inviting them)."""


def _invitee_lookups(steps: list[PlanStep], invitees: Collection[object], masked: str) -> set[str]:
    """Ids of ``find_user`` steps that only look up an invitee, with the reads of what they found,
    when the request asks nothing about a person: the invite is the attendee list, not a lookup."""
    if _LOOKUP_ASK.search(masked):
        return set()
    found = {
        st.step_id
        for st in steps
        if st.tool == "find_user" and st.arguments and all(v in invitees for v in st.arguments.values())
    }
    if not found:
        return set()
    readers = {
        st.step_id
        for st in steps
        if set(st.dependencies) & found and st.tool in ("get_user_profile", "list_user_calendar_events")
    }
    return found | readers


def _people_field(spec: ToolSpec) -> str | None:
    props: dict[str, Any] = spec.args_schema.get("properties", {})
    for name, prop in props.items():
        if name in PEOPLE_FIELDS and prop.get("type") == "array":
            return name
    return None


def attach_invitees(plan: ThoughtPlan, tools: list[ToolSpec], perception: Perception) -> ThoughtPlan:
    """The plan with the request's invitees in its event's people list (see the module doc)."""
    tokens = invitee_tokens(perception.masked)
    if not tokens:
        return plan
    values = [perception.slots[t] for t in tokens if isinstance(perception.slots.get(t), str)]
    if not values:
        return plan
    by_name = {t.name: t for t in tools}
    targets = [
        (i, f)
        for i, st in enumerate(plan.steps)
        if st.tool in by_name and (f := _people_field(by_name[st.tool])) is not None
    ]
    if not targets:
        return plan
    emails = {v for t, v in zip(tokens, values, strict=False) if t.startswith("<EMAIL")}
    looked_up = _invitee_lookups(list(plan.steps), set(values), perception.masked)
    used_elsewhere = {
        v
        for i, st in enumerate(plan.steps)
        if all(i != j for j, _ in targets) and st.step_id not in looked_up
        for k, v in st.arguments.items()
        if isinstance(v, str) and not (st.tool == "update_user_profile" and k == "value" and v in emails)
    }
    invitees = [v for v in values if v not in used_elsewhere]
    if not invitees:
        return plan
    steps = list(plan.steps)
    changed = False
    for i, f in targets:
        cur = steps[i].arguments.get(f)
        short = isinstance(cur, list) and set(cur) < set(invitees)  # "a, b and c": the model kept two
        if not cur or short:
            steps[i] = steps[i].model_copy(update={"arguments": {**steps[i].arguments, f: list(invitees)}})
            changed = True
    keep_updates = _EMAIL_UPDATE.search(perception.masked) is not None
    kept: list[PlanStep] = []
    dropped: set[str] = set()
    mine = _MINE.search(perception.masked) is not None
    for st in steps:
        if st.step_id in looked_up and st.tool == "list_user_calendar_events" and mine:
            # "拉上 <EMAIL1> 再看看我那天还有啥别的安排": the speaker's own calendar, not the invitee's
            args = {k: v for k, v in st.arguments.items() if k != "user_id"}
            kept.append(
                st.model_copy(update={"tool": "list_calendar_events", "arguments": args, "dependencies": []})
            )
            changed = True
            continue
        if (
            not keep_updates
            and st.tool == "update_user_profile"
            and st.arguments.get("field") == "email"
            and st.arguments.get("value") in emails
        ) or st.step_id in looked_up:
            dropped.add(st.step_id)
            changed = True
            continue
        kept.append(st)
    if dropped and any(set(st.dependencies) & dropped for st in kept):
        return plan  # something used the dropped step: leave the model's plan alone
    if not changed:
        return plan
    return plan.model_copy(update={"steps": _renumber(kept)})


def _renumber(steps: list[PlanStep]) -> list[PlanStep]:
    """Step ids ``t1..tN`` again after a drop, references and dependencies rewritten."""
    ids = {st.step_id: f"t{k}" for k, st in enumerate(steps, 1)}
    if all(a == b for a, b in ids.items()):
        return steps
    ref = re.compile(r"\$\{(t[1-9])\.")

    def sub(v: Any) -> Any:
        if isinstance(v, str):
            return ref.sub(lambda m: "${" + ids.get(m.group(1), m.group(1)) + ".", v)
        if isinstance(v, list):
            return [sub(x) for x in v]
        return v

    return [
        st.model_copy(
            update={
                "step_id": ids[st.step_id],
                "arguments": {k: sub(v) for k, v in st.arguments.items()},
                "dependencies": [ids.get(d, d) for d in st.dependencies],
            }
        )
        for st in steps
    ]
