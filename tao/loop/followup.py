"""Reading a follow-up turn: is it elliptical, what does it change, what does it point at.

:func:`read_followup` looks at one request against the previous turn's snapshot and returns a
:class:`Followup`: the :class:`CarryKind` (``new`` request, ``swap`` = the same task with some
values changed — "那3月呢", "那上海呢", "same for last week", "改成明天" —, ``refer`` = a new action
on an entity of an earlier turn — "and where is it now?", "book the first one", "取消它" —, or
``answer`` to a pending insufficient-context question), the values the turn itself brings
(:class:`Delta`, from the plan model's perception plus bare months that perception leaves
alone), and the reference phrase with the entity it points at. Pure and deterministic: cue
lists and perception, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any


class CarryKind(StrEnum):
    NEW = "new"
    SWAP = "swap"
    REFER = "refer"
    ANSWER = "answer"


@dataclass(frozen=True)
class Delta:
    """One value the follow-up brings: perception's type (DATE, CITY, ORDER, NUM, DUR, ...), the
    value (a time symbol, an ISO date or month, a number, a name) and its text in the request."""

    type: str
    value: Any
    text: str
    time_only: bool = False  # "下午4点" / "at 4pm": a clock time without a day


@dataclass
class Followup:
    kind: CarryKind
    deltas: list[Delta] = field(default_factory=list)
    ref_text: str | None = None  # the phrase that points at an entity ("it", "第一个", "那个订单")
    ref_kind: str | None = None  # what the phrase names ("order", "room", ...) if it does
    ordinal: int | None = None  # "the first one" -> 1
    cues: list[str] = field(default_factory=list)
    anchor: tuple[str, str] | None = None  # ("time" | "day", phrase): "at the same time", "那天"
    person: str | None = None  # a pronoun for someone other than the speaker ("his", "她")
    correction: str | None = None  # "I meant", "不对": the turn corrects the previous one


_SWAP_ZH = re.compile(
    r"^(那|那么|那要是|要是|如果是|换成|改成|改为|换到|改到|还有|再查|也查|同样)|呢[？?。!！]*$"
)
_SWAP_EN = re.compile(
    r"^(what about|how about|and|same for|same but|same thing for|now|then)\b|\b(instead|as well)\b"
    r"|^(change|switch|move|make) (it|that|this)?\s*(to|for)\b",
    re.IGNORECASE,
)
_ORD_ZH = re.compile(r"第\s*([一二三四五1-5])\s*(个|间|条|笔|张|单|项)?|(头一个|首个|最后一个)")
_ORD_EN = re.compile(
    r"\b(?:the\s+)?(?:(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)(?:\s+(?:one|room|order|invoice|expense|item))?"
    r"|(last)\s+(?:one|room|order|invoice|expense|item))\b",
    re.IGNORECASE,
)
_ORD_VALUE = {
    "一": 1, "1": 1, "first": 1, "1st": 1, "头一个": 1, "首个": 1,
    "二": 2, "2": 2, "second": 2, "2nd": 2,
    "三": 3, "3": 3, "third": 3, "3rd": 3,
    "四": 4, "4": 4, "fourth": 4, "4th": 4,
    "五": 5, "5": 5, "fifth": 5, "5th": 5,
    "last": -1, "最后一个": -1,
}  # fmt: skip
_KIND_WORDS = {
    "order": ("订单", "这单", "那单", "order"),
    "room": ("会议室", "房间", "room"),
    "invoice": ("发票", "invoice"),
    "expense": ("报销", "expense", "claim"),
    "event": ("日程", "会议", "event", "meeting"),
}
_PRON_ZH = re.compile(
    r"(它|这个|那个|这笔|那笔|这张|那张|这单|那单|这间|那间)(?!月|周|星期|礼拜|季度|年|时候|时间)(订单|会议室|房间|发票|报销单|报销|日程)?"
)
_SWAP_IT_EN = re.compile(
    r"^(?:(?:no|nope|wait|sorry|oops|actually|hmm|ok|okay|well|oh|my bad)\b[\s,.!]*)*"
    r"(change|switch|move|make|set) (it|that|this)\b",
    re.IGNORECASE,
)
_PRON_EN = re.compile(
    r"\b(it|its|that one|this one|the same one|(?:that|this|the same|the) (?:order|room|invoice|expense|claim|event|meeting))\b",
    re.IGNORECASE,
)
_MONTH_ZH = re.compile(
    r"(?<![0-9年\-/])(去年|今年|明年)?\s*(1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])\s*月份?(?!\s*[0-9一二三四五六七八九十]+\s*[日号])"
)
_MONTHS_EN = {
    m: i + 1
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec")]
    )
    for m in names
}  # fmt: skip
_MONTH_EN = re.compile(
    r"\b(last year'?s?\s+|next year'?s?\s+)?("
    + "|".join(sorted(_MONTHS_EN, key=len, reverse=True))
    + r")\b(?!\s+\d)",
    re.IGNORECASE,
)
_ZH_NUM = {
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "十一": 11,
    "十二": 12,
}
_DAY_WORDS = re.compile(
    r"今天|今日|明天|后天|昨天|前天|周|星期|礼拜|号|日|today|tomorrow|yesterday|day|week|mon|tue|wed|thu|fri|sat|sun|\d{4}-\d{2}-\d{2}",
    re.IGNORECASE,
)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def is_zh(text: str) -> bool:
    return _CJK.search(text) is not None


def find_months(text: str, today: date) -> list[Delta]:
    """Bare months ("3月", "去年12月", "March", "last year's May") as ``YYYY-MM`` of the session's
    year (``去年``/``last year``: the year before); perception binds months only with a year."""
    out: list[Delta] = []
    for m in _MONTH_ZH.finditer(text):
        n = int(m.group(2)) if m.group(2).isdigit() else _ZH_NUM.get(m.group(2))
        if n is None:
            continue
        y = today.year + {"去年": -1, "明年": 1}.get(m.group(1) or "", 0)
        out.append(Delta("DATE", f"{y:04d}-{n:02d}", m.group(0).strip()))
    for m in _MONTH_EN.finditer(text):
        word = m.group(2).lower()
        if word == "may" and not re.search(
            r"\b(in|for|about|of)\s+may\b|^may\b|\bmay\s*\?", text, re.IGNORECASE
        ):
            continue  # the modal verb
        pre = (m.group(1) or "").lower()
        y = today.year + (-1 if pre.startswith("last") else 1 if pre.startswith("next") else 0)
        out.append(Delta("DATE", f"{y:04d}-{_MONTHS_EN[word]:02d}", m.group(0).strip()))
    return out


def perceive_deltas(text: str, today: date, lexicon: Any = None) -> list[Delta]:
    """The values a request brings, in text order: perception's entities plus bare months."""
    from thought_model.entities import perceive

    p = perceive(text, today, user_known=True, lexicon=lexicon)
    out = []
    for e in sorted(p.entities, key=lambda e: e.start):
        if e.type not in ("TEXT", "NAME"):
            time_only = (
                e.type == "DATE"
                and isinstance(e.value, str)
                and e.value.startswith("@today T")
                and not _DAY_WORDS.search(e.text)
            )
            out.append(Delta(e.type, e.value, e.text, time_only))
    months = find_months(text, today)
    if months:  # "去年12月": the month, not perception's "去年" (@last_year)
        out = [d for d in out if not (d.type == "DATE" and any(d.text in m.text for m in months))]
        if not any(d.type == "DATE" for d in out):
            out.extend(months)
    from tao.loop.turn_cues import extra_deltas

    extra = extra_deltas(text, out, lexicon)
    if extra:  # in text order, as the rewrite replaces them
        out = sorted([*out, *extra], key=lambda d: text.find(d.text) if d.text in text else len(text))
    return out


