"""TAO Runtime observation validator (Rust core, PyO3 bindings).

The native extension is ``rust_validator._native``; this package re-exports its public API:

* :class:`SchemaValidator` — JSON Schema (drafts 4/6/7/2019-09/2020-12, formats, lenient date-time).
* :func:`jsonlogic` — evaluate a JsonLogic rule.
* :class:`ObservationChecker` — the full observation check of a tool result against its contract;
  it returns :class:`Observation`, a lazy dict-like result (a registered ``MutableMapping``).
* :class:`PlanChecker` / :func:`check_plan` — ThoughtPlan checks against a tool registry.
* :func:`check_batch` — many observations in parallel, GIL released; :func:`check_many` — the
  same, as one :class:`ObservationBatch` (every verdict as one list, results built on access).
* :class:`ValidationInputError` (bad documents) and :class:`CompileError` (bad schemas/contracts),
  both subclasses of :class:`ValueError`.

Input convention: ``bytes`` (and ``bytearray``/``memoryview``) are JSON text, parsed once in Rust.
A ``str`` is JSON text wherever a JSON string value makes no sense (contracts, action results,
plans, schemas); for ``SchemaValidator.is_valid``/``errors`` a ``str`` is a string *value* — use
``is_valid_json``/``errors_json`` to pass JSON text as ``str``.
"""

from __future__ import annotations

import threading
from abc import ABCMeta
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any, cast

from rust_validator import _native
from rust_validator._native import (
    THOUGHT_PLAN_SCHEMA,
    CompileError,
    Observation,
    ObservationBatch,
    ObservationChecker,
    PlanChecker,
    SchemaValidator,
    ValidationInputError,
    __version__,
    check_batch,
    check_many,
    jsonlogic,
)

if TYPE_CHECKING:
    from rust_validator._native import PlanReportDict

cast(ABCMeta, MutableMapping).register(Observation)  # typeshed's MutableMapping hides ABCMeta

_reference_lock = threading.Lock()
_reference_checker: PlanChecker | None = None


def reference_plan_checker() -> PlanChecker:
    """A :class:`PlanChecker` for the reference registry (compiled once, cached)."""
    global _reference_checker
    with _reference_lock:
        if _reference_checker is None:
            from tao.domains.reference.registry import reference_tools

            _reference_checker = PlanChecker([t.model_dump(mode="json") for t in reference_tools()])
        return _reference_checker


def check_plan(plan: Any, tools: Any = None) -> PlanReportDict:
    """Check a plan (dict or JSON ``bytes``/``str``) against ``tools``.

    ``tools`` is ``{name: args JSON Schema}``, a list of ToolSpec dicts, a compiled
    :class:`PlanChecker`, or ``None`` for the reference registry. Compiling a registry costs
    milliseconds: keep a :class:`PlanChecker` for repeated checks.
    """
    if tools is None:
        checker = reference_plan_checker()
    elif isinstance(tools, PlanChecker):
        checker = tools
    else:
        checker = PlanChecker(tools)
    return checker.check(plan)


__all__ = [
    "THOUGHT_PLAN_SCHEMA",
    "CompileError",
    "Observation",
    "ObservationBatch",
    "ObservationChecker",
    "PlanChecker",
    "SchemaValidator",
    "ValidationInputError",
    "__version__",
    "check_batch",
    "check_many",
    "check_plan",
    "jsonlogic",
    "reference_plan_checker",
]

if hasattr(_native, "TreeEnsemble"):  # estimator fast path (owned by the estimator component)
    TreeEnsemble = _native.TreeEnsemble
    __all__.append("TreeEnsemble")
