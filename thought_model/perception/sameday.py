""" "That day" is the day named before it (issue #14).

"what's on my calendar friday, and what's the weather in Hobart that day", "看下我25号的日程，那天
杭州天气怎么样": the second ask's date is the first one's. :func:`same_day_spans` finds the
anaphoric words (``that day / the same day / on that day / 那天 / 当天 / 同一天 / 那一天``) with no
date of their own and gives each the day of the nearest date before it: a day or a day with a time
(the time dropped: "that day" is the day), never a period (a month, a weekend, "last 7 days").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Protocol

_SAME_DAY = re.compile(
    r"(?<![A-Za-z])(?:on\s+)?(?:that|the\s+same)\s+day(?![A-Za-z])|那一?天|当天|同一天|同天", re.I
)
_ISO_DAY = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})(?: [0-2][0-9]:[0-5][0-9])?$")
_DAY_SYMBOLS = ("@today", "@tomorrow", "@day_after_tomorrow", "@yesterday", "@days_ago:", "@in_days:")


class _Span(Protocol):  # what is read of a perceived entity (read-only, so Entity fits)
    @property
    def type(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def value(self) -> object: ...


def _day_of(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    m = _ISO_DAY.match(value)
    if m:
        return m.group(1)
    head = value.split(" T", 1)[0]
    if head.startswith(_DAY_SYMBOLS):
        return head
    return None


def same_day_spans(text: str, spans: Sequence[_Span]) -> list[tuple[int, int, str]]:
    """(start, end, day) for each "that day" of ``text`` after a day among ``spans`` (module doc)."""
    dates = sorted((s for s in spans if s.type == "DATE"), key=lambda s: s.start)
    out: list[tuple[int, int, str]] = []
    for m in _SAME_DAY.finditer(text):
        before = [s for s in dates if s.end <= m.start()]
        if not before:
            continue
        day = _day_of(before[-1].value)
        if day is not None:
            out.append((m.start(), m.end(), day))
    return out


_TIME_ONLY = re.compile(r"^@today T([0-2][0-9]:[0-5][0-9])$")
_TODAY_WORD = re.compile(r"today|tonight|今天|今晚|今早|今日", re.I)
_JOIN = re.compile(
    r"^\s*(?:,|，|、|和|或|或者|以及|and|or|&)?\s*(?:and\s+)?(?:also\s+)?(?:at|@|在)?\s*$", re.I
)


def same_day_times(text: str, spans: Sequence[_Span]) -> list[tuple[int, str]]:
    """(index in ``spans``, new value) for a bare time listed right after a dated time ("tomorrow at
    9am and at 6pm", "明天上午9点和下午6点"): the time is on that day, not today."""
    dates = sorted(((i, s) for i, s in enumerate(spans) if s.type == "DATE"), key=lambda x: x[1].start)
    out: list[tuple[int, str]] = []
    for (_, prev), (i, cur) in itertools.pairwise(dates):
        m = _TIME_ONLY.match(str(cur.value))
        if m is None or _TODAY_WORD.search(text[cur.start : cur.end]):
            continue
        if not _JOIN.match(text[prev.end : cur.start]):
            continue
        day = _day_of(prev.value)
        if day is None or day == "@today":
            continue
        out.append((i, f"{day} {m.group(1)}" if _ISO_DAY.match(day) else f"{day} T{m.group(1)}"))
    return out
