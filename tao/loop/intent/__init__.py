"""Intent routing and the planning decision point (issue 18, items 3 and 4).

:mod:`.router` picks the tool subset a request needs before planning (rules, a small classifier,
a threshold and a fallback branch); :mod:`.decision` decides how to plan (bypass, the direct
single-step path on urgency, the rule-based fallback planner); :mod:`.config` types both and reads
``planner_config.yaml``. The token router (``router/``) is a different thing: it picks an upstream
LLM for a call, this one picks tools for a plan.
"""

from __future__ import annotations

from pathlib import Path

from tao.contracts.domain import Domain
from tao.loop.intent.config import (
    BypassConfig,
    FallbackBranch,
    FallbackPlannerConfig,
    PlanningConfig,
    PlanningConfigError,
    RouterConfig,
    load_planning_config,
)
from tao.loop.intent.router import IntentRouter, RouteBranch, RoutingDecision

MODELS = Path(__file__).with_name("models")
COMBINED_REF = "tao.domains.combined:registry"


def router_for(domain: Domain, config: RouterConfig | None = None) -> IntentRouter:
    """The router of a registry: the combined registry's corpus is its parts' (with the shipped
    fitted model, refit when stale); any other domain's is its own phrasing and examples."""
    from dataclasses import replace

    cfg = config or RouterConfig()
    parts = None
    if domain.name == "combined" or domain.ref in (COMBINED_REF, "tao.domains.combined:domain"):
        from tao.domains.combined import parts as combined_parts

        parts = combined_parts()
        if cfg.model_path is None:
            cfg = replace(cfg, model_path=str(MODELS / "combined_router.npz"))
    return IntentRouter.build(domain, cfg, parts=parts)


__all__ = [
    "BypassConfig",
    "FallbackBranch",
    "FallbackPlannerConfig",
    "IntentRouter",
    "PlanningConfig",
    "PlanningConfigError",
    "RouteBranch",
    "RouterConfig",
    "RoutingDecision",
    "load_planning_config",
    "router_for",
]
