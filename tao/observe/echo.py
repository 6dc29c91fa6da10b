"""What the plan expects a tool to echo: the resolved arguments of a call as the Rust checker's
``expected`` map (``{JSON pointer: [allowed values]}``).

An argument the tool may send back must come back unchanged: a scalar argument ``k`` (string or
number; booleans and objects are not compared) is expected at ``/k`` of ``parsed_data`` and, when
the contract extracts an output named ``k``, at that output's pointer. Each list also holds
``null``, which the checker reads as "absent is fine" (``rust_validator/src/observation.rs``): a
tool that does not echo the value is consistent, one that echoes another value is
``OBSERVATION_INCONSISTENT``. An integral number is listed in both forms (``5`` and ``5.0``)
because JSON values compare by type. This module only *builds* the expectations; the check is
the Rust one (no Python copy).
"""

from __future__ import annotations

from typing import Any

from tao.contracts import ToolSpec


def _allowed(v: Any) -> list[Any] | None:
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        return None
    if isinstance(v, int):
        return [v, float(v), None]
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return [v, int(v), None]
    return [v, None]


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def echo_expectations(spec: ToolSpec, args: dict[str, Any]) -> dict[str, list[Any]]:
    """The ``expected`` map of one call (empty when no argument can be echoed)."""
    out: dict[str, list[Any]] = {}
    for k, v in args.items():
        allowed = _allowed(v)
        if allowed is None:
            continue
        out["/" + _pointer_token(k)] = allowed
        if (p := spec.extract.get(k)) is not None and p not in out:
            out[p] = allowed
    return out
