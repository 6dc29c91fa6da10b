"""Someone else's calendar: "周宇航明天都有啥会", "先找到她的ID，再看看她今天的日程", "anything on
<NAME1>'s calendar on the 15th? and on mine?" (reference domain).

The model reads a named person's calendar as the speaker's own (``list_calendar_events``). When the
request names one person (a ``<NAME>`` slot no step uses) and speaks of that person's calendar (the
name or 他/她/his/her next to a calendar word), :func:`person_calendar` plans
``find_user(name)`` + ``list_user_calendar_events(user_id=${find.user_id}, date)`` on the day the
own-calendar step had; the own step stays only when the request also asks the speaker's own
("我自己…的安排", "and on mine?").
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.plan_edit import Draft, build, drafts

_CAL = r"(?:日程|日历|行程|安排|会议|会|calendar|schedule|agenda|meetings?|busy|free)"
_MINE = re.compile(
    r"我自己|我(?:的|那天|当天|这边)?.{0,6}?(?:日程|日历|安排|会)|\bmine\b|\bmy\s+(?:own\s+)?(?:calendar|schedule|agenda)",
    re.I,
)


def person_calendar(plan: ThoughtPlan, masked: str, slots: dict[str, Any]) -> ThoughtPlan:
    """``plan`` with the named person's calendar read (module doc); ``plan`` itself otherwise."""
    steps = drafts(plan)
    own = [d for d in steps if d.tool == "list_calendar_events"]
    if len(own) != 1 or any(d.tool in ("find_user", "list_user_calendar_events") for d in steps):
        return plan
    names = [t for t in slots if t.startswith("<NAME")]
    if len(names) != 1:
        return plan
    tok = names[0]
    value = slots[tok]
    if any(value in d.arguments.values() for d in steps):
        return plan
    near = re.compile(
        rf"{re.escape(tok)}(?:'s|’s|的)?.{{0,12}}?{_CAL}|(?:他|她|\bhis\b|\bher\b).{{0,10}}?{_CAL}", re.I
    )
    if tok not in masked or not near.search(masked):
        return plan
    step = own[0]
    find = Draft("pcfind", "find_user", {"name": value}, [])
    read_args: dict[str, Any] = {"user_id": "${pcfind.user_id}"}
    if "date" in step.arguments:
        read_args["date"] = step.arguments["date"]
    read = Draft("pcread", "list_user_calendar_events", read_args, ["pcfind"])
    at = steps.index(step)
    if _MINE.search(masked.replace(tok, " ")):
        steps[at:at] = [find, read]  # theirs first, as asked, then the speaker's own
    else:
        steps[at : at + 1] = [find, read]
    out = build(plan, steps)
    return out if out is not None else plan
