"""Trajectory events: one JSONL line per event, one trace id per request."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class EventKind(str, Enum):
    CONTEXT_BUILT = "context_built"
    MODEL_REQUEST = "model_request"
    MODEL_RESPONSE = "model_response"
    TOOL_START = "tool_start"
    TOOL_END = "tool_end"
    OBSERVATION = "observation"
    CORRECTION = "correction"
    ERROR = "error"
    FINAL = "final"
    # A2A (tao.action.a2a_context): what an agent read of its conversation, and the shared blackboard
    MESSAGE_READ = "message_read"
    BLACKBOARD_READ = "blackboard_read"
    BLACKBOARD_WRITE = "blackboard_write"
    # the planning decision point (tao.loop.intent): the routed tool subset and how the turn plans
    ROUTING = "routing"
    PLANNING_DECISION = "planning_decision"


class TrajectoryEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    trace_id: str
    thought_id: str | None = None
    seq: int = Field(ge=0, description="order of the event within its trace")
    ts: datetime
    kind: EventKind
    step_id: str | None = None
    tool: str | None = None
    duration_ms: float | None = None
    payload: dict[str, Any] = Field(default_factory=dict, description="redacted before it is written")
