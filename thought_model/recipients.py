"""A recipient the request names only by role ("my manager", "给我领导") is unknown (issue #14).

The plan model answered "send an email to my manager, subject …" with the ``email_myself`` chain
(``get_user_profile(<me>) -> send_email(to=${t1.email})``): the caller's own address for someone
else's. :func:`unknown_recipient` turns such a plan into ``insufficient_context`` for ``to`` when
the request speaks of a recipient by role (:data:`_ROLE`) and never of the speaker as the
recipient (``myself``, ``to me``, ``给我自己``, ``我的邮箱``).
"""

from __future__ import annotations

import re

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan

_ROLE = re.compile(
    r"(?<![A-Za-z])(?:my|our|the)\s+(?:direct\s+|line\s+|team\s+|project\s+)?"
    r"(?:manager|boss|supervisor|lead|team\s*lead|colleague|coworker|co-worker|teammate|team|hr|client|customer"
    r"|director|mentor|assistant|landlord|teacher|advisor)s?(?![A-Za-z])"
    r"|(?:我|我的|我们|我们的)\s?(?:领导|经理|老板|主管|上司|组长|同事|导师|客户|总监|部门|团队|助理|老师|leader)"
    r"|(?:给|发给|告诉|通知)\s?(?:领导|经理|老板|主管|上司|组长|同事|hr|HR|人事|客户|客人|供应商|对方)",
    re.I,
)
_SELF = re.compile(
    r"(?<![A-Za-z])(?:myself|to\s+me|me\s+an?\s+(?:e-?mail|copy|reminder|note)|my\s+(?:own\s+)?(?:inbox|mailbox|e-?mail\s+address))(?![A-Za-z])"
    r"|我自己|给自己|自己的邮箱|我的邮箱|发给我(?!的)|给我发",
    re.I,
)


def unknown_recipient(
    plan: ThoughtPlan, masked: str, session: SessionState | None
) -> InsufficientContext | None:
    """``insufficient_context(to)`` for a message to a role-named person sent to the caller's own
    address (see the module doc); None when the plan is kept."""
    me = session.user_id if session is not None else None
    if me is None or not _ROLE.search(masked) or _SELF.search(masked):
        return None
    own = {
        st.step_id for st in plan.steps if st.tool == "get_user_profile" and st.arguments.get("user_id") == me
    }
    for st in plan.steps:
        to = st.arguments.get("to")
        if st.tool == "send_email" and isinstance(to, str):
            m = re.fullmatch(r"\$\{(t[1-9])\.email\}", to)
            if m and m.group(1) in own:
                return InsufficientContext(required_fields=["to"], intent=plan.intent)
    return None
