"""Days, periods and clock times of a request, as plan time values.

:func:`add_datetimes` binds every day or period phrase (``明天``, ``last month``, ``6月18日``,
``next friday``, ``2025-03``) and every clock time (``下午3点``, ``3:30pm``, ``at 3``) of a request
to a span: a time right before or after a day joins it (``@tomorrow T15:00``), a bare time is
today's. Relative days stay symbols (:data:`tao.contracts.plan.TIME_SYMBOL_PATTERN`), so the model
never computes dates; weekdays become absolute dates (they have no symbol). Split out of
:mod:`thought_model.entities`, which calls it with its span set.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Protocol

from thought_model.entities_lexicon import EN_REL_DAY, EN_REL_PERIOD, MONTHS_EN, ZH_REL_DAY, ZH_REL_PERIOD
from thought_model.perception.numbers import ZH_NUM as _ZH_NUM
from thought_model.perception.numbers import num as _num
from thought_model.perception.numbers import zh_number
from thought_model.perception.timespans import TimeRange, evening_before, find_day_periods


class Spans(Protocol):
    """The span set the entities are bound into (first come, first served)."""

    def free(self, a: int, b: int) -> bool: ...
    def add(self, type_: str, a: int, b: int, text: str, value: str | float | int) -> bool: ...


_ISO_DATE = re.compile(r"(?<![0-9])(?P<y>20[0-9]{2})[-/.](?P<m>[01]?[0-9])[-/.](?P<d>[0-3]?[0-9])(?![0-9])")
_ZH_DATE = re.compile(
    rf"(?:(?P<y>20[0-9]{{2}})年)?(?P<m>[01]?[0-9]|{_ZH_NUM})月(?P<d>[0-3]?[0-9]|{_ZH_NUM})[日号]"
)
_MD_DATE = re.compile(
    r"(?<![0-9/.\-:])(?P<m>1[0-2]|0?[1-9])/(?P<d>3[01]|[12][0-9]|0?[1-9])(?![0-9/])(?!\s?(?:小时|hours?|hrs?|of\b))",
    re.I,
)
"""``6/18``: month/day without a year (this year), as ``6月18日``; not a fraction of an hour."""
_ZH_MONTH = re.compile(r"(?P<y>20[0-9]{2})年(?P<m>[01]?[0-9])月(?:份)?")
_YM = re.compile(r"(?<![0-9])(?P<y>20[0-9]{2})-(?P<m>[01][0-9])(?![0-9-])")
_EN_MON = "|".join(sorted(MONTHS_EN, key=len, reverse=True))
_EN_DATE = re.compile(
    rf"(?<![0-9A-Za-z])(?:(?P<m1>{_EN_MON})\.?\s+(?P<d1>[0-3]?[0-9])(?:st|nd|rd|th)?|(?P<d2>[0-3]?[0-9])(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_EN_MON}))"
    r"(?:,?\s+(?P<y>20[0-9]{2}))?(?![0-9])",
    re.I,
)
_EN_MONTH_YEAR = re.compile(rf"(?P<m>{_EN_MON})\s+(?P<y>20[0-9]{{2}})", re.I)
_NOT_MINUTE = "(?:个|人|位|小时|钟头|天|号|楼|层|元|块)"
"""What a number after ``点`` is when it is no minute count (``10点6人``: six people)."""
_ZH_TIME = re.compile(
    rf"(?P<ap>上午|早上|早晨|中午|下午|晚上|傍晚|凌晨)?\s?(?<![0-9])(?P<h>[0-2]?[0-9]|{_ZH_NUM})\s?(?:点|:|：|时)"
    rf"(?:\s?(?P<half>半)|(?P<mi>[0-5]?[0-9]|{_ZH_NUM})(?!\s?{_NOT_MINUTE})\s?分?|\s(?P<mis>[0-5]?[0-9]|{_ZH_NUM})\s?分)?"
    r"(?![0-9])(?!\s?[ap]\.?m)",
    re.I,
)
_EN_TIME = re.compile(
    r"(?<![0-9:])(?P<h>[0-2]?[0-9])(?::(?P<mi>[0-5][0-9]))?\s?(?P<ap>a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|(?<![0-9:])(?P<h2>[0-2]?[0-9]):(?P<mi2>[0-5][0-9])(?![0-9])"
    r"|(?<![A-Za-z])(?:at|@)\s(?P<h3>[0-2]?[0-9])(?:\s?o'?clock)?(?![0-9:a-z%])"
    r"|\bnoon\b",
    re.I,
)


def _hm(h: int, mi: int, ap: str | None) -> tuple[int, int] | None:
    ap = (ap or "").lower().replace(".", "")
    if ap in ("下午", "晚上", "傍晚", "pm") and h < 12:
        h += 12
    if ap in ("中午",) and h < 6:
        h += 12
    if ap in ("am", "凌晨", "上午", "早上", "早晨") and h == 12:
        h = 0
    if not (0 <= h <= 23 and 0 <= mi <= 59):
        return None
    return h, mi


def _find_times(text: str) -> list[tuple[int, int, str]]:
    """Clock times as (start, end, 'HH:MM')."""
    out: list[tuple[int, int, str]] = []
    for m in _ZH_TIME.finditer(text):
        h = zh_number(m.group("h"))
        if h is None:
            continue
        if m.group("half"):
            mi = 30
        elif m.group("mi") or m.group("mis"):
            mi = zh_number(m.group("mi") or m.group("mis")) or 0
        else:
            mi = 0
        if (
            not m.group("ap")
            and text[m.start("h") : m.end()].endswith(("时",))
            and not (m.group("mi") or m.group("mis"))
        ):
            continue
        ap = m.group("ap") or ("晚上" if evening_before(text, m.start()) else None)  # 今晚8点: 20:00
        hm = _hm(h, mi, ap)
        if hm:
            out.append((m.start(), m.end(), f"{hm[0]:02d}:{hm[1]:02d}"))
    for m in _EN_TIME.finditer(text):
        if m.group(0).lower() == "noon":
            out.append((m.start(), m.end(), "12:00"))
            continue
        h = m.group("h") or m.group("h2") or m.group("h3")
        mi = m.group("mi") or m.group("mi2") or "0"
        ap = m.group("ap")
        if m.group("h3") and 1 <= int(h) <= 6:
            ap = "pm"  # "tomorrow at 3 for an hour": office hours, not 03:00
        hm = _hm(int(h), int(mi), ap)
        if hm:
            start = m.start("h3") if m.group("h3") else m.start()
            out.append((start, m.end(), f"{hm[0]:02d}:{hm[1]:02d}"))
    return sorted(out, key=lambda x: (x[0], -(x[1] - x[0])))


def _phrase_patterns(table: dict[str, str]) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """(phrase, its compiled pattern, '@symbol'), longest first: compiled once, not per request."""
    out = []
    for phrase in sorted(table, key=len, reverse=True):
        pat = re.escape(phrase) if not phrase.isascii() else rf"(?<![a-z]){re.escape(phrase)}(?![a-z])"
        if phrase.startswith("下"):
            pat = "(?<!一)" + pat  # 查一下周杰 / 看一下周报: the 下 belongs to 一下
        out.append((phrase, re.compile(pat), "@" + table[phrase]))
    return tuple(out)


# the relative day/period tables and whether they are searched in the lower-cased text
_REL_PHRASES = (
    (_phrase_patterns(ZH_REL_DAY), False),
    (_phrase_patterns(ZH_REL_PERIOD), False),
    (_phrase_patterns(EN_REL_DAY), True),
    (_phrase_patterns(EN_REL_PERIOD), True),
)


def _find_days(text: str, today: date) -> list[tuple[int, int, str]]:
    """Day/period expressions as (start, end, value) where value is '@symbol' or an ISO date/month."""
    out: list[tuple[int, int, str]] = []
    low = text.lower()
    for phrases, lower in _REL_PHRASES:
        src = low if lower else text
        for phrase, rx, value in phrases:
            if phrase in src:  # most phrases are absent: no regex run for them
                out.extend((m.start(), m.end(), value) for m in rx.finditer(src))
    for m in re.finditer(rf"(?P<n>[0-9]{{1,2}}|{_ZH_NUM})\s?天(?P<w>前|以前|之前|后|以后|之后)", text):
        n = zh_number(m.group("n"))
        if n and 0 < n < 100:
            out.append((m.start(), m.end(), f"@days_ago:{n}" if "前" in m.group("w") else f"@in_days:{n}"))
    for m in re.finditer(r"(?<![a-z])(?P<n>[0-9]{1,2}|[a-z]+) days? ago(?![a-z])", low):
        n = _num(m.group("n"))
        if n and 0 < n < 100:
            out.append((m.start(), m.end(), f"@days_ago:{int(n)}"))
    for m in re.finditer(r"(?<![a-z])in (?P<n>[0-9]{1,2}|[a-z]+) days?(?![a-z])(?! ago)", low):
        n = _num(m.group("n"))
        if n and 0 < n < 100:
            out.append((m.start(), m.end(), f"@in_days:{int(n)}"))
    for rx in (_ISO_DATE, _ZH_DATE, _EN_DATE, _MD_DATE):
        for m in rx.finditer(text):
            gd = m.groupdict()
            y = int(gd.get("y") or today.year)
            mon = gd.get("m") or gd.get("m1") or gd.get("m2")
            d = gd.get("d") or gd.get("d1") or gd.get("d2")
            mo = (
                MONTHS_EN.get(mon.lower().rstrip("."))
                if mon and not mon.isdigit() and mon.isascii()
                else (zh_number(mon) if mon else None)
            )
            dd = zh_number(d) if d else None
            if mo and dd:
                try:
                    out.append((m.start(), m.end(), date(y, mo, dd).isoformat()))
                except ValueError:
                    pass
    for m in _ZH_WEEKDAY.finditer(text):
        out.append((m.start(), m.end(), _weekday_date(today, ZH_WEEKDAYS[m.group("d")], m.group("w") or "")))
    for m in _EN_WEEKDAY.finditer(text):
        out.append(
            (
                m.start(),
                m.end(),
                _weekday_date(today, EN_WEEKDAYS[m.group("d").lower()[:3]], (m.group("w") or "").lower()),
            )
        )
    for rx in (_ZH_MONTH, _YM, _EN_MONTH_YEAR):
        for m in rx.finditer(text):
            mon = m.group("m")
            mo = int(mon) if mon.isdigit() else MONTHS_EN.get(mon.lower())
            if mo and 1 <= mo <= 12:
                out.append((m.start(), m.end(), f"{int(m.group('y')):04d}-{mo:02d}"))
    out += find_day_periods(text, today)  # weekends, last/next N days, N号
    return out


ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
EN_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_ZH_WEEKDAY = re.compile(
    r"(?P<w>(?<!一)下个?|这个?|本|上个?)?(?:周|星期|礼拜)(?P<d>[一二三四五六日天])"
)  # 看一下周五: 一下
_EN_WEEKDAY = re.compile(
    r"(?<![A-Za-z])(?:(?P<w>next|this|last|on)\s+)?(?P<d>monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)(?![A-Za-z])",
    re.I,
)


def _weekday_date(today: date, wd: int, which: str) -> str:
    """A weekday phrase as an absolute date (weekdays have no relative symbol): 'next' = the
    following week, 'last' = the previous week, otherwise the coming occurrence."""
    monday = today - timedelta(days=today.weekday())
    if which.startswith(("下", "next")):
        d = monday + timedelta(days=7 + wd)
    elif which.startswith(("上", "last")):
        d = monday + timedelta(days=wd - 7)
    elif which.startswith(("这", "本", "this")):
        d = monday + timedelta(days=wd)
    else:
        d = today + timedelta(days=(wd - today.weekday()) % 7)
    return d.isoformat()


def add_datetimes(text: str, spans: Spans, today: date, ranges: list[TimeRange] | None = None) -> None:
    days = sorted(_find_days(text, today), key=lambda x: (x[0], -(x[1] - x[0])))
    times = _find_times(text)
    # the start of a clock range ("下午1点" of 下午1点到3点, "1" of "from 1 to 3pm") is a time; its
    # end was bound as a duration before, so times inside it are dropped
    gaps: list[tuple[int, int]] = []  # a range's duration part may sit between a time and its day
    starts = {(r.start, r.mid) for r in ranges or ()}
    for r in ranges or ():
        times = [t for t in times if t[1] <= r.start or t[0] >= r.mid]
        times.append((r.start, r.mid, r.time))
        gaps.append((r.dur_start, r.end))
    times.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    used_times: set[int] = set()
    for a, b, v in days:
        if not spans.free(a, b):
            continue
        # a clock time right after the day (allowing a few connector chars) joins it
        for i, (ta, tb, tv) in enumerate(times):
            gap = text[b:ta]
            if (
                i not in used_times
                and 0 <= ta - b <= 6
                and re.fullmatch(r"[\s,，的at@]*", gap, re.I)
                and spans.free(a, tb)
                and _is_daylike(v)
            ):
                used_times.add(i)
                joined = f"{v} T{tv}" if v.startswith("@") else f"{v} {tv}"
                spans.add("DATE", a, tb, text, joined)
                break
            if (
                i not in used_times
                and 0 <= a - tb <= 4
                and spans.free(ta, b)
                and re.fullmatch(r"[\s,，]*(?:on\s*)?", text[tb:a], re.I)
                and _is_daylike(v)
            ):
                used_times.add(i)
                joined = f"{v} T{tv}" if v.startswith("@") else f"{v} {tv}"
                spans.add("DATE", ta, b, text, joined)
                break
            if (
                i not in used_times
                and (ta, tb) in starts
                and 0 <= ta - b <= 10
                and re.fullmatch(r"[\s,，]*(?:from|between)?\s*", text[b:ta], re.I)
                and spans.free(a, tb)
                and _is_daylike(v)
            ):
                used_times.add(i)  # "tomorrow from 1 to 3pm": the range's start joins the day
                joined = f"{v} T{tv}" if v.startswith("@") else f"{v} {tv}"
                spans.add("DATE", a, tb, text, joined)
                break
            rng = next((g for g in gaps if tb <= g[0] and g[1] <= a), None)
            if (
                i not in used_times
                and rng is not None
                and re.fullmatch(r"[\s,，]*(?:on\s*)?", text[tb : rng[0]] + text[rng[1] : a], re.I)
                and spans.free(ta, tb)
                and _is_daylike(v)
            ):
                # "from 1 to 3pm tomorrow": the time and its day are split by the duration; both
                # spans get the joined value (one slot token, written twice)
                used_times.add(i)
                joined = f"{v} T{tv}" if v.startswith("@") else f"{v} {tv}"
                spans.add("DATE", ta, tb, text, joined)
                spans.add("DATE", a, b, text, joined)
                break
        else:
            spans.add("DATE", a, b, text, v)
    for i, (ta, tb, tv) in enumerate(times):
        if i not in used_times:
            spans.add("DATE", ta, tb, text, f"@today T{tv}")


_DAYLIKE = {"today", "tomorrow", "yesterday", "day_after_tomorrow"}


def _is_daylike(v: str) -> bool:
    return (
        v[1:] in _DAYLIKE
        or v.startswith(("@days_ago", "@in_days", "@this_weekend", "@next_weekend"))
        or (len(v) == 10 and v[4] == "-")
    )
