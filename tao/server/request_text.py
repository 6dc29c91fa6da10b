"""One name for the user's request text: ``request`` on ``/v1/plan`` and ``/v1/run`` (as in ``tao run``,
``tao plan``, the MCP ``plan``/``run`` tools and eval case files).

``/v1/plan`` used to take ``text``; both endpoints still accept ``text`` as a deprecated alias. A
body that uses it gets the answer with ``Deprecation: true`` and a ``Warning: 299`` header naming the
new field, and the server logs it (at warning level the first time per endpoint and process, then at
debug level). A body with both names and different values is a typed 422 ``conflicting_fields``
(never a silent pick); both with the same value are accepted (with the deprecation note). The OpenAPI
request schema lists both, ``text`` marked ``deprecated``, and asks for one of them.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi.responses import Response

from tao.server.errors import ApiError

FIELD = "request"
"""The request text's name on every endpoint."""
DEPRECATED_FIELD = "text"
"""The old name (``/v1/plan`` before), still accepted."""
WARNING = f'299 - "field {DEPRECATED_FIELD!r} is deprecated; send the request text as {FIELD!r}"'
DEPRECATION_HEADERS = {"Deprecation": "true", "Warning": WARNING}

log = logging.getLogger("tao.server.request_text")
_warned: set[str] = set()


def take_alias(data: Any, endpoint: str) -> str:
    """Move a deprecated ``text`` into ``request`` in the parsed body ``data`` (in place); the field
    the client used (``"request"`` or ``"text"``), for error pointers and :func:`mark`. Raises a 422
    ``conflicting_fields`` when both are given with different values."""
    if not isinstance(data, dict) or DEPRECATED_FIELD not in data:
        return FIELD
    old = data.pop(DEPRECATED_FIELD)
    if FIELD in data and data[FIELD] != old:
        raise ApiError(
            422,
            "conflicting_fields",
            f"both {FIELD!r} and the deprecated {DEPRECATED_FIELD!r} are given, with different values; "
            f"send only {FIELD!r}",
            field=f"/{DEPRECATED_FIELD}",
        )
    data[FIELD] = old
    level = logging.WARNING if endpoint not in _warned else logging.DEBUG
    _warned.add(endpoint)
    log.log(
        level, "%s: deprecated body field %r used; clients should send %r", endpoint, DEPRECATED_FIELD, FIELD
    )
    return DEPRECATED_FIELD


def mark(response: Response, used: str) -> Response:
    """Add the deprecation headers to ``response`` when the body used the old name."""
    if used == DEPRECATED_FIELD:
        response.headers.update(DEPRECATION_HEADERS)
    return response


def pointer(field: str | None, used: str) -> str | None:
    """An error pointer at ``/request`` rewritten to the field the client sent."""
    if used == DEPRECATED_FIELD and field is not None and field.startswith(f"/{FIELD}"):
        return f"/{DEPRECATED_FIELD}" + field[len(FIELD) + 1 :]
    return field


def body_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A request body's JSON Schema (pydantic's, with ``request`` required) with the deprecated
    ``text`` beside ``request`` and one of the two required."""
    props = dict(schema.get("properties", {}))
    req = props.get(FIELD, {"type": "string"})
    props[DEPRECATED_FIELD] = {
        **{k: v for k, v in req.items() if k not in ("title", "description")},
        "title": DEPRECATED_FIELD.capitalize(),
        "description": f"deprecated: the old name of {FIELD!r} (same meaning; answers carry a Deprecation header)",
        "deprecated": True,
    }
    out = dict(schema, properties=props)
    out["required"] = [r for r in schema.get("required", []) if r != FIELD]
    if not out["required"]:
        del out["required"]
    out["anyOf"] = [{"required": [FIELD]}, {"required": [DEPRECATED_FIELD]}]
    return out
