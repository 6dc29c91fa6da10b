"""Values a request says it does not give yet: the plan is insufficient for them (issue #14).

The model fills a required argument the user explicitly left open with something it can reach:
"订单 X 退一部分钱就行" became ``refund_payment(amount=${t1.amount})`` after ``get_order_status`` (the
whole amount), "给客户发个邮件，他的邮箱我稍后发你" the caller's own address from
``get_user_profile``. And "帮我改一下个人资料" named one field's value as missing when the request
names no field at all.

* :func:`unstated_in_plan` — a plan -> ``insufficient_context`` when a **partial refund** has no
  amount of the request (``一部分 / 部分 / 一点 / partial / part of``), or a message's ``to`` is a
  reference while the request says the **address comes later** (``邮箱我稍后发你``, ``I'll send you
  the address later``);
* :func:`unstated_fields` — an insufficient answer for ``update_user_profile`` whose request names
  no profile field: the missing fields are ``field`` and ``value``; a message answer naming
  ``body`` missing when the request's only text follows a body cue (``就说…``, ``saying …``): the
  text is the body, ``subject`` is what is missing.
"""

from __future__ import annotations

import re

from tao.contracts import InsufficientContext, ThoughtPlan

_PARTIAL = re.compile(r"一部分|部分|一点|一些|partial(?:ly)?|part\s+of|some\s+of", re.I)
_LATER = re.compile(
    r"(?:邮箱|地址|邮件地址|email(?:\s+address)?|address)[^，,。.;；]{0,8}?(?:稍后|等下|等会|回头|晚点|之后|待会|later)"
    r"|(?:稍后|等下|等会|回头|晚点|待会)[^，,。.;；]{0,6}?(?:邮箱|地址)"
    r"|(?:send|give|get)\s+you\s+(?:the|his|her|their)\s+(?:e-?mail\s+)?address\s+later",
    re.I,
)
_SLOT = re.compile(r"^<[A-Z]+[1-9]>$")
_FIELD_WORD = re.compile(
    r"手机|电话|号码|联系方式|邮箱|邮件|地址|城市|名字|姓名|昵称|住址|所在地|搬"
    r"|phone|mobile|number|contact|mail|city|name|address|moved|relocat|<(?:PHONE|EMAIL|CITY|NAME)[1-9]>",
    re.I,
)
_BODY_CUE = re.compile(
    r"(?:就|里|只)?说\s*<TEXT[1-9]>|(?<![A-Za-z])(?:saying|that says|tell (?:him|her|them))\s+<TEXT[1-9]>",
    re.I,
)


def unstated_in_plan(plan: ThoughtPlan, masked: str) -> InsufficientContext | None:
    """``insufficient_context`` for a value the request leaves open (module doc), else None."""
    for st in plan.steps:
        amount = st.arguments.get("amount")
        if st.tool == "refund_payment" and isinstance(amount, str) and _PARTIAL.search(masked):
            return InsufficientContext(required_fields=["amount"], intent=plan.intent)
        to = st.arguments.get("to")
        if st.tool == "send_email" and isinstance(to, str) and to.startswith("${") and _LATER.search(masked):
            return InsufficientContext(required_fields=["to"], intent=plan.intent)
    return None


def unstated_fields(out: InsufficientContext, masked: str) -> InsufficientContext:
    """The answer with the fields the request really leaves open (module doc)."""
    intent = out.intent or ""
    fields = list(out.required_fields)
    if (
        intent.startswith("update_my")
        and not _FIELD_WORD.search(masked)
        and set(fields) <= {"field", "value"}
    ):
        return InsufficientContext(required_fields=["field", "value"], intent="update_user_profile")
    if (
        set(fields) in ({"body"}, {"subject", "body"})
        and _BODY_CUE.search(masked)
        and masked.count("<TEXT") == 1
    ):
        return InsufficientContext(required_fields=["subject"], intent=out.intent)
    return out
