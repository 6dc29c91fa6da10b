"""A free text written after its field's name goes to that field ("Subject: <TEXT1>. Body: <TEXT2>.").

The model sometimes swaps two free texts of one step (the body as the subject, the subject as the
body). The request says which is which when each text follows its field's name: the argument's
own name in English ("subject", "body", "title", "description", "reason", underscores as spaces),
or a Chinese name of a common field (主题 / 正文 / 抬头 / 说明 / 原因 …). :func:`cued_fields`
reads those (field → value) pairs from the masked request; :func:`swap_cued` swaps two arguments
of a step whose values are each other's cued values. Nothing else changes: a value no cue names is
the model's choice.
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import ThoughtPlan

ZH_FIELD_WORDS: dict[str, str] = {
    "subject": "主题|主旨|标题",
    "body": "正文|内容",
    "title": "标题|抬头|题目|名称",
    "description": "说明|备注|描述",
    "reason": "原因|理由",
}
"""Chinese names of common free-text fields."""


def cued_fields(masked: str, slots: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """Field name → the value of the ``<TEXTk>`` slot written right after that field's name."""
    out: dict[str, Any] = {}
    for name in names:
        words = [re.escape(name.replace("_", " "))]
        if name in ZH_FIELD_WORDS:
            words.append(ZH_FIELD_WORDS[name])
        rx = re.compile(
            rf"(?:(?<![A-Za-z])(?:{words[0]})(?![A-Za-z]){'|' + words[1] if len(words) > 1 else ''})"
            r"\s*(?:line\s*)?(?:[:：=]|is|should be|reads|as|是|为|写|就写)?\s*(<TEXT[1-9]>)",
            re.I,
        )
        hits = {m.group(1) for m in rx.finditer(masked)}
        if len(hits) == 1:
            tok = hits.pop()
            if tok in slots:
                out[name] = slots[tok]
    return out


def swap_cued(plan: ThoughtPlan, masked: str, slots: dict[str, Any]) -> ThoughtPlan:
    """``plan`` with swapped cued free texts put back (module doc); ``plan`` itself when none."""
    steps = list(plan.steps)
    changed = False
    for i, st in enumerate(steps):
        names = {a for a, v in st.arguments.items() if isinstance(v, str)}
        cued = cued_fields(masked, slots, names) if len(names) > 1 else {}
        args = dict(st.arguments)
        for a, want in cued.items():
            if args.get(a) == want:
                continue
            other = next((b for b, v in args.items() if b != a and v == want and b in cued), None)
            if other is not None and cued.get(other) == args.get(a):
                args[a], args[other] = args[other], args[a]
                changed = True
        if args != st.arguments:
            steps[i] = st.model_copy(update={"arguments": args})
    return plan.model_copy(update={"steps": steps}) if changed else plan
