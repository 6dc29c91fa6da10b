"""The planning decision point: how a request gets its plan, decided before (and after) planning.

:meth:`DecisionPoint.before` (one per turn, recorded as a ``planning_decision`` event, the routing
decision beside it as a ``routing`` event):

* **bypass**: an input beyond ``bypass.max_input_tokens`` skips planning: a typed answer (failed,
  ``BUDGET_EXHAUSTED``) saying the request is too long to plan;
* **clarify**: the router fell below its threshold with the ``clarify`` fallback: needs_user
  (``INSUFFICIENT_CONTEXT``) naming the closest intents, instead of forcing the nearest one;
* **direct**: an urgency cue ("马上", "right now", "别想太多") and one tool clearly above the
  threshold (leading the second by ``urgency_margin``): a single-step plan from the rule-based
  planner (:mod:`.fallback`) without the plan model; when its required slots miss, it plans normally;
* **plan**: the plan model, with the grammar restricted to the routed subset (or the whole registry
  on the ``general`` fallback / without a router).

:meth:`DecisionPoint.after_failures`: after ``fallback_planner.after_failed_plans`` failed plans the
rule-based planner takes over from the router's single best tool (insufficient_context when a
required slot is missing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.contracts.domain import Domain
from tao.loop.intent.config import FallbackBranch, PlanningConfig
from tao.loop.intent.fallback import perceived, rule_plan
from tao.loop.intent.router import IntentRouter, RoutingDecision


class PlanPath(str, Enum):
    PLAN = "plan"
    BYPASS = "bypass"
    CLARIFY = "clarify"
    DIRECT = "direct"
    FALLBACK_PLANNER = "fallback_planner"
    UNKNOWN_TOOLS = "unknown_tools"
    """Every routed tool is outside the plan model's registry and no rule plan is allowed."""


@dataclass
class PlanningDecision:
    path: PlanPath
    reason: str
    tools: list[str] | None = None
    """The grammar subset for the plan model (None: the whole registry)."""
    tokens: int = 0
    urgency: str | None = None
    plan: ThoughtPlan | InsufficientContext | None = None
    """The rule-based planner's output (direct / fallback_planner paths)."""
    routing: RoutingDecision | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path.value, "reason": self.reason, "tokens": self.tokens}
        if self.tools is not None:
            out["tools"] = list(self.tools)
        if self.urgency:
            out["urgency"] = self.urgency
        if self.plan is not None:
            out["rule_plan"] = self.plan.model_dump(mode="json", exclude_none=True)
        return {**out, **self.extra}


def urgency_cue(text: str, cues: tuple[str, ...]) -> str | None:
    low = text.lower()
    return next((c for c in cues if c.lower() in low), None)


def _without(text: str, cue: str) -> str:
    """The request without its urgency cue (``right now`` is no time anchor for the slots)."""
    import re

    return re.sub(re.escape(cue) + r"[\s,，:：!！]*", "", text, flags=re.IGNORECASE).strip() or text


