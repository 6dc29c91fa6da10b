"""Two kinds of one-step ask that a request states in full and code plans directly (issue #14).

The plan model has no training phrasing for them, so it answered with another intent's missing
fields or with a wrong chain:

* **the caller's own profile field set to a value** — ``把我的姓名改成刘晓东``, ``名字改为周子涵``,
  ``change my phone to +44 20 7946 0958``, ``update my name to Sean O'Brien``, ``set my name to
  amy lin`` (-> ``Amy Lin``): one ``update_user_profile(<me>, field, value)``; the value is taken
  from the request as written (a phone with spaces, a name with an apostrophe or two words), never
  a person to look up. Not when someone else is meant (a name, id or 他/她 before the field word:
  ``孙悦改下城市``), or two fields are named (:mod:`thought_model.updates`);
* **everything of one kind of mine** — ``Show me all my invoices``, ``all of my reimbursement
  requests``, ``claims from last month``, ``我的发票都列一下``, ``我所有的报销单``: the domain's list
  tool with the session user and, when the request gives one, its period.

:func:`direct_plan` is consulted by :func:`thought_model.output_parse.parse_output` when the model's
answer is ``insufficient_context`` (both kinds) or a plan of profile lookups and updates only
(the first kind).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tao.contracts import ThoughtPlan
from tao.contracts.plan import PlanStep
from thought_model.entities import Perception

_FIELD_ZH = {"名字": "name", "姓名": "name", "昵称": "name", "手机号码": "phone", "手机号": "phone",
             "手机": "phone", "电话号码": "phone", "电话": "phone", "邮箱": "email", "邮件地址": "email",
             "城市": "city", "所在城市": "city"}  # fmt: skip
_FIELD_EN = {"name": "name", "display name": "name", "full name": "name", "phone": "phone",
             "phone number": "phone", "mobile": "phone", "mobile number": "phone", "number": "phone",
             "email": "email", "email address": "email", "e-mail": "email", "city": "city"}  # fmt: skip
_ZH_FIELD_RX = "|".join(sorted(_FIELD_ZH, key=len, reverse=True))
_EN_FIELD_RX = "|".join(sorted(_FIELD_EN, key=len, reverse=True)).replace(" ", r"\s+")

_ZH_SET = re.compile(
    rf"(?P<pre>^|[，,。；;\s]|我的|把我的|帮我把|把|帮我|请把|麻烦把)\s*(?P<f>{_ZH_FIELD_RX})"
    r"(?:改一下|要改一下|要改|需要改|想改)?[，,]?\s*(?:帮我)?(?:改成|改为|换成|换为|更新为|更新成|设为|设置为|设置成|改叫|改)\s*(?P<v>[^，,。；;！!？?]+)"
)
_EN_SET = re.compile(
    rf"(?:change|update|set|make|switch)\s+my\s+(?P<f>{_EN_FIELD_RX})\s+(?:to|as|into)\s+(?P<v>[^,;!?]+)"
    rf"|my\s+new\s+(?P<f2>{_EN_FIELD_RX})\s+is\s+(?P<v2>[^,;!?]+)",
    re.I,
)
_OTHER_PERSON = re.compile(
    r"他|她|(?<![A-Za-z])(?:his|her|their|user|for)(?![A-Za-z])|<(?:NAME|USER|EMAIL|PHONE)[1-9]>", re.I
)
_TRAIL = re.compile(r"(?:\s*(?:吧|啊|呀|哦|谢谢|please|pls|thanks?|thank you)\W*)+$", re.I)
_PHONE_VALUE = re.compile(r"^\+?[0-9][0-9 ()\-]{5,}[0-9]$")
_EMAIL_VALUE = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$")
_NAME_VALUE = re.compile(
    r"^(?:[\u4e00-\u9fff·]{2,6}|[A-Za-z][A-Za-z'’\-]*(?:\s+[A-Za-z][A-Za-z'’\-]*){0,3})$"
)


def _value(field: str, raw: str) -> str | None:
    v = _TRAIL.sub("", raw.strip()).strip(" .。\"'“”")
    if field == "phone":
        return v if _PHONE_VALUE.match(v) else None
    if field == "email":
        return v if _EMAIL_VALUE.match(v) else None
    if field == "name":
        if not _NAME_VALUE.match(v):
            return None
        if v.isascii() and v == v.lower():
            v = " ".join(w[:1].upper() + w[1:] for w in v.split())
        return v
    return None  # city: the model's own (a CITY slot)


def profile_update(text: str, masked: str) -> tuple[str, str] | None:
    """(field, value) when ``text`` asks to set one of the caller's own profile fields."""
    hits: list[tuple[str, str, int]] = []
    for m in _ZH_SET.finditer(text):
        hits.append((_FIELD_ZH[m.group("f")], m.group("v"), m.start("f")))
    for m in _EN_SET.finditer(text):
        f = (m.group("f") or m.group("f2")).lower()
        hits.append((_FIELD_EN[re.sub(r"\s+", " ", f)], m.group("v") or m.group("v2"), m.start()))
    if len(hits) != 1:
        return None
    field, raw, at = hits[0]
    cut = masked.find(text[at : at + 2]) if text[at : at + 2] else -1
    if _OTHER_PERSON.search(masked[: cut if cut > 0 else 0]) or re.search(
        r"他|她|(?<![A-Za-z])(?:his|her)(?![A-Za-z])", text
    ):
        return None
    value = _value(field, raw)
    return (field, value) if value else None


