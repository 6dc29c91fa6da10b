"""Resolution of step references (``"${t1.user_id}"``) against earlier steps' outputs.

A reference names an output of an earlier step: first the step's ``extracted_data`` (the tool's
``extract`` map, checked by the observation layer), else a dotted path into its ``parsed_data``
(``${t1.orders.0.order_id}``). A reference that cannot be satisfied raises
:class:`MissingDependency` — the loop reports it as ``DEPENDENCY_MISSING``, never sends a call
with a hole in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tao.contracts.plan import REF_PATTERN

_REF = re.compile(REF_PATTERN)
_MISSING = object()


class MissingDependency(LookupError):
    """A reference whose step or value is not available."""

    def __init__(self, ref: str, reason: str, pointer: str = "") -> None:
        super().__init__(f"{ref}: {reason}")
        self.ref, self.reason, self.pointer = ref, reason, pointer


@dataclass
class StepOutput:
    """What a finished step exposes to later steps."""

    extracted: dict[str, Any] = field(default_factory=dict)
    parsed: Any = None


def is_ref(value: Any) -> bool:
    return isinstance(value, str) and _REF.match(value) is not None


def refs_in(value: Any) -> list[tuple[str, str]]:
    """Every (step_id, path) referenced inside a JSON value."""
    found: list[tuple[str, str]] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            m = _REF.match(v)
            if m:
                found.append((m.group(1), m.group(2)))
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(value)
    return found


def _dotted(data: Any, path: str) -> Any:
    cur = data
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return _MISSING
    return cur


def lookup(outputs: dict[str, StepOutput], step_id: str, path: str) -> Any:
    ref = f"${{{step_id}.{path}}}"
    out = outputs.get(step_id)
    if out is None:
        raise MissingDependency(ref, f"step {step_id} has no output (it failed or did not run)")
    if path in out.extracted and out.extracted[path] is not None:
        return out.extracted[path]
    value = _dotted(out.parsed, path)
    if value is _MISSING or value is None:
        raise MissingDependency(ref, f"step {step_id} produced no value at '{path}'")
    return value


def resolve_refs(value: Any, outputs: dict[str, StepOutput]) -> Any:
    """Replace every reference inside a JSON value; raises :class:`MissingDependency`."""

    def walk(v: Any, pointer: str) -> Any:
        if isinstance(v, str):
            m = _REF.match(v)
            if not m:
                return v
            try:
                return lookup(outputs, m.group(1), m.group(2))
            except MissingDependency as exc:
                exc.pointer = pointer
                raise
        if isinstance(v, dict):
            return {k: walk(x, f"{pointer}/{k}") for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, f"{pointer}/{i}") for i, x in enumerate(v)]
        return v

    return walk(value, "")
