"""PII redaction applied to everything before it is written (trajectory events, spans, logs).

Kinds: email addresses, phone numbers (Chinese mobiles with or without +86, international
``+CC`` numbers), Chinese resident ID numbers (18 characters, valid birth date and ISO 7064
check digit), bank card numbers (13–19 digits, known issuer prefix, Luhn-valid, spaces or dashes
allowed) and API keys / secrets (``sk-…``, ``AKIA…``, ``ghp_…``, ``xox…``, ``AIza…``, JWTs,
``Bearer …``, ``api_key=…``). The checksums keep 18-digit order ids and similar business ids
readable while real identifiers are masked. Each match becomes ``[REDACTED:KIND]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tao.contracts.ids import luhn_ok, valid_cn_id

_CARD_PREFIX = re.compile(r"^(4|5[1-5]|6|3[47]|35)")


def _card_ok(s: str) -> bool:
    digits = re.sub(r"[ -]", "", s)
    return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and luhn_ok(digits)


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    accept: Callable[[str], bool] | None = None
    group: int = 0  # which group is the secret (the rest is kept, e.g. "api_key=")


_RULES: tuple[_Rule, ...] = (
    _Rule("API_KEY", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    _Rule(
        "API_KEY",
        re.compile(
            r"(?<![A-Za-z0-9])(?:sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
            r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}"
            r"|AIza[0-9A-Za-z_-]{35}|(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,})"
        ),
    ),
    _Rule("API_KEY", re.compile(r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]{12,})"), group=2),
    _Rule(
        "API_KEY",
        re.compile(
            r"(?i)((?:api[_-]?key|apikey|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|password|passwd|token)"
            r"[\"']?\s*[:=]\s*[\"']?)([^\s\"',;}{]{6,})"
        ),
        group=2,
    ),
    _Rule("EMAIL", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")),
    _Rule("CN_ID", re.compile(r"(?<![0-9A-Za-z])[1-9][0-9]{16}[0-9Xx](?![0-9A-Za-z])"), valid_cn_id),
    _Rule("BANK_CARD", re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])"), _card_ok),
    _Rule("PHONE", re.compile(r"(?<![0-9])(?:(?:\+|00)86[ -]?)?1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])")),
    _Rule(
        "PHONE",
        re.compile(r"(?<![0-9A-Za-z])\+[1-9][0-9]{0,2}(?:[ -]?\(?[0-9]{1,4}\)?){2,4}(?![0-9])"),
        lambda s: 8 <= sum(c.isdigit() for c in s) <= 15,
    ),
)


# Every rule needs a digit, an '@' or a key-like marker: strings without one skip the rules.
_MAYBE = re.compile(
    r"[0-9@]|(?i:bearer|key|token|secret|passw)|eyJ|sk-|gh[pousr]_|github_pat|xox|AIza|hf_|AKIA|ASIA"
)


def redact_text(text: str) -> str:
    """Mask every PII match in a string."""
    if len(text) < 6 or not _MAYBE.search(text):
        return text
    for rule in _RULES:

        def sub(m: re.Match[str], rule: _Rule = rule) -> str:
            secret = m.group(rule.group)
            if rule.accept is not None and not rule.accept(secret):
                return m.group(0)
            if rule.group:
                return m.group(0)[: m.start(rule.group) - m.start(0)] + f"[REDACTED:{rule.kind}]"
            return f"[REDACTED:{rule.kind}]"

        text = rule.pattern.sub(sub, text)
    return text


def redact(value: Any) -> Any:
    """Redact a JSON-like value: strings masked, dicts and lists walked, other scalars kept."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return value
