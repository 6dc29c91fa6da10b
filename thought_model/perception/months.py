"""Bare months as periods (issue #14): ``二月份的报销单``, ``2月的订单``, ``orders from February``;
a month of a named year (``去年12月``, ``今年1月份``) is that year's month.

A month named without a year is the most recent such month: this year's when it is the current
month or earlier, else last year's (the list tools read past records). The value is ``YYYY-MM``,
the whole-month period the list tools' ``period`` pattern takes. A Chinese month needs no day after
it (``2月18日`` is a date, found elsewhere and longer); an English month needs a preposition before
it (``in / from / for / during / since / over``) so that the modal "may" is never a month, and no day
number after it.
"""

from __future__ import annotations

import re
from datetime import date

_ZH_MONTH_NUM = {
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
_ZH_BARE_MONTH = re.compile(
    r"(?<![0-9年/\-.一二三四五六七八九十个上下这本])(?P<m>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s?月份?"
    r"(?![0-9一二三四五六七八九十]|[日号底初中末])"
)
_ZH_YEAR_MONTH = re.compile(
    r"(?P<y>去年|今年|前年|明年)的?(?P<m>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s?月份?"
    r"(?![0-9一二三四五六七八九十]|[日号])"
)
"""A month of a named year (``去年12月``, ``今年1月份``): that month, not the whole year."""
_ZH_YEAR_OFFSET = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}
_EN_MONTH_NAMES = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
}
_EN_BARE_MONTH = re.compile(
    r"(?<![A-Za-z])(?:in|from|for|during|since|over)\s+(?:the\s+month\s+of\s+)?(?P<m>"
    + "|".join(_EN_MONTH_NAMES)
    + r")(?![A-Za-z])(?!\s*,?\s*(?:[0-9]|the\s+[0-9]))",
    re.I,
)


def _recent(today: date, month: int) -> str:
    year = today.year if month <= today.month else today.year - 1
    return f"{year:04d}-{month:02d}"


def find_bare_months(text: str, today: date) -> list[tuple[int, int, str]]:
    """Months without a year as (start, end, ``YYYY-MM``) spans (module doc)."""
    out: list[tuple[int, int, str]] = []
    for m in _ZH_YEAR_MONTH.finditer(text):
        g = m.group("m")
        mo = int(g) if g.isdigit() else _ZH_MONTH_NUM.get(g)
        if mo and 1 <= mo <= 12:
            out.append((m.start(), m.end(), f"{today.year + _ZH_YEAR_OFFSET[m.group('y')]:04d}-{mo:02d}"))
    for m in _ZH_BARE_MONTH.finditer(text):
        if any(a <= m.start() < b for a, b, _ in out):
            continue
        g = m.group("m")
        mo = int(g) if g.isdigit() else _ZH_MONTH_NUM.get(g)
        if mo and 1 <= mo <= 12:
            out.append((m.start(), m.end(), _recent(today, mo)))
    for m in _EN_BARE_MONTH.finditer(text):
        mo = _EN_MONTH_NAMES[m.group("m").lower()]
        out.append((m.start("m"), m.end("m"), _recent(today, mo)))
    return out
