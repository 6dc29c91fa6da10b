"""The result of one loop run (what ``tao run --json`` prints and ``POST /v1/run`` returns).

Statuses and error types are the contracts' enums (``StrEnum``: they serialize as their values)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from tao.contracts import ErrorType, RunStatus, StepStatus, TrajectoryEvent


@dataclass
class StepRecord:
    step_id: str
    tool: str
    status: StepStatus = StepStatus.PENDING
    error_type: ErrorType | None = None
    message: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)  # as resolved (refs, time symbols)
    extracted: dict[str, Any] = field(default_factory=dict)
    attempts: int = 0
    corrections: list[str] = field(default_factory=list)  # "ERROR_TYPE->action"
    from_fallback: str | None = None
    tool_used: str | None = None
    confidence: float | None = None
    duration_ms: float = 0.0
    deduplicated: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``dataclasses.asdict`` without its recursive deep copy (a tenth of the cost): the
        containers are copied one level, their JSON values shared (a step's arguments and
        extracted values are never mutated once recorded)."""
        out = {f: getattr(self, f) for f in _STEP_FIELDS}
        out["arguments"], out["extracted"] = dict(self.arguments), dict(self.extracted)
        out["corrections"] = list(self.corrections)
        return out


_STEP_FIELDS = tuple(f.name for f in fields(StepRecord))


@dataclass
class RunReport:
    trace_id: str
    thought_id: str | None
    status: RunStatus
    error_type: ErrorType | None
    answer: dict[str, Any]
    stages_ms: dict[str, float]
    steps: list[StepRecord]
    events: Sequence[TrajectoryEvent]  # lazy (tao.trace.trajectory.EventList): built when read
    message: str = ""
    plan: dict[str, Any] | None = None
    required_fields: list[str] = field(default_factory=list)
    planner: str = ""

    def to_dict(self, *, with_events: bool = False) -> dict[str, Any]:
        out = {
            "trace_id": self.trace_id,
            "thought_id": self.thought_id,
            "status": self.status,
            "error_type": self.error_type,
            "answer": self.answer,
            "stages_ms": {k: round(v, 3) for k, v in self.stages_ms.items()},
            "steps": [s.to_dict() for s in self.steps],
            "events": len(self.events),
            "message": self.message,
            "plan": self.plan,
            "required_fields": self.required_fields,
            "planner": self.planner,
        }
        if with_events:
            out["trajectory"] = [e.model_dump(mode="json") for e in self.events]
        return out