def _short(text: str, deltas: list[Delta]) -> bool:
    rest = text
    for d in deltas:
        rest = rest.replace(d.text, " ")
    if is_zh(text):
        return len(re.sub(r"[\s，,。.？?！!、]", "", rest)) <= 10
    return len(rest.split()) <= 6


def _ordinal(text: str) -> tuple[str, int] | None:
    m = _ORD_ZH.search(text) or _ORD_EN.search(text)
    if not m:
        return None
    key = next(g for g in m.groups() if g)
    val = _ORD_VALUE.get(key.lower())
    return (m.group(0), val) if val else None


def _kind_of(phrase: str) -> str | None:
    low = phrase.lower()
    for kind, words in _KIND_WORDS.items():
        if any(w in low for w in words):
            return kind
    return None


_FILL_ZH = re.compile(
    r"那么|那|呢|的|吗|啊|呀|吧|怎么样|如何|还有|再|也|查一下|查查|查|看看|一下|帮我|请|改成|换成|改为|换到|改到|同样|就|要是|如果是|份|[\s，,。.？?！!、:：]"
)
_FILL_EN = {
    "and", "what", "about", "how", "the", "for", "on", "in", "at", "then", "please", "same", "thing",
    "but", "instead", "as", "well", "now", "change", "switch", "move", "make", "set", "it", "that",
    "this", "to", "one", "of", "is", "a", "an", "do", "does", "with", "n", "&", "or", "plus", "pls",
    "too", "also", "only", "just", "ones",
}  # fmt: skip


