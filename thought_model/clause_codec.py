"""The composer's codec adapter: a clause (or the whole request) is prompted from a perception
that is already done; a plan-only request decodes with the insufficient-context branch masked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from thought_model.engine.base import PlanRequest
from thought_model.entities import ME_SLOT, Perception


@dataclass
class ClauseRequest(PlanRequest):
    """A plan request whose perception is already done (a clause, or the whole request)."""

    perception: Perception | None = None
    plan_only: bool = False  # decode with the insufficient-context branch of the grammar masked


PLAN_ONLY_MARK = "\x00plan-only"
"""Added to a plan-only request's slot set by :class:`ClauseCodec` (the engines key their grammar
cache by (tools, slots) and pass the slots to ``codec.schema``): the schema then has no
insufficient-context branch."""


def plan_only_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its insufficient-context alternative (unchanged if it has no plan one)."""
    opts = schema.get("anyOf")
    if not isinstance(opts, list):
        return schema
    keep = [o for o in opts if "error" not in (o.get("properties") or {})]
    return {**schema, "anyOf": keep} if keep and len(keep) < len(opts) else schema


class ClauseCodec:
    """Wraps an engine codec: a :class:`ClauseRequest` is prompted from its own perception (masked
    text and slots as given); every other request goes to the wrapped codec unchanged."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def prepare(self, request: PlanRequest) -> tuple[str, Any]:
        p = getattr(request, "perception", None)
        if p is None:
            return self.inner.prepare(request)
        from thought_model.prompt import BOS_TOKEN, ME_MARK, NO_USER, PLAN_MARK

        user_known = bool(request.session is not None and request.session.user_id)
        return f"{BOS_TOKEN}{p.masked}{ME_MARK}{ME_SLOT if user_known else NO_USER}{PLAN_MARK}", p

    def schema(self, tools, slots=None):
        if slots is not None and PLAN_ONLY_MARK in slots:
            return plan_only_schema(self.inner.schema(tools, frozenset(slots - {PLAN_ONLY_MARK})))
        return self.inner.schema(tools, slots)

    def slots(self, request, ctx):
        slots = self.inner.slots(request, ctx)
        if getattr(request, "plan_only", False) and slots is not None:
            return frozenset(slots) | {PLAN_ONLY_MARK}
        return slots

    def parse(self, text, request, ctx=None):
        return self.inner.parse(text, request, ctx)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