_NOUNS_EN = r"invoices|bills|reimbursements|reimbursement\s+(?:requests|claims)|expense\s+claims|expenses|claims|orders"
_LIST_EN = re.compile(
    r"(?<![A-Za-z])(?:all|every|any|each)(?:\s+(?:of\s+)?(?:my|mine|the))?\s+(?:[a-z]+\s+)?"
    r"(?P<n>invoices?|bills?|reimbursements?(?:\s+(?:requests?|claims?))?|expense\s+claims?|expenses?|claims?|orders?)(?![A-Za-z])"
    rf"|(?<![A-Za-z])(?:list|show|see|view)(?![A-Za-z]).*?(?P<n2>{_NOUNS_EN})(?![A-Za-z])"
    rf"|(?<![A-Za-z])my\s+(?P<n3>{_NOUNS_EN})(?![A-Za-z])"
    rf"|^\s*(?P<n4>{_NOUNS_EN})\s+(?:from|in|over|for|since|during|of)(?![A-Za-z])",
    re.I,
)
_LIST_ZH = re.compile(
    r"(?:所有|全部|我的|我)的?(?P<n>发票|报销单|报销记录|报销|订单)(?:都|全|全部|记录|列表)"
    r"|(?:所有|全部)的?(?P<n2>发票|报销单|报销记录|报销|订单)"
    r"|(?:列|看|查)(?:一下|下)?(?:我的)?(?P<n3>发票|报销单|报销记录|订单)(?:列表|记录)"
)
_NOUN_TOOL = (
    (re.compile(r"invoice|bill|发票", re.I), "list_invoices"),
    (re.compile(r"reimburse|expense|claim|报销", re.I), "list_expenses"),
    (re.compile(r"order|订单", re.I), "list_orders"),
)
_PERIOD_SYMBOL = re.compile(
    r"^@(?:this_week|last_week|next_week|this_month|last_month|next_month|this_year|last_year"
    r"|last_days:[0-9]+|next_days:[0-9]+)$|^[0-9]{4}-[0-9]{2}(?:-[0-9]{2}/[0-9]{4}-[0-9]{2}-[0-9]{2})?$"
)
_ID_SLOT = re.compile(r"<(?:ORDER|INV|EXP)[1-9]>")


def list_all(text: str, masked: str) -> str | None:
    """The list tool when the request asks for everything of one kind of mine (module doc)."""
    if _ID_SLOT.search(masked):
        return None
    m = _LIST_EN.search(text) or _LIST_ZH.search(text)
    if m is None:
        return None
    noun = next(g for g in m.groups() if g)
    return next(tool for rx, tool in _NOUN_TOOL if rx.search(noun))


def unmasked(perception: Perception) -> str:
    """The normalized request text back from a perception (slot tokens -> their surfaces)."""
    out: list[str] = []
    pos = 0
    masked = perception.masked
    for e in sorted(perception.entities, key=lambda e: e.start):
        tok = perception.slot_for(e.type, e.value)
        i = masked.find(tok, pos) if tok else -1
        if i < 0:
            continue
        out += [masked[pos:i], e.text]
        pos = i + len(tok or "")
    out.append(masked[pos:])
    return "".join(out)


def direct_plan(
    text: str,
    masked: str,
    slots: Mapping[str, Any],
    user_id: str | None,
    tools: set[str],
    insufficient: bool,
    planned: set[str],
) -> ThoughtPlan | None:
    """The direct plan of the request (module doc), or None to keep the model's answer."""
    if user_id is None:
        return None
    if "update_user_profile" in tools and (insufficient or planned <= {"find_user", "update_user_profile"}):
        hit = profile_update(text, masked)
        if hit is not None:
            field, value = hit
            step = PlanStep(
                step_id="t1",
                tool="update_user_profile",
                arguments={"user_id": user_id, "field": field, "value": value},
            )
            return ThoughtPlan(intent=f"update_my_{field}", steps=[step])
    if insufficient:
        tool = list_all(text, masked)
        if tool is not None and tool in tools:
            args: dict[str, Any] = {"user_id": user_id}
            periods = [
                v
                for k, v in slots.items()
                if k.startswith("<DATE") and isinstance(v, str) and _PERIOD_SYMBOL.match(v)
            ]
            if len(periods) == 1:
                args["period"] = periods[0]
            return ThoughtPlan(intent=tool, steps=[PlanStep(step_id="t1", tool=tool, arguments=args)])
    return None
