"""Fixed-date holidays as dates (thought_model/perception/holidays.py)."""

from __future__ import annotations

from datetime import date

from thought_model.perception.holidays import find_holidays

APRIL = date(2026, 4, 22)


def values(text: str, today: date = APRIL) -> list[str]:
    return [v for _, _, v in find_holidays(text, today)]


def test_the_coming_holiday_when_it_is_the_nearest() -> None:
    assert values("杭州五一那天天气") == ["2026-05-01"]
    assert values("劳动节那天我有什么日程") == ["2026-05-01"]
    assert values("what's the weather on May Day in Paris") == ["2026-05-01"]
    assert values("国庆节的日程") == ["2026-10-01"]


def test_the_one_just_past_when_it_is_nearer() -> None:
    assert values("元旦那天的订单", date(2026, 6, 10)) == ["2026-01-01"]
    assert values("Christmas", date(2026, 12, 30)) == ["2026-12-25"]
    assert values("Christmas", date(2026, 11, 1)) == ["2026-12-25"]


def test_numbers_are_no_holidays() -> None:
    assert values("十五一共多少") == []
    assert values("5月1日") == []
    assert values("二十五一起") == []
