"""Weekdays and year-less dates resolve against the session's *local* date: near midnight UTC a
session in Asia/Shanghai is already on the next day (issue 16, time zones). Perception
(``thought_model.prompt.prepare_prompt``) and the time symbols (``resolve_symbol``) agree."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from tao.contracts import SessionState
from tao.contracts.timeexpr import resolve_symbol, session_today
from thought_model.prompt import prepare_prompt

# Sunday 2026-12-06 23:30 UTC: Monday 07:30 in Shanghai (a new ISO week), Sunday 15:30 in Los Angeles
SUNDAY_NIGHT_UTC = datetime.fromisoformat("2026-12-06T23:30:00+00:00")


def _session(tz: str, now: datetime = SUNDAY_NIGHT_UTC) -> SessionState:
    return SessionState(now=now, timezone=tz, user_id="U00000001")


@pytest.mark.parametrize(
    ("tz", "today"),
    [
        ("Asia/Shanghai", date(2026, 12, 7)),
        ("America/Los_Angeles", date(2026, 12, 6)),
        ("UTC", date(2026, 12, 6)),
    ],
)
def test_session_today_is_the_zone_date(tz: str, today: date) -> None:
    assert session_today(_session(tz)) == today


def test_naive_clock_is_read_in_the_session_zone() -> None:
    naive = datetime(2026, 12, 6, 23, 30)
    assert session_today(_session("Asia/Shanghai", naive)) == date(2026, 12, 6)


def test_unknown_zone_falls_back_to_the_clock_date() -> None:
    s = SessionState(now=SUNDAY_NIGHT_UTC, timezone="Mars/Olympus")
    assert session_today(s) == date(2026, 12, 6)


def _dates(request: str, session: SessionState) -> list[str]:
    p = prepare_prompt(request, session)
    return [str(e.value) for e in p.perception.entities if str(e.value)[:4].isdigit()]


@pytest.mark.parametrize(
    ("tz", "next_friday", "tomorrow"),
    [
        ("Asia/Shanghai", "2026-12-18", "2026-12-08"),  # Monday 07:30: next week's Friday
        ("America/Los_Angeles", "2026-12-11", "2026-12-07"),  # still Sunday
    ],
)
def test_next_friday_near_midnight_in_two_zones(tz: str, next_friday: str, tomorrow: str) -> None:
    s = _session(tz)
    assert next_friday in _dates("what is the weather in Beijing next Friday", s)
    assert next_friday in _dates("下周五北京天气怎么样", s)
    assert resolve_symbol("@tomorrow", s) == tomorrow  # the symbols already used the zone


def test_shanghai_late_evening_is_not_pushed_a_day() -> None:
    # 15:59 UTC is 23:59 in Shanghai, still Sunday there: "this Friday" stays in the week of Dec 6
    s = _session("Asia/Shanghai", datetime.fromisoformat("2026-12-06T15:59:00+00:00"))
    assert session_today(s) == date(2026, 12, 6)
    assert "2026-12-11" in _dates("weather in Beijing next Friday", s)