def new_topic(text: str, deltas: list[Delta], previous: str) -> bool:
    """Words left after the values and filler words that the previous request does not have:
    "明天的日程呢" after a weather question is a new request, "4月的呢" is not."""
    rest = text
    for d in sorted(deltas, key=lambda d: -len(d.text)):
        rest = rest.replace(d.text, " ")
    if is_zh(text):
        left = _FILL_ZH.sub("", rest)
        return any(ch not in previous for ch in left)
    prev = {w.strip("?.,!") for w in previous.lower().split()}
    words = [w.strip("?.,!'\"") for w in rest.lower().split()]
    return any(w and w not in _FILL_EN and w not in prev for w in words)


def read_followup(
    text: str,
    today: date,
    *,
    has_previous: bool,
    pending: bool,
    lexicon: Any = None,
    previous: str = "",
) -> Followup:
    """Classify one request against the previous turn (see the module doc)."""
    from tao.loop.turn_cues import anchor_of, correction_of, person_of
    from thought_model.perception.normalize import normalize_request

    deltas = perceive_deltas(text, today, lexicon)
    if not has_previous:
        return Followup(CarryKind.NEW, deltas)
    stripped = normalize_request(text).strip()  # simplified, width-folded: what the deltas were read on
    fu = _classify(stripped, deltas, pending, previous)
    fu.anchor, fu.person, fu.correction = anchor_of(stripped), person_of(stripped), correction_of(stripped)
    if (
        fu.anchor is not None
        and fu.anchor[1].lower() == "then"
        and any(d.type == "DATE" and not d.time_only for d in deltas)
    ):  # "book R105 for next Friday then": the turn's own day
        fu.anchor = None
    return fu


def _classify(stripped: str, deltas: list[Delta], pending: bool, previous: str) -> Followup:
    zh = is_zh(stripped)
    cues: list[str] = []
    swap = (_SWAP_ZH if zh else _SWAP_EN).search(stripped)
    if swap:
        cues.append("swap:" + swap.group(0).strip())
        if swap.group(0).strip().lower() == "now":  # "now the paid ones": the cue, not a time
            deltas = [d for d in deltas if d.text.strip().lower() != "now"]
    ordinal = _ordinal(stripped)
    pron = None if ordinal else (_PRON_ZH if zh else _PRON_EN).search(stripped)
    short = _short(stripped, deltas)
    if ordinal is not None:
        cues.append("ordinal:" + ordinal[0])
        return Followup(CarryKind.REFER, deltas, ordinal[0], _kind_of(ordinal[0]), ordinal[1], cues)
    own_id = any(d.type not in ("DATE", "CITY", "NUM", "DUR", "AMOUNT") for d in deltas)
    if pron is not None and _SWAP_IT_EN.search(stripped) and deltas:
        pron = None  # "make it 4pm", "change it to Friday": the same task with a new value
    if pron is not None and not own_id:
        cues.append("pronoun:" + pron.group(0))
        return Followup(CarryKind.REFER, deltas, pron.group(0), _kind_of(pron.group(0)), None, cues)
    if pending and short and deltas:
        cues.append("pending")
        return Followup(CarryKind.ANSWER, deltas, cues=cues)
    if new_topic(stripped, deltas, previous):
        cues.append("new words")
        return Followup(CarryKind.NEW, deltas, cues=cues)
    if swap is not None and short and (deltas or not zh):
        return Followup(CarryKind.SWAP, deltas, cues=cues)
    if short and deltas and not _has_verb(stripped, deltas):
        cues.append("values only")
        return Followup(CarryKind.SWAP, deltas, cues=cues)
    return Followup(CarryKind.NEW, deltas, cues=cues)


_VERB = re.compile(
    r"查|看|订|预订|取消|退|开|发|提交|创建|建|改(?!成|为|到)|更新|找|列|"
    r"\b(show|list|find|book|cancel|refund|create|send|submit|update|check|get|track|what|where|how)\b",
    re.IGNORECASE,
)


def _has_verb(text: str, deltas: list[Delta]) -> bool:
    rest = text
    for d in deltas:
        rest = rest.replace(d.text, " ")
    return _VERB.search(rest) is not None
