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


ZH_WEEKENDS = ["这周末", "本周末", "下周末", "周末这两天"]
EN_WEEKENDS = ["this weekend", "next weekend"]
ZH_SPANS = ["最近7天", "最近3天", "过去30天", "过去两周", "近10天", "最近15天", "未来3天", "未来一周"]
EN_SPANS = ["the last 7 days", "the past 30 days", "the last 14 days", "the past 3 days", "the next 5 days"]


def weekend_surface(rng: random.Random, lang: str) -> str:
    return rng.choice(ZH_WEEKENDS if lang == "zh" else EN_WEEKENDS)


def span_surface(rng: random.Random, lang: str) -> str:
    """Last / next N days ("最近7天", "the past 30 days")."""
    if lang == "zh":
        n = rng.choice([3, 5, 7, 7, 10, 14, 15, 30])
        return rng.choice(
            [f"最近{n}天", f"过去{n}天", f"近{n}天", f"未来{n}天"]
            if n <= 10
            else [f"最近{n}天", f"过去{n}天"]
        )
    n = rng.choice([3, 5, 7, 7, 10, 14, 30])
    return rng.choice([f"the last {n} days", f"the past {n} days", f"the next {n} days", f"last {n} days"])


def day_surface(rng: random.Random, today: date, lang: str, train: bool = False) -> str:
    """A day; ``train`` rows also draw weekends (``@this_weekend``, one step per day later)."""
    if train and rng.random() < 0.06:
        return rng.choice(ZH_WEEKENDS if lang == "zh" else EN_WEEKENDS)
    if rng.random() < 0.7:
        return rng.choice(ZH_DAYS if lang == "zh" else EN_DAYS)
    return _abs_date(rng, today, lang)


def period_surface(rng: random.Random, today: date, lang: str, train: bool = False) -> str:
    """A period; ``train`` rows also draw weekends and last/next N days."""
    if train and rng.random() < 0.15:
        return rng.choice(ZH_SPANS + ZH_WEEKENDS[:2] if lang == "zh" else EN_SPANS + EN_WEEKENDS)
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


_ZH_NUM = ["零", "一", "两", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]


def range_surface(rng: random.Random, today: date, lang: str, train: bool = False) -> str:
    """A day with a clock range ("明天下午1点到3点", "tomorrow from 9 to 11am"): perception binds
    the day with the start time as one DATE and the range's end as a DUR (minutes)."""
    h = rng.randint(8, 17)
    length = rng.choice([1, 1, 2, 2, 3])
    e = min(h + length, 20)
    half = rng.random() < 0.2
    if lang == "zh":
        day = rng.choice(["今天", "明天", "后天", "明天", "下周一", "周三"])

        def zt(x: int, with_ap: bool) -> str:
            ap = (
                ("上午" if x < 12 else "中午" if x == 12 else "下午" if x < 18 else "晚上") if with_ap else ""
            )
            hh = x if x <= 12 else x - 12
            return f"{ap}{_ZH_NUM[hh] if rng.random() < 0.3 else hh}点"

        start = zt(h, True)
        end = zt(e, (h < 12) != (e < 12) or rng.random() < 0.3) + ("半" if half else "")
        return f"{day}{start}{rng.choice(['到', '至', '-'])}{end}"
    day = rng.choice(["today", "tomorrow", "tomorrow", "on Monday", "the day after tomorrow"])
    ap = "am" if e < 12 else "pm"
    h12 = h if h <= 12 else h - 12
    e12 = e if e <= 12 else e - 12
    if (h < 12) != (e < 12):
        span = f"from {h12}am to {e12}pm" if rng.random() < 0.5 else f"{h12}am-{e12}pm"
    else:
        span = rng.choice([f"from {h12} to {e12}{ap}", f"{h12}-{e12}{ap}", f"between {h12} and {e12}{ap}"])
    return f"{day} {span}" if rng.random() < 0.7 else f"{span} {day}"


def when_surface(rng: random.Random, today: date, lang: str, train: bool = False) -> str:
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
