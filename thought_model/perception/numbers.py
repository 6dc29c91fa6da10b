"""Numbers as users write them: digits, Chinese numerals (``十五``, ``两``) and English words.

Shared by the entity rules (amounts, head counts, durations) and the date/time rules.
"""

from __future__ import annotations

from thought_model.entities_lexicon import EN_NUMBERS, ZH_DIGITS

ZH_NUM = "[零一二两三四五六七八九十]+"
"""A Chinese numeral, as a regex fragment."""
NUM = rf"(?:[0-9]+(?:\.[0-9]+)?|{ZH_NUM})"
"""A digit number or a Chinese numeral, as a regex fragment."""

_WORDNUM = {
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
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}


def zh_number(s: str) -> int | None:
    """Parse '3', '十五', '两', '二十' into an int (None if not a number)."""
    if s.isdigit():
        return int(s)
    if not s or any(c not in ZH_DIGITS and c != "十" for c in s):
        return None
    if "十" in s:
        a, _, b = s.partition("十")
        tens = ZH_DIGITS.get(a, 1) if a else 1
        ones = ZH_DIGITS.get(b, 0) if b else 0
        return tens * 10 + ones
    return ZH_DIGITS.get(s)


def num(s: str) -> float | None:
    s = s.strip().lower()
    if s in _WORDNUM:
        return float(_WORDNUM[s])
    if s in EN_NUMBERS:
        return float(EN_NUMBERS[s])
    try:
        return float(s)
    except ValueError:
        n = zh_number(s)
        return float(n) if n is not None else None
