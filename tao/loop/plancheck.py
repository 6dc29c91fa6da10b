"""Plan check before any action: the Rust ``PlanChecker`` when built, else the same rules in Python.

Rules: known tools, unique step ids, dependencies name existing steps with no cycle, every
reference ``${tN.x}`` names a step listed in ``dependencies``, arguments valid against the tool's
argument schema (which accepts references and time symbols). Returns ``(errors, order)``; the
Python rules are also the reference the Rust checker is tested against.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson

from tao.action.argcheck import validate_args
from tao.action.refs import refs_in
from tao.contracts import ErrorType, ThoughtPlan

try:
    from rust_validator import PlanChecker as _RustPlanChecker  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _RustPlanChecker = None


def _py_check(plan: ThoughtPlan, schemas: dict[str, dict[str, Any]]) -> tuple[list[str], list[str]]:
    errors: list[str] = []
    ids = [s.step_id for s in plan.steps]
    if len(set(ids)) != len(ids):
        errors.append("duplicate step_id")
    known = set(ids)
    for s in plan.steps:
        if s.tool not in schemas:
            errors.append(f"{s.step_id}: unknown tool '{s.tool}'")
        for d in s.dependencies:
            if d not in known or d == s.step_id:
                errors.append(f"{s.step_id}: dependency '{d}' is not another step of the plan")
        for ref_step, path in refs_in(s.arguments):
            if ref_step not in s.dependencies:
                errors.append(f"{s.step_id}: reference ${{{ref_step}.{path}}} to a step not in dependencies")
        if s.tool in schemas:
            for e in validate_args(schemas[s.tool], s.arguments):
                errors.append(f"{s.step_id}: {e.message}")
    order: list[str] = []
    deps = {s.step_id: [d for d in s.dependencies if d in known] for s in plan.steps}
    while len(order) < len(deps):
        ready = [k for k, v in deps.items() if k not in order and all(d in order for d in v)]
        if not ready:
            errors.append("dependency cycle among " + ", ".join(sorted(set(deps) - set(order))))
            break
        order.extend(ready)
    return errors, order


@lru_cache(maxsize=32)
def _compiled(schemas_json: bytes) -> Any:
    """Compiling a registry costs tens of milliseconds: one compiled checker per registry."""
    try:
        return _RustPlanChecker(orjson.loads(schemas_json))
    except Exception:  # an unexpected native failure falls back to the Python rules
        return None


class PlanValidator:
    """Checks plans against a registry's argument schemas."""

    def __init__(self, schemas: dict[str, dict[str, Any]], prefer_rust: bool = True) -> None:
        self.schemas = schemas
        self._rust = None
        if prefer_rust and _RustPlanChecker is not None:
            self._rust = _compiled(orjson.dumps(schemas, option=orjson.OPT_SORT_KEYS))
        self.backend = "rust" if self._rust is not None else "python"

    def classify(self, plan: ThoughtPlan) -> tuple[list[str], list[str], ErrorType | None]:
        """(errors, order, error type): TOOL_UNKNOWN when every error is an unknown tool, else
        PLAN_INVALID; None when the plan is valid."""
        errors, order = self.check(plan)
        if not errors:
            return errors, order, None
        unknown = {s.step_id for s in plan.steps if s.tool not in self.schemas}
        only_unknown = bool(unknown) and all(
            "tool" in e and ("unknown" in e or "no tool" in e) for e in errors
        )
        return errors, order, ErrorType.TOOL_UNKNOWN if only_unknown else ErrorType.PLAN_INVALID

    def check(self, plan: ThoughtPlan) -> tuple[list[str], list[str]]:
        if self._rust is None:
            return _py_check(plan, self.schemas)
        try:
            out = self._rust.check(plan.model_dump(mode="json", exclude_none=True))
        except ValueError as exc:
            return [f"plan rejected by the checker: {exc}"], []
        errors = [
            e if isinstance(e, str) else f"{e.get('path', '')}: {e.get('message', e)}".lstrip(": ")
            for e in out.get("errors", [])
        ]
        order = list(out.get("order") or [s.step_id for s in plan.steps])
        return errors, order
