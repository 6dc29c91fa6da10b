"""Plan checking for the server: ``rust_validator.PlanChecker`` over the served domain's tools.

While the native checker is not built (fresh checkout before ``make build``), a Python fallback
with the same result shape (``{"valid", "errors": [{"path","code","message"}], "order"}``) checks
tool names, argument schemas (jsonschema-rs) and the dependency DAG; ``backend`` says which ran.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from tao.contracts import ToolSpec

log = logging.getLogger("tao.server.plan")


class _PythonPlanChecker:
    def __init__(self, tools: dict[str, dict]) -> None:
        import jsonschema_rs

        self._validators = {name: jsonschema_rs.validator_for(schema) for name, schema in tools.items()}

    def check(self, plan: dict) -> dict[str, Any]:
        errors: list[dict[str, str]] = []
        seen: list[str] = []
        for i, step in enumerate(plan.get("steps") or []):
            base = f"/steps/{i}"
            sid, tool = step.get("step_id"), step.get("tool")
            if sid in seen:
                errors.append(
                    {"path": f"{base}/step_id", "code": "duplicate_step_id", "message": f"{sid} repeated"}
                )
            for j, dep in enumerate(step.get("dependencies") or []):
                if dep not in seen:
                    errors.append(
                        {
                            "path": f"{base}/dependencies/{j}",
                            "code": "unknown_dependency",
                            "message": f"{dep} is not an earlier step",
                        }
                    )
            v = self._validators.get(tool)
            if v is None:
                errors.append(
                    {"path": f"{base}/tool", "code": "unknown_tool", "message": f"unknown tool {tool!r}"}
                )
            else:
                for err in v.iter_errors(step.get("arguments") or {}):
                    errors.append(
                        {"path": f"{base}/arguments", "code": "argument_invalid", "message": err.message}
                    )
            seen.append(sid)
        return {"valid": not errors, "errors": errors, "order": seen if not errors else None}


class PlanValidator:
    """Compiled once per process; ``check(plan_dict)`` returns the checker's result dict."""

    def __init__(self, specs: Sequence[ToolSpec] | None = None) -> None:
        if specs is None:  # a library default: the reference domain (the server passes its own)
            from tao.domains import reference_domain

            specs = reference_domain().tools
        tools = {spec.name: spec.args_schema for spec in specs}
        self.tool_names = frozenset(tools)
        try:
            from rust_validator import PlanChecker

            self._checker = PlanChecker([spec.model_dump(mode="json") for spec in specs])
            self.backend = "rust"
        except (ImportError, AttributeError):
            log.warning("rust_validator.PlanChecker unavailable; using the Python plan checker")
            self._checker = _PythonPlanChecker(tools)
            self.backend = "python"

    def check(self, plan: dict) -> dict[str, Any]:
        res = self._checker.check(plan)
        return dict(res) if not isinstance(res, dict) else res
