"""Arguments the whole-request plan borrowed from another ask, replaced by the clause plans' own.

Used by :class:`~thought_model.compose.ComposingEngine` when the clause plans have the whole
plan's shape (same tools, order and links): each clause saw only its own slots, so its arguments
cannot borrow another ask's date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tao.contracts import ThoughtPlan
from thought_model.clauses import Clause

_SAME_DAY = re.compile(r"当天|那天|同一天|同天|当日|\b(?:that|the same|same) day\b", re.I)


def clause_grounded(
    whole: ThoughtPlan, composed: ThoughtPlan, clauses: Sequence[Clause], origin: dict[str, int], text: str
) -> ThoughtPlan:
    """The whole-request plan with the arguments it borrowed from another ask replaced by the
    clause plan's (same shape: step i of one is step i of the other). A value of the whole plan is
    borrowed when it is a slot value that only a clause planning *other* tools contains (not an
    ellipsis of the same tool, "查重庆明天的天气，再查呼和浩特的", nor a fragment clause that planned
    nothing of its own, "…, invite Alice and Bob"); it is then replaced by the clause plan's value
    when that one is the clause's own slot value, or dropped when the clause plan has none
    ("weather today, calendar tomorrow, and my invoices": calendar on today, invoices on tomorrow)."""
    tools_of: dict[int, set[str]] = {}
    for gid, k in origin.items():
        tools_of.setdefault(k, set()).update(s.tool for s in composed.steps if s.step_id == gid)

    def owners(value: Any) -> set[int]:
        return {k for k, c in enumerate(clauses) if any(v == value for v in c.slots.values())}

    steps = []
    changed = False
    for w, c in zip(whole.steps, composed.steps, strict=True):
        k = origin.get(c.step_id)
        if k is None or _SAME_DAY.search(text):  # "我当天的安排": the day is the earlier ask's
            steps.append(w)
            continue
        args = dict(w.arguments)
        for a in set(w.arguments) | set(c.arguments):
            wv, cv = w.arguments.get(a), c.arguments.get(a)
            if wv == cv or wv is None or isinstance(wv, list):
                continue
            own = owners(wv)
            if not own or k in own or any(j not in tools_of or w.tool in tools_of[j] for j in own):
                continue
            if cv is None:
                args.pop(a)
            elif k in owners(cv):
                args[a] = cv
            else:
                continue
            changed = True
        steps.append(w.model_copy(update={"arguments": args}) if args != w.arguments else w)
    if not changed:
        return whole
    return whole.model_copy(update={"steps": steps})
