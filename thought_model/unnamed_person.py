"""An ask about another person the request does not identify ("reset my teammate's password",
"我同事有哪些设备"): the plan must not serve the speaker instead.

A user registry's session-user id argument (``employee_id``, :func:`thought_model.referents.person_lookup`)
filled with the speaker while the request speaks of a colleague, teammate, friend ... and gives no
name, email or id for them is a missing value, not the speaker's: the result is
``insufficient_context`` naming that argument. Relations the registry can follow (its ``extract``
outputs: ``manager_id`` of a record) are not in the list, so "my manager's email" stays a chain.
"""

from __future__ import annotations

import re
from typing import Any

from tao.contracts import InsufficientContext, ThoughtPlan
from thought_model.perception.normalize import to_simplified

_OTHER = re.compile(
    r"\b(?:my|our|a|the)\s+(?:colleague|co-?worker|teammate|team\s?mate|team member|friend|intern|new hire"
    r"|buddy|peer)s?\b|\b(?:someone|somebody)\b|同事|队友|组员|朋友|实习生|别人|某人",
    re.I,
)
_IDENTIFIED = ("<NAME", "<EMAIL")


def unnamed_other(
    plan: ThoughtPlan, text: str, slots: dict[str, Any], me: str | None, me_field: str
) -> InsufficientContext | None:
    """``insufficient_context`` for ``me_field`` when ``plan`` serves the speaker ``me`` for a
    person the request names only by a relation word (see the module doc); None otherwise."""
    if not me or not _OTHER.search(to_simplified(text)):
        return None
    if any(t.startswith(_IDENTIFIED) for t in slots):
        return None
    speaker = (me, "<ME>")  # resolved, or the model's session-user token
    values = [s.arguments.get(me_field) for s in plan.steps if me_field in s.arguments]
    if not set(speaker) & set(values) or any(
        isinstance(v, str) and v not in speaker and not v.startswith("${") for v in values
    ):
        return None
    return InsufficientContext(required_fields=[me_field], intent=plan.intent)
