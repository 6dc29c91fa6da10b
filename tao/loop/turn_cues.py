"""What a later turn says about the session beyond its own values (no model; zh and en).

* :func:`anchor_of`: a phrase that points at an earlier turn's time ("at the same time", "same
  slot", "同一时间" -> ``time``; "the same day", "that day", "那天" -> ``day``; "the day after",
  "第二天" -> ``day+1``; "the day before", "前一天" -> ``day-1``; "that month", "that week",
  "同一个月", "那周" -> ``period``; "那两天", "both days" -> ``days``: the last two days named);
* :func:`repeat_of`: the last task again ("同样的内容也发给", "the same message", "once more");
* :func:`person_of`: a pronoun for a person who is not the speaker ("his", "their", "他", "她");
* :func:`correction_of`: the turn corrects the previous one ("I meant", "oops", "不对", "说错");
* :func:`extra_deltas`: values perception leaves alone in a follow-up: a bare "周末" / "the
  weekend" (this weekend), a head count written as
  "人数是12个", an amount after a currency sign ("£24.99"), a misspelt gazetteer city ("shenzen"),
  a capitalized word coordinated with a city ("Milan and Venice") or standing alone after a
  correction ("my bad, Marseille": a CITY delta, which only a plan with a city argument takes).
"""

from __future__ import annotations

import re
from typing import Any

from tao.loop.followup import Delta

_ANCHOR_TIME = re.compile(
    r"(?:\b(?:at|for|in)\s+)?(?:\bthe\s+)?\bsame\s+(?:time|slot|time slot|hour)\b"
    r"|同一时间|同一时段|同样的时间|相同的?时间|同一个时间|同个时间|那个时间|那个时段|同一个时段",
    re.IGNORECASE,
)
_ANCHOR_DAY = re.compile(
    r"(?:\b(?:on|for)\s+)?(?:\bthe\s+)?\bsame\s+(?:day|date)\b|(?:\b(?:on|for)\s+)?\bthat\s+(?:day|date)\b"
    r"|那一天|那天|当天|同一天|同一日|同日|这一天|那日"
    r"|(?<=[A-Za-z?]\s)\bthen(?=\s*[?.!]*\s*$)",  # "weather in Nanjing then?" (a trailing "then")
    re.IGNORECASE,
)
_ANCHOR_PERIOD = re.compile(
    r"(?:\b(?:for|in|over|during|from)\s+)?\b(?:that|the\s+same|that\s+same|same)\s+"
    r"(?:month|week|period|stretch|time\s*frame|time\s+span|span|range|window)\b"
    r"|那一?周(?!末)|那个?星期|同一个?周(?!末)|同一个?月|那个?月|当月|同月|那段时间|同一时期|同一时间段|那个时间段"
    r"|同期|同一?段时间|那一?段时间|那个?期间|这段时间|同样的时间段|相同的?时间段",
    re.IGNORECASE,
)
_PERSON_ZH = re.compile(r"(?<!其)(?:他们|她们|他|她|此人|这个人|那个人|该用户|这位|这个用户|那个用户)")
_PERSON_EN = re.compile(
    r"\b(?:their|his|her|him|them|this user|that user|this person|that person|this guy|that guy)\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:i meant|i mean|sorry|oops|my bad|actually|correction|not|rather|instead)\b"
    r"|不对|说错|搞错|弄错|写错|打错|应该是|我是说|不好意思|重新|其实是|更正",
    re.IGNORECASE,
)
_HEADCOUNT = re.compile(r"人数\s*(?:是|为|改成|改为|换成|变成|要)?\s*(\d{1,3})\s*(?:个人|个|人|位)?")
_CURRENCY = re.compile(r"[£$€¥￥]\s*(\d+(?:\.\d{1,2})?)")
_COORD_EN = re.compile(r"\s*(?:,|and|&|n|or|plus)\s+([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)\b")
_COORD_BEFORE_EN = re.compile(r"\b([A-Z][a-z]{2,})\s*(?:,|and|&|n|or|plus)\s*$")
_LATIN_WORD = re.compile(r"[A-Za-z]{5,}")
_NOT_PLACES = frozenset({"and", "what", "how", "about", "also", "then", "now", "same", "check", "weather"})


_NEXT_DAY = re.compile(
    r"(?:\b(?:on|for)\s+)?\bthe\s+(?:day\s+after|next\s+day|following\s+day)\b|第二天|次日|后一天|隔天",
    re.IGNORECASE,
)
_DAY_BEFORE = re.compile(r"(?:\b(?:on|for)\s+)?\bthe\s+day\s+before\b|前一天", re.IGNORECASE)
_WEEKEND = re.compile(r"(?<!下个)(?<!下)(?<!上个)(?<!上)(?:这个)?周末|\bthe\s+weekend\b", re.IGNORECASE)


