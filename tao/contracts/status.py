"""Status values of a step and of a run, and the constants Rust shares with Python.

Python is the source of truth: :class:`~tao.contracts.action.ErrorType`, :class:`StepStatus`,
:class:`RunStatus`, :data:`~tao.contracts.plan.REF_PATTERN` and the HTTP status → error type
rule are defined here (or beside here) once and exported by ``tao schemas`` to
``schemas/contract_constants.json``, which ``rust_validator`` embeds with ``include_str!``
(``src/error.rs``; its unit tests fail when the Rust enum or mapping drifts from the file, and the
Python drift test fails when the file drifts from these definitions).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from tao.contracts.action import ErrorType
from tao.contracts.plan import REF_PATTERN


class StepStatus(StrEnum):
    """Where one plan step ended (``pending`` only while it runs)."""

    PENDING = "pending"
    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"
    NEEDS_USER = "needs_user"
    NEEDS_APPROVAL = "needs_approval"


class RunStatus(StrEnum):
    """Where a whole run ended (``RunReport.status``, ``POST /v1/run``)."""

    SUCCESS = "success"
    FAILED = "failed"
    NEEDS_USER = "needs_user"
    NEEDS_APPROVAL = "needs_approval"


def status_error_type(code: int) -> ErrorType:
    """The error type a disallowed HTTP status means (DESIGN.md, 'Action': only transient
    failures are retried): 408/504 time out, 429 is rate-limited, other 5xx are transient, other
    4xx are the caller's error, anything else (a 2xx/3xx the contract does not allow) breaks the
    contract. The same table is embedded in Rust (``observation::status_error``)."""
    if code in (408, 504):
        return ErrorType.TOOL_TIMEOUT
    if code == 429:
        return ErrorType.RATE_LIMITED
    if 500 <= code <= 599:
        return ErrorType.TOOL_TRANSIENT
    if 400 <= code <= 499:
        return ErrorType.TOOL_CLIENT_ERROR
    return ErrorType.TOOL_SCHEMA_VIOLATION


#: Status codes whose meaning :func:`status_error_type` spells out (exported as examples for the
#: Rust agreement test; every other code follows its class).
STATUS_EXAMPLES = (200, 204, 301, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504, 599)


def shared_constants() -> dict[str, Any]:
    """What ``schemas/contract_constants.json`` holds."""
    return {
        "error_types": [e.value for e in ErrorType],
        "step_statuses": [s.value for s in StepStatus],
        "run_statuses": [s.value for s in RunStatus],
        "ref_pattern": REF_PATTERN,
        "status_error_types": {str(c): status_error_type(c).value for c in STATUS_EXAMPLES},
    }
