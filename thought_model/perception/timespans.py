"""Time spans for perception: clock ranges, compound durations, weekends, "last/next N days", "N号".

* :func:`find_time_ranges` — ``下午1点到3点``, ``2点到4点``, ``14:00-15:30``, ``from 1 to 3pm``,
  ``1-3pm``, ``between 2 and 4pm``: a start time (``HH:MM``, am/pm carried over from the end when
  the start has none) and a duration in minutes. Perception binds the start (joined with its day)
  as a ``<DATE k>`` and the connector plus end (``到3点``, ``to 3pm``) as a ``<DUR k>``.
* :func:`find_durations` — compound durations the single-unit rule misses: ``an hour and a half``,
  ``two and a half hours``, ``1 hour 30 minutes``, ``1h30``, ``1小时30分钟``, ``两个小时十五分``.
* :func:`find_day_periods` — ``这周末``/``this weekend`` → ``@this_weekend``, ``下周末``/``next
  weekend`` → ``@next_weekend``, ``最近7天``/``last 30 days``/``过去两周`` → ``@last_days:N``,
  ``未来3天``/``next 5 days`` → ``@next_days:N`` (N 1–99), ``15号(那天)``/``the 15th`` → that day of
  the current month if it is today or later, else of the next month (an absolute ISO date, as
  weekdays already are); ``下个月3号`` → the 3rd of next month, ``上个月15号`` → the 15th of last month; bare months (``二月份``, ``in February``) →
  ``YYYY-MM`` (:mod:`thought_model.perception.months`); fixed-date holidays (``五一``, ``劳动节``,
  ``Christmas``) → the nearest such day (:mod:`thought_model.perception.holidays`).

All functions return ``(start, end, ...)`` spans over the (normalized) request text.
"""

# ruff: noqa: RUF001 - full-width punctuation is part of the patterns
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from thought_model.perception.holidays import find_holidays
from thought_model.perception.months import find_bare_months

_ZH_NUM = "[零一二两三四五六七八九十]+"
_ZH_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_EN_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "sixty": 60,
    "ninety": 90,
}
_EN_NUM = "|".join(sorted(_EN_WORDS, key=len, reverse=True))
MAX_DAYS = 99


def number(s: str) -> int | None:
    """'3', '十五', '两', '二十', 'two' → int (None if not a number)."""
    s = s.strip().lower()
    if s.isdigit():
        return int(s)
    if s in _EN_WORDS:
        return _EN_WORDS[s]
    if not s or any(c not in _ZH_DIGITS and c != "十" for c in s):
        return None
    if "十" in s:
        a, _, b = s.partition("十")
        if (a and a not in _ZH_DIGITS) or (b and b not in _ZH_DIGITS):
            return None
        return (_ZH_DIGITS[a] if a else 1) * 10 + (_ZH_DIGITS[b] if b else 0)
    return _ZH_DIGITS[s] if len(s) == 1 else None


# ------------------------------------------------------------------ clock ranges
@dataclass(frozen=True)
class TimeRange:
    """``text[start:mid]`` is the start time, ``text[dur_start:end]`` the connector and end time."""

    start: int
    mid: int
    dur_start: int
    end: int
    time: str  # "HH:MM"
    minutes: int