_TWO_DAYS = re.compile(
    r"(?:\b(?:on|for)\s+)?\b(?:both\s+(?:of\s+)?(?:those\s+|these\s+|the\s+)?days|(?:those|these|the)\s+two\s+days)\b"
    r"|那两天|这两天|两天都|这两个日子|那两个日子",
    re.IGNORECASE,
)


def anchor_of(text: str) -> tuple[str, str] | None:
    """``(kind, phrase)``: ``time`` for the same time/slot, ``day`` for the same day, ``day+1`` /
    ``day-1`` for the day after / before the earlier turn's day, ``period`` for the same month /
    week / period, else None."""
    m = _TWO_DAYS.search(text)
    if m:
        return "days", m.group(0).strip()
    m = _NEXT_DAY.search(text)
    if m:
        return "day+1", m.group(0).strip()
    m = _DAY_BEFORE.search(text)
    if m:
        return "day-1", m.group(0).strip()
    m = _ANCHOR_PERIOD.search(text)
    if m:
        return "period", m.group(0).strip()
    m = _ANCHOR_TIME.search(text)
    if m:
        return "time", m.group(0).strip()
    m = _ANCHOR_DAY.search(text)
    if m:
        return "day", m.group(0).strip()
    return None


_REPEAT = re.compile(
    r"同样的|一样的|一模一样|相同的|照旧|照这个|照样|标题一样|内容一样|重发|再发一|再来一|再建一|再约一|再开一|再订一"
    r"|\b(?:the\s+)?same\s+(?:message|email|mail|content|text|event|meeting|thing|one)\b"
    r"|\b(?:again|once\s+more|one\s+more\s+time|likewise)\b",
    re.IGNORECASE,
)


def repeat_of(text: str) -> str | None:
    """The turn asks for the last task again with other values ("同样的内容也发给 …", "forward the
    same message to …", "once more to …", "再来一场")."""
    m = _REPEAT.search(text)
    return m.group(0) if m else None


def person_of(text: str) -> str | None:
    m = (_PERSON_ZH if re.search(r"[\u4e00-\u9fff]", text) else _PERSON_EN).search(text)
    return m.group(0) if m else None


def correction_of(text: str) -> str | None:
    m = _CORRECTION.search(text)
    return m.group(0) if m else None


def _close(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance at most 1 (one letter missing, extra, wrong or swapped)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


_CORRECTED_EN = re.compile(
    r"^(?:(?:sorry|oops|my bad|no|nope|actually|correction|i meant|i mean)[\s,.!]*)+(?:i meant\s+|i mean\s+)?"
    r"([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)[\s.!?]*$",
    re.IGNORECASE,
)


def extra_deltas(text: str, deltas: list[Delta], lexicon: Any = None) -> list[Delta]:
    """Values of ``text`` that ``deltas`` (perception's) do not have (see the module doc)."""
    out: list[Delta] = []
    m = _CORRECTED_EN.match(text.strip())
    if not deltas and m and m.group(1)[0].isupper():  # "my bad, Marseille": the corrected place
        out.append(Delta("CITY", m.group(1), m.group(1)))
    types = {d.type for d in deltas}
    if "NUM" not in types and (m := _HEADCOUNT.search(text)):
        out.append(Delta("NUM", int(m.group(1)), m.group(0)))
    if "DATE" not in types and (m := _WEEKEND.search(text)):  # "那周末呢": this weekend
        out.append(Delta("DATE", "@this_weekend", m.group(0)))
    if "AMOUNT" not in types and (m := _CURRENCY.search(text)):
        out.append(Delta("AMOUNT", float(m.group(1)), m.group(0)))
    seen = {str(d.value).lower() for d in deltas if d.type == "CITY"}
    cities = tuple(getattr(lexicon, "cities_en", ()) or ())
    taken = " ".join(d.text.lower() for d in deltas)
    for m in _LATIN_WORD.finditer(text):
        w = m.group(0)
        if w.lower() in taken or w.lower() in seen:
            continue
        hit = next((c for c in cities if " " not in c and _close(w.lower(), c.lower())), None)
        if hit is not None:
            out.append(Delta("CITY", hit, w))
            seen.add(hit.lower())
    for d in [*deltas, *out]:
        if d.type != "CITY" or not d.text:
            continue
        at = text.find(d.text)
        m = _COORD_EN.match(text, at + len(d.text)) if at >= 0 else None
        if m and m.group(1).lower() not in seen:
            out.append(Delta("CITY", m.group(1), m.group(1)))
            seen.add(m.group(1).lower())
        b = _COORD_BEFORE_EN.search(text[:at]) if at > 0 else None  # "Helsinki and Stockholm"
        if b and b.group(1).lower() not in seen and b.group(1).lower() not in _NOT_PLACES:
            out.append(Delta("CITY", b.group(1), b.group(1)))
            seen.add(b.group(1).lower())
    return out
