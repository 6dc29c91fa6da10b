"""Holidays on a fixed day of the Gregorian calendar as dates: ``五一那天``, ``劳动节``, ``国庆节``,
``on Christmas``, ``New Year's Day``.

The day is the occurrence nearest to today (last year's, this year's or next year's; a tie goes to
the coming one): "五一那天的天气" in April is this May 1st, "元旦那天的订单" in June the January 1st
just past. Holidays of the lunar calendar (春节, 中秋) move every year and are left alone, as are
the bare numbers that double as holidays only in context (``十一``, ``六一``).
"""

from __future__ import annotations

import re
from datetime import date

_ZH = {
    "元旦": (1, 1),
    "情人节": (2, 14),
    "妇女节": (3, 8),
    "植树节": (3, 12),
    "愚人节": (4, 1),
    "劳动节": (5, 1),
    "五一": (5, 1),
    "青年节": (5, 4),
    "儿童节": (6, 1),
    "建党节": (7, 1),
    "建军节": (8, 1),
    "教师节": (9, 10),
    "国庆节": (10, 1),
    "国庆": (10, 1),
    "万圣节": (10, 31),
    "双十一": (11, 11),
    "光棍节": (11, 11),
    "双十二": (12, 12),
    "平安夜": (12, 24),
    "圣诞节": (12, 25),
    "圣诞": (12, 25),
}
_EN = {
    "new year's day": (1, 1),
    "new years day": (1, 1),
    "valentine's day": (2, 14),
    "valentines day": (2, 14),
    "april fools' day": (4, 1),
    "april fools day": (4, 1),
    "may day": (5, 1),
    "labour day": (5, 1),
    "halloween": (10, 31),
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "new year's eve": (12, 31),
}
_ZH_RX = re.compile(
    r"(?<![0-9零一二两三四五六七八九十月号])(?:"
    + "|".join(sorted(map(re.escape, _ZH), key=len, reverse=True))
    + r")(?![0-9零一二两三四五六七八九十月号日])"
)
_EN_RX = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, _EN), key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def _nearest(today: date, month: int, day: int) -> date:
    days = [date(today.year + k, month, day) for k in (-1, 0, 1)]
    return min(days, key=lambda d: (abs((d - today).days), d < today))


def find_holidays(text: str, today: date) -> list[tuple[int, int, str]]:
    """Fixed-date holidays as (start, end, ISO date)."""
    out: list[tuple[int, int, str]] = []
    for m in _ZH_RX.finditer(text):
        out.append((m.start(), m.end(), _nearest(today, *_ZH[m.group(0)]).isoformat()))
    for m in _EN_RX.finditer(text):
        out.append((m.start(), m.end(), _nearest(today, *_EN[m.group(0).lower()]).isoformat()))
    return out
