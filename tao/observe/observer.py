"""Observation: check an ActionResult against its tool contract, in Rust only.

The check is ``rust_validator.ObservationChecker`` (one compiled per tool contract and plan
expectation, kept in a bounded LRU: expectations carry the call's resolved arguments, so they vary
per call; a compile costs ~35–200 µs on the loaded 2-core VM, a cached check ~2–45 µs);
``POST /v1/observe`` runs the same checker, so the loop and the server cannot disagree
(``tests/tao/observe/test_agreement.py``). There is no Python copy. The loop's expectations come
from :func:`tao.observe.echo.echo_expectations` (each argument the tool may echo).

The rules, as the Rust core implements them (``rust_validator/src/observation.rs``):

* An ``error_info`` the executor already reported is carried over unchanged (its error type).
* Hard checks in order, the first failure naming the error type: status code in
  ``allowed_status_codes`` (else :func:`tao.contracts.status_error_type`: 408/504 →
  ``TOOL_TIMEOUT``, 429 → ``RATE_LIMITED``, other 5xx → ``TOOL_TRANSIENT``, 4xx →
  ``TOOL_CLIENT_ERROR``), latency below 1.5 × ``timeout_ms`` (``TOOL_TIMEOUT``), a body that
  parsed (``TOOL_MALFORMED_RESPONSE``), response schema and required non-null fields
  (``TOOL_SCHEMA_VIOLATION``), blacklist and JsonLogic rules (``RULE_VIOLATION``); then the
  consistency check against the plan's expectations (``OBSERVATION_INCONSISTENT``).
* Confidence (DESIGN.md, 'Observation'): hard 0.6, soft 0.3, consistency 0.1, and 0 after any hard
  failure. When no soft check runs (the loop runs none), the soft weight is left out and the rest
  renormalized: ``(0.6 + 0.1 × consistent) / 0.7``, so a clean observation scores 1.0 and one the
  plan did not foresee 0.857. (The removed Python copy scored a clean result 0.9.) A soft score
  (``observe(..., soft=s)``, see :mod:`tao.observe.soft`) is weighted in by the same checker.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from rust_validator import ObservationChecker, ValidationInputError
from tao.contracts import ActionResult, ErrorType, ObservationResult, ToolSpec

DEFAULT_MAX_CHECKERS = 1024
"""Compiled checkers kept (least recently used dropped first): each holds its contract's compiled
response schema, a few KB to tens of KB."""


class Observer:
    """Checks ActionResults per tool, caching compiled checkers per (tool, expectation) in an LRU
    of at most ``max_checkers`` (the checker without expectations of each tool included)."""

    backend = "rust"

    def __init__(self, max_checkers: int = DEFAULT_MAX_CHECKERS) -> None:
        self.max_checkers = max(1, max_checkers)
        self._checkers: OrderedDict[tuple[str, bytes], Any] = OrderedDict()
        self._specs: dict[str, tuple[ToolSpec, dict[str, Any]]] = {}

    def _spec_json(self, spec: ToolSpec) -> dict[str, Any]:
        held = self._specs.get(spec.name)
        if held is None or held[0] is not spec:
            if held is not None:  # the tool's contract was replaced: its old checkers are stale
                for k in [k for k in self._checkers if k[0] == spec.name]:
                    del self._checkers[k]
            held = self._specs[spec.name] = (spec, spec.model_dump(mode="json"))
        return held[1]

    def _checker(self, spec: ToolSpec, expected: dict[str, Any] | None) -> Any:
        contract = self._spec_json(spec)
        exp = orjson.dumps(expected, option=orjson.OPT_SORT_KEYS) if expected else b""
        key = (spec.name, exp)
        c = self._checkers.get(key)
        if c is not None:
            self._checkers.move_to_end(key)
            return c
        c = ObservationChecker(contract, expected=expected or None)
        self._checkers[key] = c
        while len(self._checkers) > self.max_checkers:
            self._checkers.popitem(last=False)
        return c

    def check(
        self,
        spec: ToolSpec,
        result: ActionResult,
        expected: dict[str, Any] | None = None,
        *,
        soft: float | None = None,
    ) -> Any:
        """The checker's raw result (what ``POST /v1/observe`` answers); ``soft`` is a soft-check
        score in [0, 1] weighted in by the checker. Raises ``ValidationInputError`` for a result
        the checker refuses to read."""
        return self._checker(spec, expected).check(result.model_dump(mode="json"), soft=soft)

    def observe(
        self,
        spec: ToolSpec,
        result: ActionResult,
        expected: dict[str, Any] | None = None,
        *,
        soft: float | None = None,
    ) -> ObservationResult:
        try:
            raw = self.check(spec, result, expected, soft=soft)
        except ValidationInputError as exc:  # a result the checker refuses to read
            return ObservationResult(
                valid=False,
                error_type=ErrorType.TOOL_MALFORMED_RESPONSE,
                confidence_score=0.0,
                details={"reason": str(exc)[:200], "backend": self.backend},
            )
        return ObservationResult.model_validate(dict(raw))
