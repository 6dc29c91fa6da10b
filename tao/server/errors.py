"""Typed API errors. Every 4xx/5xx body has the same shape, OpenAI's error object plus a trace id::

    {"error": {"message": "...", "type": "malformed_json", "param": "/text", "code": "malformed_json",
               "field": "/text"}, "trace_id": "..."}

``message``, ``type``, ``param`` and ``code`` are what the OpenAI SDKs read (``param``: the JSON
pointer of the offending field or null; ``code``: the error type, so ``openai.APIStatusError.code``
is useful); ``field`` is kept (present only when there is one) for clients written before.

Route modules raise :class:`ApiError`; the handler installed by :func:`install_error_handlers`
renders it (and pydantic validation errors, and anything unexpected) without a stack trace.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("tao.server")
_HTTP_TYPES = {404: "not_found", 405: "method_not_allowed", 400: "bad_request", 415: "unsupported_media_type"}


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        type_: str,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.type, self.message, self.field = status, type_, message, field
        self.headers = headers or {}
        self.extra = extra or {}


def error_response(
    request: Request,
    status: int,
    type_: str,
    message: str,
    *,
    field: str | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Response:
    body: dict[str, Any] = {"message": message, "type": type_, "param": field, "code": type_}
    if field is not None:
        body["field"] = field
    body.update(extra or {})
    trace_id = getattr(request.state, "trace_id", None)
    return Response(
        orjson.dumps({"error": body, "trace_id": trace_id}),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Response:
        return error_response(
            request, exc.status, exc.type, exc.message, field=exc.field, headers=exc.headers, extra=exc.extra
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        type_ = _HTTP_TYPES.get(exc.status_code, "http_error")
        message = str(exc.detail) if exc.detail else type_
        if exc.status_code == 404:
            message = f"no route {request.url.path}"
        elif exc.status_code == 405:
            message = f"method {request.method} not allowed on {request.url.path}"
        return error_response(request, exc.status_code, type_, message, headers=dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        errs = exc.errors()
        first = errs[0] if errs else {}
        loc = "/" + "/".join(str(p) for p in first.get("loc", ())[1:])
        return error_response(
            request,
            422,
            "invalid_request",
            str(first.get("msg", "invalid request")),
            field=loc,
            extra={"errors": len(errs)},
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error", extra={"trace_id": getattr(request.state, "trace_id", None)})
        return error_response(request, 500, "internal_error", "internal error (see server log)")