_AP = "上午|早上|早晨|中午|下午|晚上|傍晚|凌晨"
_H = rf"[0-2]?[0-9]|{_ZH_NUM}"
_ZH_RANGE = re.compile(
    rf"(?<![0-9:：.\-/])(?P<ap1>{_AP})?\s?(?P<h1>{_H})\s?(?P<u1>[点:：时](?:\s?(?P<half1>半)|\s?(?P<m1>[0-5][0-9]|{_ZH_NUM})(?:\s?分)?)?)?"
    rf"(?P<sep>\s?(?:到|至|-|~|～|—|－)\s?)"
    rf"(?P<ap2>{_AP})?\s?(?P<h2>{_H})\s?[点:：时](?:\s?(?P<half2>半)|(?P<m2>[0-5][0-9]|{_ZH_NUM})(?!\s?(?:个|人|位|小时|钟头|天|号|楼|层|元|块))(?:\s?分)?|\s(?P<m2s>[0-5][0-9]|{_ZH_NUM})\s?分)?"
    r"(?![0-9])(?!\s?[ap]\.?m)",
    re.I,
)
_APM = r"a\.?m\.?|p\.?m\.?"
_EN_RANGE = re.compile(
    rf"(?<![0-9:./\-A-Za-z])(?:(?P<pre>from|between)\s+)?(?P<h1>[0-2]?[0-9])(?::(?P<m1>[0-5][0-9]))?(?:\s?(?P<ap1>{_APM}))?"
    r"(?P<sep>\s?(?:-|–|—|~)\s?|\s+(?:to|till|until|and)\s+)"
    rf"(?P<h2>[0-2]?[0-9])(?::(?P<m2>[0-5][0-9]))?(?:\s?(?P<ap2>{_APM}))?(?![0-9:A-Za-z])",
    re.I,
)
_EN_TO_NOON = re.compile(
    rf"(?<![0-9:./\-A-Za-z])(?:(?P<pre>from|between)\s+)?(?P<h1>[0-2]?[0-9])(?::(?P<m1>[0-5][0-9]))?(?:\s?(?P<ap1>{_APM}))?"
    r"(?P<sep>\s?(?:-|–|—|~)\s?|\s+(?:to|till|until|and)\s+)(?:12\s?)?(?P<noon>noon|midday)(?![A-Za-z])",
    re.I,
)
"""``10am to noon``, ``9 till midday``: the end is 12:00."""
_PM_ZH = ("下午", "晚上", "傍晚")


def _zh_minutes(half: str | None, mi: str | None) -> int | None:
    if half:
        return 30
    if mi:
        return number(mi)
    return 0


def _apply(h: int, ap: str) -> int:
    ap = ap.lower().replace(".", "")
    if (ap in _PM_ZH or ap == "pm") and h < 12:
        return h + 12
    if ap == "中午" and h < 6:
        return h + 12
    if ap in ("am", "凌晨", "上午", "早上", "早晨") and h == 12:
        return 0
    return h


def _span(h1: int, m1: int, ap1: str, h2: int, m2: int, ap2: str) -> tuple[int, int] | None:
    """(start minute of day, duration) with am/pm inheritance; None if not a forward range."""
    if not (0 <= h1 <= 24 and 0 <= h2 <= 24 and 0 <= m1 < 60 and 0 <= m2 < 60):
        return None
    e = _apply(h2, ap2) * 60 + m2 if ap2 else None
    if ap1:
        s = _apply(h1, ap1) * 60 + m1
    elif ap2 and e is not None:
        s = _apply(h1, ap2) * 60 + m1
        if s >= e:  # 11 to 1pm: the start keeps its own half of the day
            s = h1 * 60 + m1
    else:
        s = h1 * 60 + m1
    if e is None:
        e = _apply(h2, ap1) * 60 + m2 if ap1 else h2 * 60 + m2
        if ap1 and h2 == 12 and _apply(12, ap1) == 0 and s > 0:
            e = 12 * 60 + m2  # 上午九点到十二点 / 9am to 12: the morning ends at noon, not midnight
        if e <= s and h2 < 12:
            e += 12 * 60  # 下午1点到3点 / 11:00-1:00
    if not (0 <= s < 24 * 60) or not (s < e <= 24 * 60):
        return None
    return s, e - s


_EVENING_DAYS = ("今晚", "明晚", "昨晚")


def evening_before(text: str, pos: int) -> bool:
    """Whether a clock time at ``pos`` follows a day-and-evening word (``今晚8点``: 20:00)."""
    return text[max(0, pos - 2) : pos] in _EVENING_DAYS


