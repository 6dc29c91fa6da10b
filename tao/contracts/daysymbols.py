"""Multi-day relative time symbols: weekends and "last / next N days".

* ``@this_weekend`` — Saturday and Sunday of the current ISO week (Monday–Sunday; on a Sunday
  that is yesterday and today); ``@next_weekend`` — the weekend a week later;
* ``@last_days:N`` — the N days ending today (today−N+1 … today); ``@next_days:N`` — the N days
  starting today (today … today+N−1); N is 1–99.

A symbol resolves to ``YYYY-MM-DD/YYYY-MM-DD`` for an argument that takes a period, and — for an
argument that takes one date — the plan is expanded into one step per day
(:func:`tao.loop.multiday.expand_multi_day_steps`). ``N号`` / "the 15th" have no symbol: perception
resolves them to an absolute date, as it does weekdays.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

DAY_SYMBOL_ALTS = r"this_weekend|next_weekend|last_days:[1-9][0-9]?|next_days:[1-9][0-9]?"
"""Regex alternatives (no anchors, no ``@``) to join into the time symbol pattern."""
_NAME = re.compile(rf"^(?:{DAY_SYMBOL_ALTS})$")


def is_day_symbol_name(name: str) -> bool:
    return _NAME.match(name) is not None


def day_symbol_range(name: str, today: date) -> tuple[date, date] | None:
    """(first, last) day of a multi-day symbol name (without ``@``), None if it is not one."""
    if not _NAME.match(name):
        return None
    if name.endswith("weekend"):
        sat = today - timedelta(days=today.weekday()) + timedelta(days=5)
        if name == "next_weekend":
            sat += timedelta(days=7)
        return sat, sat + timedelta(days=1)
    kind, _, n = name.partition(":")
    days = int(n)
    if kind == "last_days":
        return today - timedelta(days=days - 1), today
    return today, today + timedelta(days=days - 1)