class DecisionPoint:
    """Routing + bypass + direct path + fallback planner for one registry (see the module doc)."""

    def __init__(
        self, domain: Domain, config: PlanningConfig | None = None, router: IntentRouter | None = None
    ):
        self.domain = domain
        self.config = config or PlanningConfig()
        self.router = router if self.config.routing.enabled else None
        self.registry = domain.registry()

    def route(self, request: str) -> RoutingDecision | None:
        return self.router.route(request) if self.router is not None else None

    def before(
        self, request: str, session: SessionState, known: frozenset[str] | None = None
    ) -> PlanningDecision:
        """``known``: the tools the plan model can plan with (None: all); a routed subset is
        intersected with them (a tool the checkpoint never saw would be TOOL_UNKNOWN)."""
        dec = self._before(request, session)
        if known is None or dec.tools is None or dec.path is not PlanPath.PLAN:
            return dec
        kept = [t for t in dec.tools if t in known]
        dropped = [t for t in dec.tools if t not in known]
        if not dropped:
            return dec
        dec.extra["outside_model"] = dropped
        if kept:
            dec.tools = kept
            dec.reason += f" (intersected with the plan model's tools: {len(dropped)} dropped)"
            return dec
        return self._outside_model(request, session, dec)

    def _outside_model(self, request: str, session: SessionState, dec: PlanningDecision) -> PlanningDecision:
        """Every routed tool is one the plan model does not know: the rule-based planner plans the
        router's best tool (one step, from the perceived slots) when enabled, else a typed failure."""
        routing = dec.routing
        best = routing.best[0] if routing is not None and routing.best is not None else None
        if self.config.fallback_planner.enabled and best is not None and best in self.registry:
            return PlanningDecision(
                PlanPath.FALLBACK_PLANNER,
                f"routed tools outside the plan model's registry: rule-based plan of {best}",
                [best],
                dec.tokens,
                plan=self.rule(request, session, best),
                routing=routing,
                extra=dec.extra,
            )
        return PlanningDecision(
            PlanPath.UNKNOWN_TOOLS,
            "the routed tools (" + ", ".join(dec.tools or ()) + ") are not in the plan model's registry",
            dec.tools,
            dec.tokens,
            routing=routing,
            extra=dec.extra,
        )

    def _before(self, request: str, session: SessionState) -> PlanningDecision:
        from estimator.tokens import approx_tokens

        cfg = self.config
        tokens = approx_tokens(request)
        if cfg.bypass.enabled and tokens > cfg.bypass.max_input_tokens:
            return PlanningDecision(
                PlanPath.BYPASS,
                f"input of {tokens} tokens exceeds the bound {cfg.bypass.max_input_tokens}",
                None,
                tokens,
            )
        routing = self.route(request)
        if routing is not None and not routing.routed:
            if cfg.routing.fallback is FallbackBranch.CLARIFY:
                return PlanningDecision(
                    PlanPath.CLARIFY, "below the routing threshold", None, tokens, routing=routing
                )
            general = [t for t in cfg.routing.general_tools if t in self.registry] or None
            return PlanningDecision(
                PlanPath.PLAN, "general chain (below the routing threshold)", general, tokens, routing=routing
            )
        subset = list(routing.tools) if routing is not None else None
        cue = urgency_cue(request, cfg.bypass.urgency_cues) if cfg.bypass.enabled else None
        if cue and routing is not None and routing.best is not None:
            clear = routing.best[1] >= cfg.routing.threshold and routing.margin() >= cfg.bypass.urgency_margin
            if clear and routing.clauses <= 1 and routing.best[0] in self.registry:
                plan = self.rule(_without(request, cue), session, routing.best[0])
                if isinstance(plan, ThoughtPlan):
                    return PlanningDecision(
                        PlanPath.DIRECT,
                        f"urgency cue {cue!r}, one tool clearly above",
                        subset,
                        tokens,
                        cue,
                        plan,
                        routing,
                    )
                return PlanningDecision(
                    PlanPath.PLAN,
                    f"urgency cue {cue!r} but the direct step lacks slots",
                    subset,
                    tokens,
                    cue,
                    routing=routing,
                )
            reason = f"urgency cue {cue!r} without one clear tool"
            return PlanningDecision(PlanPath.PLAN, reason, subset, tokens, cue, routing=routing)
        reason = "routed subset" if subset is not None else "whole registry"
        return PlanningDecision(PlanPath.PLAN, reason, subset, tokens, routing=routing)

    def after_failures(
        self, request: str, session: SessionState, failed: int, routing: RoutingDecision | None
    ) -> PlanningDecision | None:
        """The fallback planner's decision once ``failed`` plans failed (None: not its turn)."""
        fp = self.config.fallback_planner
        if not fp.enabled or failed < fp.after_failed_plans:
            return None
        if routing is None:
            routing = self.route(request)
        if routing is None or routing.best is None or routing.best[0] not in self.registry:
            return None
        tool = routing.best[0]
        plan = self.rule(request, session, tool)
        return PlanningDecision(
            PlanPath.FALLBACK_PLANNER,
            f"{failed} failed plans: rule-based plan of {tool}",
            [tool],
            plan=plan,
            routing=routing,
        )

    def rule(self, request: str, session: SessionState, tool: str) -> ThoughtPlan | InsufficientContext:
        ents = perceived(request, session, self.domain.lexicon)
        return rule_plan(request, self.registry[tool], session, ents, self.domain.value_words)