def find_time_ranges(text: str) -> list[TimeRange]:
    """Clock ranges in ``text`` (see the module docstring)."""
    out: list[TimeRange] = []
    for m in _ZH_RANGE.finditer(text):
        h1, h2 = number(m.group("h1")), number(m.group("h2"))
        m1 = _zh_minutes(m.group("half1"), m.group("m1"))
        m2 = _zh_minutes(m.group("half2"), m.group("m2") or m.group("m2s"))
        if None in (h1, h2, m1, m2):
            continue
        ap1 = m.group("ap1") or ""
        if not ap1 and not m.group("ap2") and evening_before(text, m.start()):
            ap1 = "晚上"  # 今晚8点到10点
        sp = _span(h1, m1, ap1, h2, m2, m.group("ap2") or "")  # type: ignore[arg-type]
        if sp:
            out.append(_range(m, sp))
    for m in _EN_RANGE.finditer(text):
        sep = m.group("sep").strip().lower()
        if sep == "and" and (m.group("pre") or "").lower() != "between":
            continue
        if not (m.group("ap1") or m.group("ap2") or (m.group("m1") and m.group("m2"))):
            continue  # "from 2 to 4" alone may be people or items
        sp = _span(
            int(m.group("h1")),
            int(m.group("m1") or 0),
            m.group("ap1") or "",
            int(m.group("h2")),
            int(m.group("m2") or 0),
            m.group("ap2") or "",
        )
        if sp:
            out.append(_range(m, sp))
    for m in _EN_TO_NOON.finditer(text):
        ap1 = m.group("ap1") or ""
        if ap1.lower().startswith("p"):
            continue
        sp = _span(int(m.group("h1")), int(m.group("m1") or 0), "am", 12, 0, "pm")
        if sp:
            out.append(_range(m, sp))
    seen: set[tuple[int, int]] = set()
    uniq = [r for r in out if (r.start, r.end) not in seen and not seen.add((r.start, r.end))]  # type: ignore[func-returns-value]
    return sorted(uniq, key=lambda r: r.start)


def _range(m: re.Match[str], sp: tuple[int, int]) -> TimeRange:
    gd = m.groupdict()
    start = m.start("h1")
    if gd.get("ap1") and m.start("ap1") < start:  # 下午1点 (the am/pm word leads in Chinese)
        start = m.start("ap1")
    mid = m.start("sep")
    sep = m.group("sep")
    dur_start = m.start("sep") + (len(sep) - len(sep.lstrip()))
    s, dur = sp
    return TimeRange(start, mid, dur_start, m.end(), f"{s // 60:02d}:{s % 60:02d}", dur)


# ------------------------------------------------------------------ durations
_N = rf"[0-9]+|{_ZH_NUM}|{_EN_NUM}"
_DUR_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            rf"(?<![A-Za-z0-9])(?P<h>{_EN_NUM}|[0-9]+)\s+(?:and\s+a\s+half\s+hours?|hours?\s+and\s+a\s+half)(?![A-Za-z])",
            re.I,
        ),
        "h+30",
    ),
    (
        re.compile(
            rf"(?<![A-Za-z0-9])(?P<h>{_EN_NUM}|[0-9]+)\s+hours?\s+(?:and\s+)?(?P<m>{_EN_NUM}|[0-9]+)\s+(?:minutes?|mins?)(?![A-Za-z])",
            re.I,
        ),
        "h+m",
    ),
    (
        re.compile(r"(?<![A-Za-z0-9.])(?P<h>[0-9]{1,2})h(?P<m>[0-5][0-9])(?:m|mins?)?(?![A-Za-z0-9:])", re.I),
        "h+m",
    ),
    (
        re.compile(
            r"(?<![A-Za-z0-9.])(?P<h>[0-9]{1,2})\s?h(?:rs?|ours?)?\s?(?P<m>[0-5]?[0-9])\s?m(?:ins?|inutes?)?(?![A-Za-z0-9:])",
            re.I,
        ),
        "h+m",
    ),
    (
        re.compile(rf"(?P<h>{_N})\s?个?\s?(?:小时|钟头)\s?零?\s?(?P<m>[0-9]{{1,2}}|{_ZH_NUM})\s?分(?:钟)?"),
        "h+m",
    ),
]


