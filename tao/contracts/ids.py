"""Checksums of real-world identifiers (Chinese resident ID, Luhn card numbers): pure functions.

They sit with the contracts because two layers need them: redaction (``tao.trace.redact`` masks
what passes them) and a domain's mock data (which must generate business ids that do not pass
them, so redaction keeps them readable). A domain may import only the contracts.
"""

from __future__ import annotations

from datetime import date

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def valid_cn_id(s: str) -> bool:
    """True for an 18-character Chinese resident ID with a real birth date and check digit."""
    s = s.upper()
    if len(s) != 18 or not s[:17].isdigit():
        return False
    try:
        date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
    except ValueError:
        return False
    total = sum(int(c) * w for c, w in zip(s[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == s[17]


def luhn_ok(digits: str) -> bool:
    """True when the digit string passes the Luhn check (card numbers)."""
    total, alt = 0, False
    for c in reversed(digits):
        d = int(c)
        if alt:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
        alt = not alt
    return total % 10 == 0
