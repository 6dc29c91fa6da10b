"""Relative time symbols resolve deterministically against the session clock and time zone."""

from __future__ import annotations

from datetime import UTC, datetime

import jsonschema_rs
import pytest

from tao.contracts import SessionState
from tao.contracts.timeexpr import TimeSymbolError, resolve_symbol, resolve_times
from tao.domains.reference.registry import reference_registry

S = SessionState(now=datetime(2026, 1, 15, 10, 30), timezone="Asia/Shanghai")


@pytest.mark.parametrize(
    "symbol,expected",
    [
        ("@today", "2026-01-15"),
        ("@yesterday", "2026-01-14"),
        ("@tomorrow", "2026-01-16"),
        ("@day_after_tomorrow", "2026-01-17"),
        ("@now", "2026-01-15 10:30"),
        ("@last_month", "2025-12-01/2025-12-31"),
        ("@this_month", "2026-01-01/2026-01-31"),
        ("@next_month", "2026-02-01/2026-02-28"),
        ("@this_week", "2026-01-12/2026-01-18"),
        ("@last_week", "2026-01-05/2026-01-11"),
        ("@next_week", "2026-01-19/2026-01-25"),
        ("@this_year", "2026-01-01/2026-12-31"),
        ("@last_year", "2025-01-01/2025-12-31"),
        ("@days_ago:20", "2025-12-26"),
        ("@in_days:17", "2026-02-01"),
        ("@tomorrow T15:00", "2026-01-16 15:00"),
        ("@next_week T09:30", "2026-01-19 09:30"),
    ],
)
def test_symbols(symbol: str, expected: str) -> None:
    assert resolve_symbol(symbol, S) == expected


def test_time_zone_decides_the_date() -> None:
    utc_evening = SessionState(now=datetime(2026, 3, 31, 17, 0, tzinfo=UTC), timezone="Asia/Shanghai")
    assert resolve_symbol("@today", utc_evening) == "2026-04-01"  # already April 1st in Shanghai
    assert resolve_symbol("@last_month", utc_evening) == "2026-03-01/2026-03-31"
    ny = utc_evening.model_copy(update={"timezone": "America/New_York"})
    assert resolve_symbol("@today", ny) == "2026-03-31"
    leap = SessionState(now=datetime(2024, 3, 10, 8, 0))
    assert resolve_symbol("@last_month", leap) == "2024-02-01/2024-02-29"


def test_resolution_walks_arguments_and_keeps_other_values() -> None:
    args = {"period": "@last_month", "nested": [{"d": "@tomorrow T15:00"}], "text": "@not_a_symbol", "n": 3}
    assert resolve_times(args, S) == {
        "period": "2025-12-01/2025-12-31",
        "nested": [{"d": "2026-01-16 15:00"}],
        "text": "@not_a_symbol",
        "n": 3,
    }


def test_errors_are_typed() -> None:
    with pytest.raises(TimeSymbolError):
        resolve_symbol("@tomorrow T25:00", S)
    with pytest.raises(TimeSymbolError):
        resolve_symbol("last_month", S)
    with pytest.raises(TimeSymbolError):
        resolve_symbol("@today", SessionState(now=S.now, timezone="Mars/Olympus"))


def test_resolved_forms_match_the_contract_patterns() -> None:
    reg = reference_registry()
    period = jsonschema_rs.validator_for(reg["list_orders"].args_schema)
    date_ = jsonschema_rs.validator_for(reg["list_calendar_events"].args_schema)
    start = jsonschema_rs.validator_for(reg["find_meeting_room"].args_schema)
    for sym in ("@last_month", "@this_week", "@this_year", "@today"):
        assert period.is_valid({"user_id": "U00000001", "period": resolve_symbol(sym, S)})
    for sym in ("@today", "@days_ago:3", "@tomorrow T15:00", "@now"):
        assert date_.is_valid({"date": resolve_symbol(sym, S)})
    assert start.is_valid({"start": resolve_symbol("@tomorrow T15:00", S), "duration_min": 60, "capacity": 4})
    # a range is not a day: the contract rejects it, so the executor reports it instead of guessing
    assert not date_.is_valid({"date": resolve_symbol("@this_week", S)})
