"""A complete OpenAPI document: every ``$ref`` resolves, every operation documents its errors.

FastAPI builds the document from the routes; request bodies declared through ``openapi_extra``
(pydantic ``model_json_schema(ref_template="#/components/schemas/{model}")``) carry their nested
models in ``$defs``, which are moved here into ``components.schemas``. Every operation gets the
typed error responses (``Error``: OpenAI's error object plus ``trace_id``) in place of FastAPI's
``HTTPValidationError`` (our 422s use the same typed body), and JSON operations without a
documented 200 body get an object schema.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["message", "type", "param", "code"],
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string", "description": "the error type (malformed_json, unauthorized, …)"},
                "param": {"type": ["string", "null"], "description": "JSON pointer of the offending field"},
                "code": {
                    "type": ["string", "null"],
                    "description": "same as type (what the OpenAI SDKs read)",
                },
                "field": {"type": "string"},
            },
            "additionalProperties": True,
        },
        "trace_id": {"type": ["string", "null"]},
    },
    "additionalProperties": False,
}
_ERR = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
_COMMON = {
    "400": "malformed, not UTF-8, duplicate keys or an invalid field",
    "404": "no such route or resource",
    "405": "method not allowed",
    "413": "body (or decompressed body) over the limit",
    "415": "unsupported Content-Type (JSON endpoints take application/json) or Content-Encoding",
    "422": "the body breaks the endpoint's schema",
    "500": "internal error (details in the server log)",
    "503": "not ready (model loading or disabled, no model available)",
    "504": "request timeout",
}


def _hoist(node: Any, into: dict[str, Any]) -> Any:
    """Move every ``$defs`` found under ``node`` into ``into`` (components.schemas)."""
    if isinstance(node, dict):
        defs = node.pop("$defs", None)
        if isinstance(defs, dict):
            for name, schema in defs.items():
                into.setdefault(name, _hoist(schema, into))
        for k, v in list(node.items()):
            node[k] = _hoist(v, into)
    elif isinstance(node, list):
        return [_hoist(v, into) for v in node]
    return node


def build_openapi(app: FastAPI) -> dict[str, Any]:
    doc = get_openapi(title=app.title, version=app.version, routes=app.routes, description=app.description)
    comps = doc.setdefault("components", {})
    schemas = comps.setdefault("schemas", {})
    for path, item in doc.get("paths", {}).items():
        for _method, op in item.items():
            if not isinstance(op, dict):
                continue
            _hoist(op, schemas)
            responses = op.setdefault("responses", {})
            ok = responses.setdefault("200", {"description": "OK"})
            content = ok.setdefault("content", {})
            if path == "/metrics":  # Prometheus text exposition, not JSON
                ok["content"] = {"text/plain": {"schema": {"type": "string"}}}
            else:
                js = content.get("application/json")
                if js is not None and not js.get("schema"):
                    js["schema"] = {"type": "object"}
                if path == "/v1/chat/completions":
                    content["text/event-stream"] = {"schema": {"type": "string"}}
            for code, text in _COMMON.items():
                responses[code] = {"description": text, "content": _ERR}
            if path.startswith("/v1/"):
                responses["401"] = {"description": "missing or wrong API key", "content": _ERR}
                responses["403"] = {
                    "description": "the key lacks the route's role, or names another tenant",
                    "content": _ERR,
                }
                responses["409"] = {
                    "description": "Idempotency-Key in flight or reused with another body; approval mismatch",
                    "content": _ERR,
                }
                responses["429"] = {"description": "rate limited (Retry-After)", "content": _ERR}
                responses["502"] = {"description": "upstream failed", "content": _ERR}
                op.setdefault("security", [{"bearer": []}, {"apiKey": []}])
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = ERROR_SCHEMA
    comps["securitySchemes"] = {
        "bearer": {"type": "http", "scheme": "bearer", "description": "TAO_API_KEY (when set)"},
        "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    }
    return doc


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