def find_durations(text: str) -> list[tuple[int, int, int]]:
    """Compound durations as (start, end, minutes); see the module docstring."""
    out: list[tuple[int, int, int]] = []
    for rx, kind in _DUR_RULES:
        for m in rx.finditer(text):
            h = number(m.group("h"))
            if h is None:
                continue
            mins = h * 60 + 30 if kind == "h+30" else None
            if kind == "h+m":
                mi = number(m.group("m"))
                if mi is None or mi >= 60:
                    continue
                mins = h * 60 + mi
            if mins and 1 <= mins <= 1440:
                out.append((m.start(), m.end(), mins))
    return sorted(set(out))


# ------------------------------------------------------------------ day periods
_ZH_WEEKEND = re.compile(r"(?P<w>这个|这|本|下个|下一个|下|)周末")
_ZH_BARE_WEEKEND_OK = re.compile(
    r"[\u4e00-\u9fff]{0,4}?(?:天气|下雨|下雪|气温|温度)|的|两天|都|有什么|有啥|有哪些|安排|日程|能|可以|要|去|在|开(?!发票|票)|订(?!单)|约|有空|空闲"
)
"""A bare ``周末`` is a date only before one of these (``周末北京天气``, ``周末的日程``): the word is
also small talk (``周末愉快``, ``用户周末…`` in noisy text)."""
_EN_WEEKEND = re.compile(
    r"(?<![A-Za-z])(?P<w>this|next|the|over the|on the|coming)\s+weekend(?![A-Za-z])", re.I
)
_ZH_LAST = re.compile(
    rf"(?:最近|近|过去|过去的|之前)\s?(?P<n>[0-9]{{1,2}}|{_ZH_NUM})\s?(?P<u>天|日|个?星期|个?礼拜|周|个月)(?:内|以内|之内|里)?"
)
_ZH_NEXT = re.compile(
    rf"(?:未来|接下来|接下来的|之后|往后|今后)\s?(?P<n>[0-9]{{1,2}}|{_ZH_NUM})\s?(?P<u>天|日|个?星期|个?礼拜|周)(?:内|以内|之内|里)?"
)
_EN_LASTNEXT = re.compile(
    rf"(?<![A-Za-z])(?:(?:in|over|for|during|within)\s+)?(?:the\s+)?(?P<w>last|past|previous|next|coming|following)\s+"
    rf"(?P<n>[0-9]{{1,2}}|{_EN_NUM})\s+(?P<u>days?|weeks?)(?![A-Za-z])",
    re.I,
)
_MONTH_PREFIX = r"这个月|本月|当月|下个月|下月|下一个月|上个月|上月|上一个月"
_ZH_DAY_OF_MONTH = re.compile(
    rf"(?<![0-9月年/\-.])(?P<mo>{_MONTH_PREFIX})?(?P<d>[0-3]?[0-9]|{_ZH_NUM})\s?[号](?P<tail>那天|当天|那日)?"
    r"(?![楼线房厅门位机仓码院馆店桌床车座柜箱屋室台包口窗])(?!会议室)"
)
_ZH_DAY_RI = re.compile(
    rf"(?<![0-9月年/\-.])(?P<mo>{_MONTH_PREFIX})?(?P<d>[0-3]?[0-9]|{_ZH_NUM})日(?P<tail>那天|当天)"
)
_EN_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august"
    "|september|october|november|december"
)
_EN_DAY_OF_MONTH = re.compile(
    rf"(?<![A-Za-z])(?:on\s+)?the\s+(?P<d>[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)(?P<next>\s+of\s+next\s+month)?"
    rf"(?!\s+(?:of\s+)?(?:{_EN_MONTHS})(?![a-z]))(?![A-Za-z0-9])",
    re.I,
)


def _units(n: int, u: str) -> int:
    u = u.lower()
    if u.startswith(("week", "周")) or "星期" in u or "礼拜" in u:
        return n * 7
    if u == "个月":
        return n * 30
    return n


