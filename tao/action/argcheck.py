"""Argument validation before any call: structured errors naming field, expected and received.

The validator is the project's compiled ``rust_validator.SchemaValidator`` with its defaults
(formats checked, lenient ``+08:00`` date-times), the same schema engine and options the Rust
plan check applies to a plan's arguments, so a value the plan check accepted is not rejected
here (and the reverse). This module only turns its errors into :class:`ErrorInfo`."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson

from rust_validator import SchemaValidator
from tao.contracts import ErrorInfo, ErrorType


@lru_cache(maxsize=512)
def _validator(schema_json: bytes) -> Any:
    return SchemaValidator(orjson.loads(schema_json))


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]] if pointer else []


def _at(schema: Any, args: Any, pointer: str) -> tuple[Any, Any]:
    """(schema fragment, instance value) at an instance pointer, following properties/items."""
    frag, value = schema, args
    for tok in _tokens(pointer):
        if isinstance(value, dict):
            value = value.get(tok)
        elif isinstance(value, list) and tok.isdigit() and int(tok) < len(value):
            value = value[int(tok)]
        else:
            value = None
        if isinstance(frag, dict) and isinstance(frag.get("properties"), dict) and tok in frag["properties"]:
            frag = frag["properties"][tok]
        elif isinstance(frag, dict) and isinstance(frag.get("items"), dict) and tok.isdigit():
            frag = frag["items"]
        else:
            frag = None
    return frag, value


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
    done: set[tuple[str, str]] = set()  # required/additionalProperties: one pass per object
    try:
        errors = v.errors(args)
    except ValueError as exc:  # ValidationInputError: a value with no JSON form, NaN, too deep
        return [
            ErrorInfo(
                error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                message=f"arguments are not a JSON document: {exc}",
                field=getattr(exc, "pointer", "") or "",
                expected="JSON values",
                received=_received(str(args)),
            )
        ]
    for e in errors:
        pointer, keyword = e["path"], e["keyword"]
        frag, value = _at(schema, args, pointer)
        if keyword in ("required", "additionalProperties"):
            if (pointer, keyword) in done:
                continue
            done.add((pointer, keyword))
            props = (frag or {}).get("properties") or {}
            present = value if isinstance(value, dict) else {}
            if keyword == "required":
                missing = [r for r in (frag or {}).get("required") or [] if r not in present]
                for name in missing or ["?"]:
                    out.append(
                        ErrorInfo(
                            error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                            message=f"missing required argument '{name}'",
                            field=f"{pointer}/{name}",
                            expected=describe(props.get(name, {})),
                            received="missing",
                        )
                    )
            else:
                allowed = sorted(props)
                for name in sorted(set(present) - set(allowed)):
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
        out.append(
            ErrorInfo(
                error_type=ErrorType.TOOL_ARGUMENT_INVALID,
                message=f"argument '{pointer.lstrip('/') or '(root)'}' is invalid: {e['message']}",
                field=pointer,
                expected=describe(frag),
                received=_received(value),
            )
        )
    return out
