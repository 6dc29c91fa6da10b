"""Surface forms of dates, periods and date-times for synthetic requests (zh and en).

Values are not computed here: the generator runs perception on the surface form, so the value
the plan carries is exactly what perception will produce at inference time.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

ZH_DAYS = [
    "今天",
    "明天",
    "后天",
    "昨天",
    "前天",
    "大后天",
    "今日",
    "明日",
    "3天后",
    "两天后",
    "5天前",
    "三天前",
]
EN_DAYS = [
    "today",
    "tomorrow",
    "yesterday",
    "the day after tomorrow",
    "in 3 days",
    "2 days ago",
    "tmrw",
    "in two days",
    "5 days ago",
]
ZH_PERIODS = [
    "上个月",
    "本月",
    "这个月",
    "上周",
    "这周",
    "本周",
    "去年",
    "今年",
    "上月",
    "上个星期",
    "下周",
    "这星期",
]
EN_PERIODS = [
    "last month",
    "this month",
    "last week",
    "this week",
    "last year",
    "this year",
    "the previous month",
    "past week",
    "next week",
]
_EN_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def _abs_date(rng: random.Random, today: date, lang: str) -> str:
    d = today + timedelta(days=rng.randint(-60, 60))
    if lang == "zh":
        return rng.choice(
            [
                d.isoformat(),
                f"{d.month}月{d.day}日",
                f"{d.month}月{d.day}号",
                f"{d.year}年{d.month}月{d.day}日",
                f"{d.year}/{d.month}/{d.day}",
            ]
        )
    mon = _EN_MONTHS[d.month - 1]
    return rng.choice(
        [d.isoformat(), f"{mon} {d.day}", f"{d.day} {mon}", f"{mon[:3]} {d.day}", f"{mon} {d.day}, {d.year}"]
    )


def day_surface(rng: random.Random, today: date, lang: str) -> str:
    if rng.random() < 0.7:
        return rng.choice(ZH_DAYS if lang == "zh" else EN_DAYS)
    return _abs_date(rng, today, lang)


def period_surface(rng: random.Random, today: date, lang: str) -> str:
    if rng.random() < 0.8:
        return rng.choice(ZH_PERIODS if lang == "zh" else EN_PERIODS)
    m = rng.randint(1, 12)
    y = rng.choice([today.year, today.year - 1])
    return f"{y}年{m}月" if lang == "zh" else f"{_EN_MONTHS[m - 1]} {y}"


def _zh_time(rng: random.Random) -> str:
    h = rng.randint(8, 20)
    half = rng.random() < 0.3
    if h < 12:
        ap = rng.choice(["上午", "早上", ""])
        hh = h
    elif h == 12:
        ap, hh = "中午", 12
    else:
        ap = rng.choice(["下午", "晚上"]) if h >= 18 else "下午"
        hh = h - 12
    if rng.random() < 0.25:
        return f"{h}:{'30' if half else '00'}"
    return f"{ap}{hh}点{'半' if half else ''}"


def _en_time(rng: random.Random) -> str:
    h = rng.randint(8, 20)
    mi = rng.choice(["00", "00", "30", "15"])
    if rng.random() < 0.3:
        return f"{h}:{mi}"
    h12 = h - 12 if h > 12 else h
    ap = "pm" if h >= 12 else "am"
    return f"{h12}{ap}" if mi == "00" and rng.random() < 0.6 else f"{h12}:{mi} {ap}"


def when_surface(rng: random.Random, today: date, lang: str) -> str:
    if lang == "zh":
        day = (
            rng.choice(["今天", "明天", "后天", "明天", "今天"])
            if rng.random() < 0.75
            else _abs_date(rng, today, lang)
        )
        return f"{day}{rng.choice(['', ' ', ''])}{_zh_time(rng)}"
    day = (
        rng.choice(["today", "tomorrow", "tomorrow", "the day after tomorrow"])
        if rng.random() < 0.75
        else _abs_date(rng, today, lang)
    )
    t = _en_time(rng)
    return rng.choice([f"{day} at {t}", f"{t} {day}", f"{day} {t}"])
