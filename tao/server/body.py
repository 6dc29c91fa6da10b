"""The one input policy for JSON request bodies (every JSON endpoint parses through here).

* not UTF-8 -> 400 ``invalid_utf8``; not JSON -> 400 ``malformed_json``; a key twice in one
  object -> 400 ``duplicate_key`` (never a silent last-wins); nesting over the parser's bound ->
  400 ``malformed_json`` — each with ``param`` = the JSON pointer where it was found. The check
  is the Rust parser that ``/v1/observe`` uses on raw bytes, so all endpoints agree.
* a user's request text (``request`` of ``/v1/plan`` and ``/v1/run``, or its deprecated alias
  ``text``) must not contain NUL or U+2028 / U+2029 (line separators that break line-oriented logs
  and prompts): 400 ``invalid_text``.

Compressed bodies (``Content-Encoding: gzip``) are inflated by the core middleware before this,
within the same body limit.
"""

from __future__ import annotations

from typing import Any

import orjson

from tao.server.errors import ApiError

FORBIDDEN_TEXT = {"\u2028": "U+2028 LINE SEPARATOR", "\u2029": "U+2029 PARAGRAPH SEPARATOR", "\x00": "NUL"}
_KIND_TYPE = {"invalid_utf8": "invalid_utf8", "duplicate_key": "duplicate_key"}
_checker: Any = None


def _rust_checker() -> Any:
    global _checker
    if _checker is None:
        from rust_validator import SchemaValidator

        _checker = SchemaValidator({})
    return _checker


def parse_json(raw: bytes) -> Any:
    """Decode a JSON request body under the policy above (raises :class:`ApiError`)."""
    from rust_validator import ValidationInputError

    try:
        _rust_checker().is_valid(raw)
    except ValidationInputError as exc:
        kind = str(getattr(exc, "kind", "") or "")
        type_ = _KIND_TYPE.get(kind, "malformed_json")
        pointer = getattr(exc, "pointer", None) or None
        reason = getattr(exc, "reason", None) or str(exc)
        raise ApiError(400, type_, f"request body is not valid JSON: {reason}", field=pointer) from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:  # e.g. numbers orjson cannot hold
        raise ApiError(400, "malformed_json", f"request body is not valid JSON: {exc}") from None


def parse_json_object(raw: bytes) -> dict[str, Any]:
    body = parse_json(raw)
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_request", "request body must be a JSON object")
    return body


def check_text(text: str, field: str) -> None:
    """The request-text policy (NUL, U+2028, U+2029 rejected; blank is 422)."""
    for ch, name in FORBIDDEN_TEXT.items():
        if ch in text:
            raise ApiError(400, "invalid_text", f"{field.lstrip('/')} contains {name}", field=field)
    if not text.strip():
        raise ApiError(422, "invalid_request", f"{field.lstrip('/')} is blank", field=field)
