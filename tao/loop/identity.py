"""A turn that tells who the speaker is, answering an open question for their user id.

"查一下我上个月的订单" asked ``user_id`` (the session knows no user); the next turn gives an id
("用户编号 U20251103", "my id is U55501234") or a value a finding tool takes ("oh, I'm
ruby.c@corp.com", "手机号是139…"). :func:`identity_answer` plans the open request with the id
written in (a placeholder id when the turn gives an email or phone), then, for an email or phone,
chains the finding tool in front and points the id arguments at its ``user_id``
(``find_user(email) -> list_orders(${t1.user_id}, …)``). The open request keeps every value it
had (period, status …); the turn's tool words ("用户编号" reads as the profile tool) do not
replace the pending task. None when the turn is not such an answer or the plan does not check.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tao.contracts import InsufficientContext, ThoughtPlan
from tao.loop.carry_schema import _props, accepts
from tao.loop.carry_types import Carry
from tao.loop.followup import CarryKind, Delta, is_zh
from tao.loop.referent import substitute_person

if TYPE_CHECKING:
    from tao.loop.carryover import CarryOver

Replan = Callable[[str], Awaitable[ThoughtPlan | InsufficientContext | None]]

ID_FIELD = "user_id"
PLACEHOLDER = "U00000000"  # an id of the schema's form, replaced by the finding step's output
_WHO = {"USER", "EMAIL", "PHONE"}
# what may stand around the value in such an answer: labels, "I'm", "my … is", fillers
_FILLER = re.compile(
    r"我的?|是|用户|编号|账号|帐号|ID|id|邮箱|电子邮件|手机号?码?|电话|号码|哦|噢|对|嗯|啊|了|吧|呢|的|"
    r"\b(?:oh|ok|okay|right|yes|sorry|i'?m|i am|it'?s|my|is|user|id|email|e-mail|address|phone|number|"
    r"account|mobile|use|try|here)\b|[\s,.，。:：!！?？'\"“”-]",
    re.IGNORECASE,
)


def _who(carry: Carry) -> Delta | None:
    ds = [d for d in carry.followup.deltas if d.type in _WHO]
    if len(ds) != 1 or len(carry.followup.deltas) != 1:
        return None
    rest = carry.original.replace(ds[0].text, " ")
    return ds[0] if not _FILLER.sub("", rest).strip() else None


def _finder(co: CarryOver, d: Delta) -> str | None:
    """The tool that finds a user by this value: it has the value's argument, needs nothing else,
    and takes no user id itself."""
    name = d.type.lower()
    for tool, schema in co.schemas.items():
        props = _props(schema)
        req = set(schema.get("required") or [])
        if name in props and ID_FIELD not in props and req <= {name} and accepts(props[name], d.value):
            return tool
    return None


async def identity_answer(co: CarryOver, carry: Carry, replan: Replan) -> ThoughtPlan | None:
    """See the module doc."""
    snap, session = carry.snap, carry.session
    if snap is None or session is None or snap.pending is None or session.user_id:
        return None
    if ID_FIELD not in snap.pending.required_fields or (d := _who(carry)) is None:
        return None
    step: dict[str, Any] | None = None
    uid = str(d.value)
    if d.type != "USER":
        tool = _finder(co, d)
        if tool is None:
            return None
        step, uid = {"tool": tool, "arguments": {d.type.lower(): d.value}}, PLACEHOLDER
    zh = is_zh(snap.pending.request)
    said = f"我的用户ID是{uid}" if zh else f"my user id is {uid}"
    req = snap.pending.request.rstrip("。.？?！! ") + ("，" if zh else ", ") + said
    got = await replan(req)
    if not isinstance(got, ThoughtPlan) or not any(s.arguments.get(ID_FIELD) == uid for s in got.steps):
        carry.notes.append(f"identity: the open request with {d.type} planned no step for the id")
        return None
    got = co._fill(carry, got)
    if step is not None:
        me = session.model_copy(update={"user_id": PLACEHOLDER})
        got = substitute_person(got, step, None, me)
        if got is None:
            return None
    for s in got.steps:
        schema = co.schemas.get(s.tool)
        if schema is None or not accepts(schema, dict(s.arguments)):
            carry.notes.append(f"identity: {s.tool} does not check")
            return None
    carry.kind, carry.candidate, carry.request = CarryKind.ANSWER, "identity", req
    carry.notes.append(f"identity: the open request planned with the turn's {d.type} as the user")
    return got
