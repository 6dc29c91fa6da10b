"""Actions (tool results) and observations (checked results)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ErrorType(StrEnum):
    """Error taxonomy shared by the executor, the validator and the self-correction machine.

    The one definition: exported to ``schemas/contract_constants.json``, which ``rust_validator``
    embeds. A ``StrEnum``, so ``str()``/f-strings give the value."""

    TOOL_TIMEOUT = "TOOL_TIMEOUT"
    TOOL_TRANSIENT = "TOOL_TRANSIENT"  # 5xx, connection reset
    TOOL_CLIENT_ERROR = "TOOL_CLIENT_ERROR"  # 4xx
    TOOL_SCHEMA_VIOLATION = "TOOL_SCHEMA_VIOLATION"  # response or arguments break the contract
    TOOL_ARGUMENT_INVALID = "TOOL_ARGUMENT_INVALID"  # caught before any call
    TOOL_MALFORMED_RESPONSE = "TOOL_MALFORMED_RESPONSE"  # body is not parseable
    TOOL_CIRCUIT_OPEN = "TOOL_CIRCUIT_OPEN"
    TOOL_UNKNOWN = "TOOL_UNKNOWN"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RULE_VIOLATION = "RULE_VIOLATION"
    DEPENDENCY_MISSING = "DEPENDENCY_MISSING"
    LLM_OUTPUT_MALFORMED = "LLM_OUTPUT_MALFORMED"
    PLAN_INVALID = "PLAN_INVALID"
    OBSERVATION_INCONSISTENT = "OBSERVATION_INCONSISTENT"
    INSUFFICIENT_CONTEXT = "INSUFFICIENT_CONTEXT"
    LOW_CONFIDENCE = "LOW_CONFIDENCE"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"
    RATE_LIMITED = "RATE_LIMITED"


class ErrorInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error_type: ErrorType
    message: str
    field: str | None = Field(default=None, description="JSON pointer of the offending field, if any")
    expected: str | None = None
    received: str | None = None
    retryable: bool = False


class ActionResult(BaseModel):
    """A normalized tool result (see DESIGN.md, 'Action')."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    step_id: str | None = None
    original_response: str | None = Field(default=None, description="raw body, possibly truncated")
    status_code: int | None = None
    response_time_ms: float = 0.0
    parsed_data: Any = None
    error_info: ErrorInfo | None = None
    attempts: int = 1
    idempotency_key: str | None = None
    from_fallback: str | None = Field(default=None, description="name of the tool this fell back from")
    truncated: str | None = Field(default=None, description="note of what was cut to fit max_result_tokens")


class AuditEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    check: str
    passed: bool
    detail: str = ""


class ObservationResult(BaseModel):
    """Output of the observation validator; confidence: hard 0.6, soft 0.3, consistency 0.1."""

    model_config = ConfigDict(extra="forbid")

    valid: bool
    error_type: ErrorType | None = None
    extracted_data: dict[str, Any] = Field(default_factory=dict)
    confidence_score: float = Field(ge=0.0, le=1.0)
    audit_trail: list[AuditEntry] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
