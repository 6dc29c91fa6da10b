"""Stand-ins shared by the loop-level routing tests (``test_planning_decision``, ``test_routing_rules``):
a scripted plan model that records its calls, the fixed session clock, and event payloads by kind.
The loop fixture built on them (``stack``) is in this folder's conftest."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tao.contracts import EventKind, SessionState
from tao.loop.planner import PlanOutcome, parse_plan

WEATHER_PLAN = {
    "version": "1.0",
    "intent": "weather",
    "steps": [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京"}, "dependencies": []}],
}


class ScriptedPlanner:
    """A plan model stand-in (not a replay: the decision point applies) that records its calls and
    answers its outputs in order (the last one repeats)."""

    name = "scripted"

    def __init__(self, *outputs: Any) -> None:
        self.outputs = list(outputs)
        self.calls: list[dict[str, Any]] = []

    async def plan(self, request: str, session: SessionState, *, tools=None, strict=False, deadline_s=None):
        self.calls.append({"request": request, "tools": tools, "strict": strict})
        out: PlanOutcome = parse_plan(self.outputs[min(len(self.calls), len(self.outputs)) - 1])
        return out


class KnowingPlanner(ScriptedPlanner):
    """Like EnginePlanner, says which tools its checkpoint knows (``None``: every tool)."""

    name = "knowing"

    def __init__(self, known: frozenset[str] | None, *outputs: Any) -> None:
        super().__init__(*outputs)
        self.known_tools = known


def session_at() -> SessionState:
    return SessionState(now=datetime.fromisoformat("2026-11-15T10:00:00+08:00"), user_id="U00000001")


def events_of(rep, kind: EventKind) -> list[dict[str, Any]]:
    return [e.payload for e in rep.events if e.kind is kind]
