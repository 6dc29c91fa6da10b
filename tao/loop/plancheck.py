"""Plan check before any action: ``rust_validator.PlanChecker``, the only implementation.

The loop (:meth:`PlanValidator.classify`) and the server (``POST /v1/plan``,
:meth:`PlanValidator.check`) use this one class, compiled once per registry, so they cannot
disagree (``tests/tao/observe/test_agreement.py``). The rules are the Rust core's
(``rust_validator/src/plan.rs``): the ThoughtPlan schema, unique step ids, dependencies that name
*earlier* steps of the plan (a forward, self or unknown dependency is an error, so is a cycle),
known tools, arguments valid against the tool's argument schema (a step reference stands in for a
run-time value), and every reference ``${tN.x}`` naming a listed dependency. There is no Python
copy (the removed one let a forward dependency pass).

Verdict: no errors → valid; every error ``UNKNOWN_TOOL`` → ``TOOL_UNKNOWN``; else ``PLAN_INVALID``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import orjson

from rust_validator import PlanChecker, ValidationInputError
from tao.contracts import ErrorType, ThoughtPlan, ToolSpec

UNKNOWN_TOOL = "UNKNOWN_TOOL"


@lru_cache(maxsize=32)
def _compiled(schemas_json: bytes) -> Any:
    """Compiling a registry costs tens of milliseconds: one compiled checker per registry."""
    return PlanChecker(orjson.loads(schemas_json))


def _args_schemas(tools: Mapping[str, dict[str, Any]] | Sequence[ToolSpec] | None) -> dict[str, Any]:
    if tools is None:  # a library default: the reference domain (the server passes its own)
        from tao.domains import reference_domain

        tools = reference_domain().tools
    if isinstance(tools, Mapping):
        return dict(tools)
    return {spec.name: spec.args_schema for spec in tools}


class PlanValidator:
    """Checks plans against a registry: ``{tool: args schema}`` or a sequence of ToolSpecs."""

    backend = "rust"

    def __init__(self, tools: Mapping[str, dict[str, Any]] | Sequence[ToolSpec] | None = None) -> None:
        self.schemas = _args_schemas(tools)
        self.tool_names = frozenset(self.schemas)
        self._checker = _compiled(orjson.dumps(self.schemas, option=orjson.OPT_SORT_KEYS))

    def check(self, plan: ThoughtPlan | dict[str, Any]) -> dict[str, Any]:
        """The checker's result ``{"valid", "errors": [{"path", "code", "message"}], "order"}``;
        a document the checker refuses to read is one ``INPUT`` error."""
        doc = plan.model_dump(mode="json", exclude_none=True) if isinstance(plan, ThoughtPlan) else plan
        try:
            return dict(self._checker.check(doc))
        except ValidationInputError as exc:
            return {
                "valid": False,
                "errors": [{"path": "", "code": "INPUT", "message": str(exc)}],
                "order": [],
            }

    def classify(self, plan: ThoughtPlan | dict[str, Any]) -> tuple[list[str], list[str], ErrorType | None]:
        """(error messages, order, error type); the type is None when the plan is valid."""
        out = self.check(plan)
        errors = out.get("errors") or []
        if not errors:
            return [], list(out.get("order") or []), None
        messages = [f"{e['path']}: {e['message']}".lstrip(": ") for e in errors]
        only_unknown = all(e.get("code") == UNKNOWN_TOOL for e in errors)
        return (
            messages,
            list(out.get("order") or []),
            ErrorType.TOOL_UNKNOWN if only_unknown else ErrorType.PLAN_INVALID,
        )
