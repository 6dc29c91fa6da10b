"""A change of a field the update tool does not allow: the fallback branch, not a plan.

``update_user_profile`` changes *one of* ``phone``, ``email``, ``city``, ``name`` — its ``field``
argument is an enum. Users ask to change what the tool cannot ("change my birthday", "update the
bank account my salary goes to", "把我的办公地点改了"), and both the classifier (a change of the
profile) and the unserved-action check (changing *is* what the tool does) route them to it; the
plan model then forces the ask onto an allowed field. The contract already says which fields
exist, so the check reads them from the schema, for any registry:

* :func:`field_enums` finds a tool's *field selector*: an enum argument named ``field``
  (``fields``, ``attribute``, ``property``, ``setting``, ``column``) — the argument that says
  *which* of an object's fields the call changes. An enum of other arguments (a leave type, a
  system) is a value, not a field, and is not read.
* :func:`changed_object` is the thing a change ask names as changed: "change **my birthday** to",
  "update the **bank account** my salary …", "把**生日**改成", "**办公地点**从北京改成上海", "换个**尺码**"
  (the head after the last 的 / 里 in Chinese). None when the request names no object in those
  shapes — then nothing is decided here.
* :func:`unlisted_change`: a change is asked, every tool of the groups the request is about that
  performs a change has a field selector, and the changed object is neither one of its fields
  (the field's name, its lexicon concept, a common synonym: ``phone`` ← "number", "手机号";
  ``city`` ← "location", "住址城市") nor a word for the whole record ("my profile", "个人资料": the
  planner asks which field) → the change is unserved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tao.contracts.tools import ToolSpec
from tao.loop.intent.actions import COVERED_BY, Action, asked_text, performed
from tao.loop.intent.lexicon import CONCEPTS, concepts_of

FIELD_ARGS = frozenset({"field", "fields", "attribute", "property", "setting", "column"})
"""Argument names that select which field of an object a change tool writes."""

# common words for common field names, beside the lexicon's concepts (en | zh)
_FIELD_WORDS: dict[str, str] = {
    "phone": r"number|contact (?:number|phone)|\btel\b|telephone|号码|联系方式|手机|电话",
    "email": r"e-?mail|mail|address for email|邮箱|邮件地址|电邮",
    "city": r"city|location|town|where [\w ]{1,30}? (?:live|lives|is based|am based)|based in|residence|城市|地区|所在地|居住地|常驻地|住的地方",
    "name": r"name|名字|姓名|名称",
    "address": r"address|地址|住址",
    "title": r"title|标题|抬头",
}
# words for the whole record, not one of its fields: "update my profile" names no field
_RECORD = re.compile(
    r"^(?:(?:my|the|his|her|our|their|its|this|that|user'?s?|customer'?s?|member'?s?|client'?s?|account|personal|contact|profile|"
    r"info|information|details?|record|data|one|a|field|of|in|on|system|settings?|thanks|thank|you|pls|please|now|asap)\s*)+$|"
    r"^(?:我的|我|他的|她的|的|个人|用户|客户|会员|账号|账户|资料|信息|档案|个人信息|登记的|一下|下)+$"
)
_DET = r"(?:my|the|his|her|our|their|its|this|that|a|an)\s+"
_EN = re.compile(
    r"\b(?:change|update|modify|edit|amend|correct|set)\s+(?:" + _DET + r")?"
    r"((?:(?!to\b|from\b|into\b|with\b|for\b|in\b|on\b|so\b|because\b|please\b)[a-z0-9'-]+\s*){1,4})",
)
_ZH = (
    re.compile(
        r"([\u4e00-\u9fffA-Za-z]{1,16}?)(?:从[^，,。；;]{0,24})?(?:改成|改为|换成|更新成|更新为|修改为|更改为|改一下|改下)"
    ),
    re.compile(r"(?:修改|更改|更新|换个|换一个)(?:一下|下)?([\u4e00-\u9fffA-Za-z0-9]{1,24})"),
)
_ZH_LEAD = re.compile(r"^.*(?:把|将|帮我|请|麻烦|我想|我要|想)")
_ZH_TAIL = re.compile(r"(?:里面|里|中|也|都|还|再|得|要|就|修|更|帮我|一起|同步)+$")


def _enum_of(schema: dict[str, Any]) -> tuple[str, ...]:
    if isinstance(schema.get("enum"), list):
        return tuple(str(v) for v in schema["enum"])
    for alt in schema.get("anyOf", ()) or ():
        if isinstance(alt, dict) and isinstance(alt.get("enum"), list):
            return tuple(str(v) for v in alt["enum"])
    if isinstance(schema.get("items"), dict):  # an array of fields
        return _enum_of(schema["items"])
    return ()


def field_enums(spec: ToolSpec) -> tuple[str, ...]:
    """The fields ``spec`` can change, from its field-selector enum; () when it has none."""
    props = spec.args_schema.get("properties", {}) or {}
    out: list[str] = []
    for name, sub in props.items():
        if name.lower() in FIELD_ARGS and isinstance(sub, dict):
            out += _enum_of(sub)
    return tuple(dict.fromkeys(out))


def changed_object(text: str) -> str | None:
    """The object a change ask of ``text`` (normalized: simplified, ASCII) names; None if none."""
    low = asked_text(text).lower()
    m = _EN.search(low)
    if m:
        return m.group(1).strip() or None
    for rx in _ZH:
        for m in rx.finditer(low):
            obj = _ZH_LEAD.sub("", m.group(1))
            obj = _ZH_TAIL.sub("", obj.split("的")[-1].split("里")[-1])
            if obj:
                return obj
    return None


def _names_field(obj: str, field: str) -> bool:
    key = field.lower()
    if key in obj or key.replace("_", " ") in obj:
        return True
    if key in CONCEPTS and key in concepts_of(obj):
        return True
    words = _FIELD_WORDS.get(key)
    return bool(words and re.search(words, obj))


def unlisted_change(text: str, asked: frozenset[Action], tools: Sequence[ToolSpec]) -> tuple[str, ...]:
    """The field-selector tools a change ask of ``text`` falls outside of; () when served.

    ``text`` is normalized (:func:`.actions.action_text`), ``asked`` its explicit actions
    (:func:`.actions.requested`), ``tools`` the tools of the groups it is about. Served when no
    change is asked, when a changing tool there has no field selector (it changes whatever the
    request says), when the request names no changed object, names the whole record, or names a
    listed field; a rename names ``name``.
    """
    if Action.CHANGE not in asked and not any(Action.CHANGE in COVERED_BY.get(a, ()) for a in asked):
        return ()
    changers = [t for t in tools if Action.CHANGE in performed([t.name])]
    enums = {t.name: field_enums(t) for t in changers}
    if not enums or any(not e for e in enums.values()):
        return ()
    listed = {f for e in enums.values() for f in e}
    if Action.RENAME in asked and "name" in listed:
        return ()
    obj = changed_object(text)
    if obj is None or _RECORD.match(obj.strip()):
        return ()
    low = asked_text(text).lower()
    if any(_names_field(low, f) for f in listed):  # a listed field named anywhere is served
        return ()
    return tuple(sorted(enums))
