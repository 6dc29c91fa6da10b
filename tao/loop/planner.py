"""Planners: what the loop asks for a plan. The real plan engine, or a replayed plan (no model).

A :class:`Planner` returns a :class:`PlanOutcome` (``output`` xor ``error``). ``strict=True`` is the
re-plan after a malformed or invalid plan: the engine planner then restricts the grammar to the
runtime's registered tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from pydantic import ValidationError

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, SessionState, ThoughtPlan

PlanLike = ThoughtPlan | InsufficientContext | ErrorInfo | dict | str


@dataclass
class PlanOutcome:
    output: ThoughtPlan | InsufficientContext | None = None
    error: ErrorInfo | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    text: str = ""


class Planner(Protocol):
    name: str

    async def plan(
        self,
        request: str,
        session: SessionState,
        *,
        tools: list[str] | None = None,
        strict: bool = False,
        deadline_s: float | None = None,
    ) -> PlanOutcome: ...


def parse_plan(item: PlanLike) -> PlanOutcome:
    """A plan given as a model, dict or JSON text → PlanOutcome (malformed → LLM_OUTPUT_MALFORMED)."""
    if isinstance(item, (ThoughtPlan, InsufficientContext)):
        return PlanOutcome(output=item)
    if isinstance(item, ErrorInfo):
        return PlanOutcome(error=item)
    try:
        if isinstance(item, str):
            import orjson

            item = orjson.loads(item)
        if isinstance(item, dict) and item.get("error") == "insufficient_context":
            return PlanOutcome(output=InsufficientContext.model_validate(item))
        return PlanOutcome(output=ThoughtPlan.model_validate(item))
    except (ValidationError, ValueError) as exc:
        msg = str(exc).splitlines()[0][:200]
        return PlanOutcome(
            error=ErrorInfo(
                error_type=ErrorType.LLM_OUTPUT_MALFORMED,
                message=f"plan does not match the plan schema: {msg}",
            )
        )


class ReplayPlanner:
    """Plan replay: returns given plans in order (the last one repeats). No model involved."""

    name = "replay"

    def __init__(self, plans: PlanLike | Sequence[PlanLike]) -> None:
        # a list/tuple is a sequence of plans; anything else (str and dict included) is one plan
        seq = cast("list[PlanLike]", list(plans) if isinstance(plans, (list, tuple)) else [plans])
        if not seq:
            raise ValueError("ReplayPlanner needs at least one plan")
        self.plans = seq
        self.calls = 0

    async def plan(
        self,
        request: str,
        session: SessionState,
        *,
        tools: list[str] | None = None,
        strict: bool = False,
        deadline_s: float | None = None,
    ) -> PlanOutcome:
        item = self.plans[min(self.calls, len(self.plans) - 1)]
        self.calls += 1
        out = parse_plan(item)
        out.stats = {"replay": True, "strict": strict}
        return out


class EnginePlanner:
    """Adapter for ``thought_model.engine.PlanEngine`` (``agenerate_one(PlanRequest)``)."""

    def __init__(self, engine: Any, name: str | None = None, tools: list[str] | None = None) -> None:
        self.engine = engine
        self.name = name or getattr(engine, "name", "engine")
        self.tools = tools  # a fixed tool subset for the grammar (None: the engine's whole registry)

    @property
    def known_tools(self) -> frozenset[str] | None:
        """The tools the engine's checkpoint can plan with (its codec's domain; None: unknown).
        The loop intersects a routed subset with them: a tool the model never saw is no grammar."""
        codec = getattr(self.engine, "codec", None)
        if codec is None:
            return None
        dom = getattr(codec, "domain", None)
        if dom is None:
            from tao.domains import reference_domain

            dom = reference_domain()  # the codecs' default domain
        names = frozenset(dom.tool_names())
        return names & frozenset(self.tools) if self.tools is not None else names

    async def plan(
        self,
        request: str,
        session: SessionState,
        *,
        tools: list[str] | None = None,
        strict: bool = False,
        deadline_s: float | None = None,
    ) -> PlanOutcome:
        from thought_model.engine import PlanRequest

        subset = self.tools if self.tools is not None else (tools if strict else None)
        req = PlanRequest(text=request, session=session, tools=subset, deadline_s=deadline_s)
        res = await self.engine.agenerate_one(req)
        stats = res.stats.as_dict() if hasattr(res.stats, "as_dict") else dict(res.stats or {})
        return PlanOutcome(output=res.output, error=res.error, stats=stats, text=getattr(res, "text", ""))
