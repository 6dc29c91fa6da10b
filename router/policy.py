"""Routing policies: given the request and its estimate, order the candidate models.

The router then skips candidates that do not fit the context or are cooling down; the rest of
the order is the fallback chain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from router.profile import ModelProfile


@dataclass(frozen=True, slots=True)
class RouteContext:
    request: dict[str, Any]
    task_type: str
    input_tokens: float
    output_tokens: float
    profiles: tuple[ModelProfile, ...]  # routable (non-exclusive) profiles
    latency_bound_s: float | None


@runtime_checkable
class Policy(Protocol):
    def order(self, ctx: RouteContext) -> tuple[list[ModelProfile], str]:
        """Candidates best first, and a short human-readable reason."""
        ...


def _cost(p: ModelProfile, ctx: RouteContext) -> float:
    return p.cost_usd(ctx.input_tokens, ctx.output_tokens)


def cheapest_first(ctx: RouteContext) -> list[ModelProfile]:
    return sorted(ctx.profiles, key=lambda p: (_cost(p, ctx), -p.tier, p.name))


def strongest_first(ctx: RouteContext) -> list[ModelProfile]:
    return sorted(ctx.profiles, key=lambda p: (-p.tier, _cost(p, ctx), p.name))


@dataclass(frozen=True)
class DefaultPolicy:
    """Short tool calls → cheap fast model; long planning → strongest; else cheapest that fits
    the context and the latency bound (slower ones stay in the chain as fallbacks)."""

    short_output_tokens: float = 256
    short_input_tokens: float = 2000
    long_output_tokens: float = 1000
    tool_task_types: frozenset[str] = frozenset({"tool_call", "tool"})
    planning_task_types: frozenset[str] = frozenset({"planning", "reasoning", "long_plan"})

    def order(self, ctx: RouteContext) -> tuple[list[ModelProfile], str]:
        has_tools = bool(ctx.request.get("tools") or ctx.request.get("tool_results"))
        if ctx.task_type in self.planning_task_types or ctx.output_tokens >= self.long_output_tokens:
            return strongest_first(ctx), "long planning -> strongest model"
        short = ctx.output_tokens <= self.short_output_tokens and ctx.input_tokens <= self.short_input_tokens
        if ctx.task_type in self.tool_task_types or (has_tools and short):
            fast = [p for p in cheapest_first(ctx) if {"fast", "tool_call"} & set(p.strengths)]
            rest = [p for p in cheapest_first(ctx) if p not in fast]
            return fast + rest, "short tool call -> cheap fast model"
        ranked = cheapest_first(ctx)
        if ctx.latency_bound_s is not None:
            within = [p for p in ranked if p.predict_seconds(ctx.output_tokens) <= ctx.latency_bound_s]
            ranked = within + [p for p in ranked if p not in within]
            return ranked, f"cheapest fitting context and {ctx.latency_bound_s:g}s latency bound"
        return ranked, "cheapest fitting context"


class CheapestPolicy:
    def order(self, ctx: RouteContext) -> tuple[list[ModelProfile], str]:
        return cheapest_first(ctx), "cheapest"


class StrongestPolicy:
    def order(self, ctx: RouteContext) -> tuple[list[ModelProfile], str]:
        return strongest_first(ctx), "strongest"


POLICIES: dict[str, type] = {
    "default": DefaultPolicy,
    "cheapest": CheapestPolicy,
    "strongest": StrongestPolicy,
}
