"""A month of a named year (去年12月, 今年1月份) and a day of last month (上个月15号)."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive

TODAY = date(2026, 3, 4)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("U98765432去年12月的订单列一下", "2025-12"),
        ("今年1月份已到账的报销", "2026-01"),
        ("前年十二月的发票", "2024-12"),
        ("去年的订单", "@last_year"),  # a year alone stays the year
        ("2月的订单", "2026-02"),
        ("报一下上个月15号的差旅费", "2026-02-15"),
        ("上月3号的午餐", "2026-02-03"),
        ("下个月3号的会", "2026-04-03"),
    ],
)
def test_year_months_and_days_of_last_month(text: str, value: str) -> None:
    p = perceive(text, today=TODAY)
    assert value in p.slots.values(), p.slots


def test_a_missing_day_of_last_month_is_no_date() -> None:
    p = perceive("上个月31号的报销", today=TODAY)  # February has no 31st
    assert "2026-02-31" not in p.slots.values()
    p = perceive("去年12月5日的订单", today=TODAY)  # a full date is found whole elsewhere
    assert list(p.slots.values()).count("2025-12") == 0
