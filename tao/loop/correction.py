"""The self-correction state machine: error type → handler → bounded action.

Detection is rule-based (the executor's and the observation layer's typed errors); each error
type has one handler (DESIGN.md, 'Self-correction'); which types are retried is the shared retry
policy of :mod:`tao.action.policy`:

=========================  ===========================  =======================================
error type                 handler                      actions, in order (each at most once)
=========================  ===========================  =======================================
TOOL_TIMEOUT, TRANSIENT,   retry_then_fallback          retry (same idempotency key, jitter) →
MALFORMED, RATE_LIMITED                                 fallback tool → fail
TOOL_CIRCUIT_OPEN          fallback_or_fail             fallback tool → fail
ARGUMENT_INVALID,          repair_or_ask_user           safe input repair → ask the user
SCHEMA_VIOLATION, 4xx
LLM_OUTPUT_MALFORMED,      replan_strict                re-plan with stricter constraints → fail
PLAN_INVALID, TOOL_UNKNOWN
OBSERVATION_INCONSISTENT,  cross_check_fallback         fallback source → escalate to a human
RULE_VIOLATION
LOW_CONFIDENCE             escalate_human               ask a human (needs_user)
PERMISSION_DENIED          need_approval                stop: needs_approval
INSUFFICIENT_CONTEXT       ask_user                     stop: needs_user with the missing fields
DEPENDENCY_MISSING,        fail                         stop: failed
BUDGET_EXHAUSTED
=========================  ===========================  =======================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from tao.action.argcheck import validate_args
from tao.action.policy import RETRYABLE
from tao.contracts import ErrorType, StepStatus, ToolSpec


class Action(StrEnum):
    RETRY = "retry"
    FALLBACK = "fallback"
    REPAIR = "repair"
    REPLAN = "replan"
    ASK_USER = "ask_user"
    ESCALATE = "escalate"
    NEED_APPROVAL = "need_approval"
    FAIL = "fail"


HANDLERS: dict[ErrorType, str] = {
    **dict.fromkeys(sorted(RETRYABLE), "retry_then_fallback"),  # the retry policy, tao.action.policy
    ErrorType.TOOL_CIRCUIT_OPEN: "fallback_or_fail",
    ErrorType.TOOL_ARGUMENT_INVALID: "repair_or_ask_user",
    ErrorType.TOOL_SCHEMA_VIOLATION: "repair_or_ask_user",
    ErrorType.TOOL_CLIENT_ERROR: "repair_or_ask_user",
    ErrorType.LLM_OUTPUT_MALFORMED: "replan_strict",
    ErrorType.PLAN_INVALID: "replan_strict",
    ErrorType.TOOL_UNKNOWN: "replan_strict",
    ErrorType.OBSERVATION_INCONSISTENT: "cross_check_fallback",
    ErrorType.RULE_VIOLATION: "cross_check_fallback",
    ErrorType.LOW_CONFIDENCE: "escalate_human",
    ErrorType.PERMISSION_DENIED: "need_approval",
    ErrorType.INSUFFICIENT_CONTEXT: "ask_user",
    ErrorType.DEPENDENCY_MISSING: "fail",
    ErrorType.BUDGET_EXHAUSTED: "fail",
}
TERMINAL_STATUS: dict[Action, StepStatus] = {
    Action.ASK_USER: StepStatus.NEEDS_USER,
    Action.ESCALATE: StepStatus.NEEDS_USER,
    Action.NEED_APPROVAL: StepStatus.NEEDS_APPROVAL,
    Action.FAIL: StepStatus.FAILED,
}


@dataclass
class CorrectionBudget:
    retries: int = 1
    fallbacks: int = 1
    repairs: int = 1


@dataclass
class StepCorrector:
    """Per-step state: what has been tried, so every path is bounded."""

    spec: ToolSpec | None
    budget: CorrectionBudget = field(default_factory=CorrectionBudget)
    retries: int = 0
    fallbacks: int = 0
    repairs: int = 0
    history: list[tuple[ErrorType, Action]] = field(default_factory=list)

    def _fallback_ok(self) -> bool:
        return bool(self.spec and self.spec.fallback_tool) and self.fallbacks < self.budget.fallbacks

    def decide(self, error_type: ErrorType) -> Action:
        handler = HANDLERS.get(error_type, "fail")
        action = Action.FAIL
        if handler == "retry_then_fallback":
            if self.retries < self.budget.retries:
                action = Action.RETRY
            elif self._fallback_ok():
                action = Action.FALLBACK
        elif handler == "fallback_or_fail":
            action = Action.FALLBACK if self._fallback_ok() else Action.FAIL
        elif handler == "repair_or_ask_user":
            action = Action.REPAIR if self.repairs < self.budget.repairs else Action.ASK_USER
        elif handler == "replan_strict":
            action = Action.REPLAN
        elif handler == "cross_check_fallback":
            action = Action.FALLBACK if self._fallback_ok() else Action.ESCALATE
        elif handler == "escalate_human":
            action = Action.ESCALATE
        elif handler == "need_approval":
            action = Action.NEED_APPROVAL
        elif handler == "ask_user":
            action = Action.ASK_USER
        if action is Action.RETRY:
            self.retries += 1
        elif action is Action.FALLBACK:
            self.fallbacks += 1
        elif action is Action.REPAIR:
            self.repairs += 1
        self.history.append((error_type, action))
        return action


_DATE_SEP = re.compile(r"^([0-9]{4})[/.年]([0-9]{1,2})[/.月]([0-9]{1,2})日?((?: [0-2][0-9]:[0-5][0-9])?)$")


def _repair_value(value: Any, schema: dict[str, Any]) -> Any:
    """One safe, lossless fix of a value for its schema, or the value unchanged."""
    options = schema.get("anyOf") or [schema]
    for opt in options:
        typ = opt.get("type")
        if isinstance(value, str):
            s = value.strip()
            if typ == "integer" and re.fullmatch(r"-?[0-9]+", s):
                return int(s)
            if typ == "number" and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", s):
                return float(s)
            if "enum" in opt:
                low = {str(e).lower(): e for e in opt["enum"]}
                if s.lower().replace(" ", "_") in low:
                    return low[s.lower().replace(" ", "_")]
            if typ == "string":
                m = _DATE_SEP.match(s)
                if m:
                    y, mo, d, t = m.groups()
                    return f"{y}-{int(mo):02d}-{int(d):02d}{t}"
                if s != value:
                    return s
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and typ == "string":
            return str(value)
        elif isinstance(value, float) and typ == "integer" and value.is_integer():
            return int(value)
    return value


def repair_arguments(spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any] | None:
    """Safely fixed arguments (type coercion of numeric strings, trimming, enum case, date
    separators) when that makes them valid; None when no safe fix exists. Never invents values."""
    props = spec.args_schema.get("properties") or {}
    fixed = {k: _repair_value(v, props.get(k, {})) if k in props else v for k, v in args.items()}
    if fixed == args or validate_args(spec.args_schema, fixed):
        return None
    return fixed
