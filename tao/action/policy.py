"""Retry and fallback policy: which failures are retried, how often, with what pause, and what a
fallback tool is called with. The executor (retries inside one call, same idempotency key) and the
loop's self-correction (``tao.loop.correction`` / ``tao.loop.steps``: a retry or fallback after the
observation) both read this module; neither has a rule of its own.

Rules (DESIGN.md, 'Action' and 'Self-correction'):

* Only transient failures are retried: a timeout (``TOOL_TIMEOUT``, incl. HTTP 408/504), a 5xx or
  connection reset (``TOOL_TRANSIENT``, incl. HTTP 503), a body that did not parse
  (``TOOL_MALFORMED_RESPONSE``) and ``RATE_LIMITED`` (HTTP 429). A 4xx is the caller's error: it is
  repaired (safely fixable input) or handed to the user, never retried.
* Only idempotent tools are retried by the executor (a non-idempotent call is replayed only by the
  loop, under its idempotency key); at most the contract's ``retry_budget``, capped globally.
* A retry waits a uniform jitter (default 100–500 ms).
* A fallback tool runs when retries are exhausted or the breaker is open; it gets only the
  arguments its own schema declares.
"""

from __future__ import annotations

import random
from typing import Any

from tao.contracts import ErrorType, ToolSpec

RETRYABLE: frozenset[ErrorType] = frozenset(
    {
        ErrorType.TOOL_TIMEOUT,
        ErrorType.TOOL_TRANSIENT,
        ErrorType.TOOL_MALFORMED_RESPONSE,
        ErrorType.RATE_LIMITED,
    }
)
"""Transient failures: retried (then a fallback), and counted by the circuit breaker."""

FALLBACK_ON: frozenset[ErrorType] = RETRYABLE | {ErrorType.TOOL_CIRCUIT_OPEN}
"""Failures after which the executor tries the contract's fallback tool."""

REPAIRABLE: frozenset[ErrorType] = frozenset({ErrorType.TOOL_ARGUMENT_INVALID, ErrorType.TOOL_CLIENT_ERROR})
"""Failures whose input may be safely fixed (numeric strings, trimming, enum case, date separators)."""

DEFAULT_JITTER_S: tuple[float, float] = (0.1, 0.5)


def is_retryable(error_type: ErrorType | None) -> bool:
    return error_type in RETRYABLE


def retry_budget(spec: ToolSpec, cap: int | None = None) -> int:
    """Retries the executor may spend on one call: the contract's budget for idempotent tools
    (none for the others), capped by ``cap``."""
    budget = spec.retry_budget if spec.idempotent else 0
    return budget if cap is None else min(budget, cap)


def jitter(rng: random.Random, bounds: tuple[float, float] = DEFAULT_JITTER_S) -> float:
    """Seconds to wait before a retry."""
    lo, hi = bounds
    return rng.uniform(lo, hi)


def fallback_args(fallback: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments a fallback tool is called with: those its schema declares."""
    props = (fallback.args_schema.get("properties") or {}).keys()
    return {k: v for k, v in args.items() if k in props}
