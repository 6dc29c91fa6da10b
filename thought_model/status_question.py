"""Status questions are not tracking requests (issue #14).

"did order <ORDER1> ship already", "has it been delivered yet", "这单发了没", "<ORDER1> 发货了吗" ask
whether an order reached a state: the answer is the order's status (``get_order_status``), not its
carrier, location and ETA (``get_logistics``). The model often plans the tracking tool because the
words are about shipping. :func:`status_not_tracking` turns a ``get_logistics`` step into a
``get_order_status`` step with the same order id when the request asks such a yes/no question and
has no tracking word (where / track / carrier / ETA / 物流 / 快递 / 到哪 …), and the plan has no
status step of that order already. Anything else is left as planned.
"""

from __future__ import annotations

import re

from tao.contracts import ThoughtPlan
from thought_model.perception.normalize import to_simplified

TRACKING = "get_logistics"
STATUS = "get_order_status"

_ZH_QUESTION = re.compile(
    r"(?:发货|发出去?|寄出去?|签收|送达|发)了?(?:吗|么|没有?|没呢)|(?:有没有|是否|是不是)(?:已经?)?(?:发货|发出|寄出|签收|送达)"
    r"|(?:发货|发出|寄出|签收|送达)(?:没有?|与否)"
)
_EN_QUESTION = re.compile(
    r"\b(?:shipped|dispatched|delivered|sent out)\s+(?:yet|already)\b"
    r"|\b(?:did|has|have|is|was)\b[^.?!]{0,60}?\b(?:ship|shipped|dispatched|deliver|delivered|sent out)\b(?!\s+to\b)",
    re.I,
)
_TRACKING_WORDS = re.compile(
    r"\bwhere\b|\btrack|carrier|courier|\beta\b|location|\bwhen\b|arriv|logistic|"
    r"物流|快递|到哪|在哪|哪里|位置|运单|单号|什么时候|几时|预计|多久",
    re.I,
)


def asks_status(text: str) -> bool:
    """Whether ``text`` is a yes/no question about an order's shipping state, without tracking words."""
    t = to_simplified(text)
    if _TRACKING_WORDS.search(t):
        return False
    return _ZH_QUESTION.search(t) is not None or _EN_QUESTION.search(t) is not None


def status_not_tracking(plan: ThoughtPlan, text: str) -> ThoughtPlan:
    """``plan`` with its tracking steps read as status reads when the request asks a status question."""
    if not any(s.tool == TRACKING for s in plan.steps) or not asks_status(text):
        return plan
    have = {str(s.arguments.get("order_id")) for s in plan.steps if s.tool == STATUS}
    steps = []
    changed = False
    for s in plan.steps:
        oid = s.arguments.get("order_id")
        if s.tool == TRACKING and set(s.arguments) == {"order_id"} and str(oid) not in have:
            s = s.model_copy(update={"tool": STATUS})
            changed = True
        steps.append(s)
    return plan.model_copy(update={"steps": steps}) if changed else plan
