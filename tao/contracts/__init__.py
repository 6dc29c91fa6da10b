"""Typed messages between the stages of the loop. JSON Schemas are exported to ``schemas/``."""

from tao.contracts.action import ActionResult, AuditEntry, ErrorInfo, ErrorType, ObservationResult
from tao.contracts.plan import (
    MAX_STEPS,
    PLAN_VERSION,
    REF_PATTERN,
    TIME_SYMBOL_PATTERN,
    TIME_SYMBOLS,
    InsufficientContext,
    PlanOutput,
    PlanStep,
    SessionState,
    ThoughtPlan,
)
from tao.contracts.status import RunStatus, StepStatus, status_error_type
from tao.contracts.tools import CostLevel, Normalization, ObservationRule, Permission, ToolSpec
from tao.contracts.trajectory import EventKind, TrajectoryEvent

__all__ = [
    "MAX_STEPS",
    "PLAN_VERSION",
    "REF_PATTERN",
    "TIME_SYMBOLS",
    "TIME_SYMBOL_PATTERN",
    "ActionResult",
    "AuditEntry",
    "CostLevel",
    "ErrorInfo",
    "ErrorType",
    "EventKind",
    "InsufficientContext",
    "Normalization",
    "ObservationResult",
    "ObservationRule",
    "Permission",
    "PlanOutput",
    "PlanStep",
    "RunStatus",
    "SessionState",
    "StepStatus",
    "ThoughtPlan",
    "ToolSpec",
    "TrajectoryEvent",
    "status_error_type",
]
