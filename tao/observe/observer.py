"""Observation: check an ActionResult against its tool contract, in Rust only.

The check is ``rust_validator.ObservationChecker`` (one compiled per tool contract, kept in a
bounded LRU; the plan's expectations carry the call's resolved arguments, so they vary per call and
are passed to each check, ``check(..., expected=)``: a compile per call would cost ~35–200 µs on
the loaded 2-core VM);
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

from rust_validator import ObservationChecker, ValidationInputError
from tao.contracts import ActionResult, ErrorType, ObservationResult, ToolSpec

DEFAULT_MAX_CHECKERS = 1024
"""Compiled checkers kept (least recently used dropped first): one per tool contract, each holding
its compiled response schema (a few KB to tens of KB)."""


class Observer:
    """Checks ActionResults with one compiled checker per tool (an LRU of at most
    ``max_checkers``); the plan's expectations go to each check (``check(..., expected=)``), so
    they never cost a compile."""

    backend = "rust"

    def __init__(self, max_checkers: int = DEFAULT_MAX_CHECKERS) -> None:
        self.max_checkers = max(1, max_checkers)
        self._checkers: OrderedDict[str, tuple[ToolSpec, Any]] = OrderedDict()

    def _checker(self, spec: ToolSpec) -> Any:
        held = self._checkers.get(spec.name)
        if held is not None and held[0] is spec:
            self._checkers.move_to_end(spec.name)
            return held[1]
        c = ObservationChecker(spec.model_dump(mode="json"))  # new, or its contract was replaced
        self._checkers[spec.name] = (spec, c)
        self._checkers.move_to_end(spec.name)
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
        doc = result.model_dump(mode="json")
        if expected:  # this call's expectations (checked on the tree path, no compile)
            return self._checker(spec).check(doc, soft=soft, expected=expected)
        return self._checker(spec).check(doc, soft=soft)

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
