"""Response samples against their tool's contract, with the loop's own observation check.

:func:`sample_problems` is what :func:`tao.domains.samples.check_samples` calls when a domain is
loaded: each sample body becomes an ActionResult (the first allowed status code, no latency) and
goes through ``rust_validator.ObservationChecker`` compiled from the contract — the same checker
:class:`tao.observe.observer.Observer` runs on live results, so a sample that passes here passes
there (no Python copy of the rules). A refused sample gives ``(index, pointer, check, reason)``:
the JSON pointer inside the sample where schema and sample disagree (a missing required property
points at the property itself), the failed check (``schema``, ``required_fields``, ``blacklist``,
``rule:NAME``, ``parse``) and the checker's words.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from rust_validator import CompileError, ObservationChecker, ValidationInputError
from tao.contracts import ToolSpec

_REQUIRED = re.compile(r'^"((?:[^"\\]|\\.)*)" is a required property')
_POINTER = re.compile(r"(/[^\s=,]*)")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _schema_pointer(err: dict[str, Any]) -> str:
    path = str(err.get("path", ""))
    if err.get("keyword") == "required":
        m = _REQUIRED.match(str(err.get("message", "")))
        if m:
            return f"{path}/{_escape(m.group(1))}"
    return path


def _problem(i: int, obs: dict[str, Any]) -> tuple[int, str, str, str]:
    details = obs.get("details") or {}
    failed = [e for e in obs.get("audit_trail", []) if not e.get("passed")]
    first = failed[0] if failed else {"check": str(obs.get("error_type")), "detail": ""}
    check, detail = str(first.get("check", "")), str(first.get("detail", ""))
    if check == "schema" and details.get("schema_errors"):
        err = details["schema_errors"][0]
        return i, _schema_pointer(err), check, str(err.get("message", detail))
    if check in ("required_fields", "blacklist"):
        m = _POINTER.search(detail)
        return i, m.group(1) if m else "", check, detail
    return i, "", check, detail or str(obs.get("error_type"))


def sample_problems(spec: ToolSpec, samples: list[Any]) -> list[tuple[int, str, str, str]]:
    """``(index, pointer, check, reason)`` of every sample ``spec`` refuses, in order. A contract
    the checker cannot compile is one problem at index -1 (check ``contract``)."""
    try:
        checker = ObservationChecker(spec.model_dump(mode="json"))
    except CompileError as exc:
        return [(-1, str(getattr(exc, "location", "")), "contract", str(getattr(exc, "reason", exc)))]
    status = spec.allowed_status_codes[0] if spec.allowed_status_codes else 200
    out: list[tuple[int, str, str, str]] = []
    for i, body in enumerate(samples):
        result = {
            "tool": spec.name,
            "status_code": status,
            "response_time_ms": 0.0,
            "parsed_data": body,
            "original_response": orjson.dumps(body).decode(),
        }
        try:
            obs = checker.check(result).to_dict()
        except ValidationInputError as exc:
            out.append((i, str(getattr(exc, "pointer", "")), "input", str(getattr(exc, "reason", exc))))
            continue
        if not obs["valid"]:
            out.append(_problem(i, dict(obs)))
    return out


__all__ = ["sample_problems"]