def _day_of_month(today: date, d: int, next_month: bool = False) -> date | None:
    """Day ``d`` of this month if it is today or later, else of the next month (or of next month
    when asked); a month without that day is skipped."""
    y, mth = today.year, today.month
    if next_month:
        y, mth = y + (mth == 12), mth % 12 + 1
    for _ in range(3):
        try:
            cand = date(y, mth, d)
        except ValueError:
            cand = None
        if cand is not None and (next_month or cand >= today):
            return cand
        y, mth = y + (mth == 12), mth % 12 + 1
    return None


def find_day_periods(text: str, today: date) -> list[tuple[int, int, str]]:
    """Weekends, last/next N days and days of the month as (start, end, value)."""
    out: list[tuple[int, int, str]] = []
    for m in _ZH_WEEKEND.finditer(text):
        w = m.group("w")
        if m.start() > 0 and text[m.start() - 1] == "上":
            continue  # 上周末: the past weekend has no symbol
        if not w and not _ZH_BARE_WEEKEND_OK.match(text, m.end()):
            continue
        out.append((m.start(), m.end(), "@next_weekend" if w.startswith("下") else "@this_weekend"))
    for m in _EN_WEEKEND.finditer(text):
        w = (m.group("w") or "").lower()
        if text[max(0, m.start() - 5) : m.start()].lower().endswith(("last ", "every ")):
            continue
        out.append((m.start(), m.end(), "@next_weekend" if w == "next" else "@this_weekend"))
    for rx, kind in ((_ZH_LAST, "last_days"), (_ZH_NEXT, "next_days")):
        for m in rx.finditer(text):
            n = number(m.group("n"))
            if n:
                days = _units(n, m.group("u"))
                if 1 <= days <= MAX_DAYS:
                    out.append((m.start(), m.end(), f"@{kind}:{days}"))
    for m in _EN_LASTNEXT.finditer(text):
        n = number(m.group("n"))
        if n:
            days = _units(n, m.group("u"))
            kind = "last_days" if m.group("w").lower() in ("last", "past", "previous") else "next_days"
            if 1 <= days <= MAX_DAYS:
                out.append((m.start(), m.end(), f"@{kind}:{days}"))
    for rx in (_ZH_DAY_OF_MONTH, _ZH_DAY_RI):
        for m in rx.finditer(text):
            d = number(m.group("d"))
            if not d or not 1 <= d <= 31:
                continue
            mo = m.group("mo") or ""
            if not mo and not m.group("tail") and not _day_context(text, m.end()):
                continue
            if mo.startswith("上"):  # 上个月15号: that day of last month (a past expense)
                y, mth = (today.year - 1, 12) if today.month == 1 else (today.year, today.month - 1)
                try:
                    day = date(y, mth, d)
                except ValueError:
                    continue
            else:
                day = _day_of_month(today, d, next_month=mo.startswith("下"))
            if day is not None:
                out.append((m.start(), m.end(), day.isoformat()))
    for m in _EN_DAY_OF_MONTH.finditer(text):
        day = _day_of_month(today, int(m.group("d")), next_month=bool(m.group("next")))
        if day is not None:
            start = m.start()
            out.append((start, m.end(), day.isoformat()))
    out += find_bare_months(text, today)
    out += find_holidays(text, today)
    return sorted(out, key=lambda x: (x[0], -(x[1] - x[0])))


_DAY_CONTEXT = re.compile(
    r"\s?(?:$|[，。,.!！?？;；、\s]|的|上午|下午|晚上|早上|中午|凌晨|[0-9零一二两三四五六七八九十]+\s?[点:：]"
    r"|开|有|都|整天|全天|去|到|前|之前|以前|左右|吗|呢|吧|那|当天|之后|以后|后|起|再|要|会|安排|约|见|订|定|办|出|回|发|交|提交"
    r"|报销|天气|下雨|日程)"
)


def _day_context(text: str, end: int) -> bool:
    """A bare ``N号`` is a day of the month only when what follows reads like a date (``15号下午``,
    ``15号的天气``, ``15号。``), not ``3号会议室`` / ``1号线``."""
    return _DAY_CONTEXT.match(text, end) is not None
