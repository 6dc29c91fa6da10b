"""Observation: check an ActionResult against its tool contract.

Uses the Rust ``rust_validator.ObservationChecker`` (one per tool contract, cached) when the
native module provides it; otherwise a small pure-Python checker with the same output shape
(status code, error info, normalization, response schema, required fields, blacklist, JsonLogic
rules, extraction). :attr:`Observer.backend` says which one is in use.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import jsonschema_rs

from tao.contracts import ActionResult, ErrorType, ObservationResult, ToolSpec

try:  # the validator engineer's native checker
    from rust_validator import ObservationChecker as _RustChecker  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _RustChecker = None


def _pointer_get(data: Any, pointer: str) -> tuple[bool, Any]:
    if pointer in ("", "/"):
        return True, data
    cur = data
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, None
    return True, cur


def _pointer_set(data: Any, pointer: str, value: Any) -> None:
    parts = pointer.lstrip("/").split("/")
    ok, parent = _pointer_get(data, "/" + "/".join(parts[:-1])) if len(parts) > 1 else (True, data)
    if ok and isinstance(parent, dict) and parts[-1] in parent:
        parent[parts[-1]] = value


def jsonlogic(expr: Any, data: Any) -> Any:
    """The JsonLogic subset the contracts use (var, logic, comparison, in)."""
    if not isinstance(expr, dict) or len(expr) != 1:
        return expr
    ((op, args),) = expr.items()
    if op == "var":
        path = args[0] if isinstance(args, list) else args
        cur = data
        for part in str(path).split(".") if path != "" else []:
            cur = (
                cur.get(part)
                if isinstance(cur, dict)
                else (
                    cur[int(part)]
                    if isinstance(cur, list) and part.isdigit() and int(part) < len(cur)
                    else None
                )
            )
        return cur
    vals = [jsonlogic(a, data) for a in (args if isinstance(args, list) else [args])]
    ops = {
        "!": lambda v: not v[0],
        "!!": lambda v: bool(v[0]),
        "==": lambda v: v[0] == v[1],
        "!=": lambda v: v[0] != v[1],
        "===": lambda v: v[0] == v[1],
        "!==": lambda v: v[0] != v[1],
        "<": lambda v: v[0] is not None and v[1] is not None and v[0] < v[1],
        "<=": lambda v: v[0] is not None and v[1] is not None and v[0] <= v[1],
        ">": lambda v: v[0] is not None and v[1] is not None and v[0] > v[1],
        ">=": lambda v: v[0] is not None and v[1] is not None and v[0] >= v[1],
        "and": lambda v: all(v),
        "or": lambda v: any(v),
        "in": lambda v: v[1] is not None and v[0] in v[1],
    }
    if op not in ops:
        raise ValueError(f"unsupported JsonLogic operator {op!r}")
    return ops[op](vals)


_UNIT = re.compile(r"^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*[^0-9\s]*.*$")


class PyObservationChecker:
    """Pure-Python stand-in for ``rust_validator.ObservationChecker`` (same result dict)."""

    def __init__(self, contract: dict[str, Any], *, expected: dict[str, Any] | None = None) -> None:
        self.spec = ToolSpec.model_validate(contract)
        self.expected = expected or {}
        self.schema = (
            jsonschema_rs.validator_for(self.spec.response_schema) if self.spec.response_schema else None
        )

    def check(self, action_result: dict[str, Any]) -> dict[str, Any]:
        spec, trail = self.spec, []
        err = action_result.get("error_info")
        if err:
            et = err.get("error_type")
            trail.append({"check": "error_info", "passed": False, "detail": err.get("message", "")})
            return self._out(False, et, {}, trail)
        code = action_result.get("status_code")
        ok = code in spec.allowed_status_codes
        trail.append({"check": "status_code", "passed": ok, "detail": str(code)})
        if not ok:
            return self._out(False, ErrorType.TOOL_CLIENT_ERROR.value, {}, trail)
        data = action_result.get("parsed_data")
        data = copy.deepcopy(data)
        for ptr in spec.normalization.strip_units:
            found, v = _pointer_get(data, ptr)
            if found and isinstance(v, str) and (m := _UNIT.match(v)):
                _pointer_set(data, ptr, float(m.group(1)))
        for ptr, mapping in spec.normalization.enum_map.items():
            found, v = _pointer_get(data, ptr)
            if found and v in mapping:
                _pointer_set(data, ptr, mapping[v])
        if self.schema is not None:
            errs = [e.message for e in self.schema.iter_errors(data)]
            trail.append({"check": "response_schema", "passed": not errs, "detail": "; ".join(errs[:3])})
            if errs:
                return self._out(False, ErrorType.TOOL_SCHEMA_VIOLATION.value, {}, trail)
        for ptr in spec.required_fields:
            found, v = _pointer_get(data, ptr)
            trail.append({"check": f"required:{ptr}", "passed": found and v is not None, "detail": ""})
            if not found or v is None:
                return self._out(False, ErrorType.TOOL_SCHEMA_VIOLATION.value, {}, trail)
        for ptr, bad in spec.blacklist.items():
            found, v = _pointer_get(data, ptr)
            if found and v in bad:
                trail.append({"check": f"blacklist:{ptr}", "passed": False, "detail": repr(v)})
                return self._out(False, ErrorType.RULE_VIOLATION.value, {}, trail)
        ctx = {"status_code": code, "response_time_ms": action_result.get("response_time_ms"), "data": data}
        for rule in spec.observation_rules:
            passed = bool(jsonlogic(rule.logic, ctx))
            trail.append(
                {"check": f"rule:{rule.name}", "passed": passed, "detail": "" if passed else rule.message}
            )
            if not passed:
                return self._out(False, ErrorType.RULE_VIOLATION.value, {}, trail)
        extracted = {}
        for name, ptr in spec.extract.items():
            found, v = _pointer_get(data, ptr)
            if found:
                extracted[name] = v
        consistent = True
        for name, allowed in self.expected.items():
            if name in extracted and isinstance(allowed, list) and extracted[name] not in allowed:
                consistent = False
                trail.append({"check": f"expected:{name}", "passed": False, "detail": repr(extracted[name])})
        if not consistent:
            return self._out(False, ErrorType.OBSERVATION_INCONSISTENT.value, extracted, trail, 0.6)
        return self._out(True, None, extracted, trail, 0.9 if spec.response_schema else 0.6)

    @staticmethod
    def _out(valid: bool, et: Any, extracted: dict, trail: list, conf: float = 0.0) -> dict[str, Any]:
        return {
            "valid": valid,
            "error_type": et,
            "extracted_data": extracted,
            "confidence_score": conf if valid or et == ErrorType.OBSERVATION_INCONSISTENT.value else 0.0,
            "audit_trail": trail,
            "details": {"backend": "python"},
        }


class Observer:
    """Checks ActionResults per tool, caching one checker per (tool, expectation)."""

    def __init__(self, prefer_rust: bool = True) -> None:
        self.backend = "rust" if (prefer_rust and _RustChecker is not None) else "python"
        self._checkers: dict[tuple[str, str], Any] = {}

    def _checker(self, spec: ToolSpec, expected: dict[str, Any] | None) -> Any:
        key = (spec.name, repr(sorted((expected or {}).items())))
        c = self._checkers.get(key)
        if c is None:
            contract = spec.model_dump(mode="json")
            cls = _RustChecker if self.backend == "rust" else PyObservationChecker
            c = self._checkers[key] = cls(contract, expected=expected) if expected else cls(contract)
        return c

    def observe(
        self, spec: ToolSpec, result: ActionResult, expected: dict[str, Any] | None = None
    ) -> ObservationResult:
        try:
            raw = self._checker(spec, expected).check(result.model_dump(mode="json"))
        except ValueError as exc:  # rust ValidationInputError: a result the checker refuses to read
            return ObservationResult(
                valid=False,
                error_type=ErrorType.TOOL_MALFORMED_RESPONSE,
                confidence_score=0.0,
                details={"reason": str(exc)[:200], "backend": self.backend},
            )
        if raw.get("error_type") is None and not raw.get("valid"):
            raw["error_type"] = ErrorType.TOOL_SCHEMA_VIOLATION.value
        return ObservationResult.model_validate(raw)
