"""Argument validation before any call: structured errors naming field, expected and received."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jsonschema_rs
import orjson

from tao.contracts import ErrorInfo, ErrorType


@lru_cache(maxsize=512)
def _validator(schema_json: bytes) -> Any:
    return jsonschema_rs.validator_for(orjson.loads(schema_json))


def _fragment(schema: dict[str, Any], path: list[Any]) -> Any:
    cur: Any = schema
    for p in path:
        try:
            cur = cur[p]
        except (KeyError, IndexError, TypeError):
            return None
    return cur


def describe(schema: Any) -> str:
    """A short human description of what a schema fragment accepts."""
    if not isinstance(schema, dict):
        return str(schema)
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    if "const" in schema:
        return f"exactly {schema['const']!r}"
    if "anyOf" in schema:
        return " or ".join(describe(s) for s in schema["anyOf"])
    parts = [str(schema.get("type", "value"))]
    if "pattern" in schema:
        parts.append(f"matching {schema['pattern']}")
    for k, word in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("maxItems", "max items"),
    ):
        if k in schema:
            parts.append(f"{word} {schema[k]}")
    return " ".join(parts)


def _received(v: Any) -> str:
    text = orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode() if not isinstance(v, str) else repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def validate_args(schema: dict[str, Any], args: Any) -> list[ErrorInfo]:
    """Every contract violation of ``args`` (empty when valid)."""
    if not isinstance(args, dict):
        return [
            ErrorInfo(
                error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                message="arguments must be an object",
                field="",
                expected="object",
                received=_received(args),
            )
        ]
    v = _validator(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS))
    out: list[ErrorInfo] = []
    for e in v.iter_errors(args):
        pointer = "/" + "/".join(str(p) for p in e.instance_path) if e.instance_path else ""
        keyword = e.schema_path[-1] if e.schema_path else ""
        if keyword == "required":
            missing = [r for r in _fragment(schema, list(e.schema_path)) or [] if r not in (e.instance or {})]
            for name in missing or ["?"]:
                prop = (schema.get("properties") or {}).get(name, {})
                out.append(
                    ErrorInfo(
                        error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                        message=f"missing required argument '{name}'",
                        field=f"{pointer}/{name}",
                        expected=describe(prop),
                        received="missing",
                    )
                )
            continue
        if keyword == "additionalProperties":
            allowed = sorted((schema.get("properties") or {}).keys())
            extra = sorted(set(e.instance) - set(allowed)) if isinstance(e.instance, dict) else []
            for name in extra:
                out.append(
                    ErrorInfo(
                        error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                        message=f"unexpected argument '{name}'",
                        field=f"{pointer}/{name}",
                        expected="one of " + ", ".join(allowed),
                        received=name,
                    )
                )
            continue
        frag = _fragment(schema, list(e.schema_path)[:-1])
        out.append(
            ErrorInfo(
                error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                message=f"argument '{pointer.lstrip('/') or '(root)'}' is invalid: {e.message}",
                field=pointer,
                expected=describe(frag),
                received=_received(e.instance),
            )
        )
    return out
