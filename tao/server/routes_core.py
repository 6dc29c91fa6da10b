"""Core HTTP behaviour for every route: request/trace ids, auth, body limit, timeout, metrics,
plus ``/healthz``, ``/readyz`` and ``/metrics``.

The middleware is plain ASGI (no per-request task or body copy):

* ``X-Request-ID`` is accepted as sent (never truncated) or generated, and echoed; a trace id
  (taken from a W3C ``traceparent`` header when present, else new) goes on every response
  (``X-Trace-ID``), into ``request.state.trace_id`` and onto every log line (``%(trace_id)s``).
* keys (``TAO_API_KEY``, or a keys file: :mod:`tao.server.auth`): when configured, ``/v1/*``
  needs ``Authorization: Bearer KEY`` (or ``X-API-Key``) of a key with the route's role (401
  ``unauthorized`` / 403 ``forbidden``); the key's tenant goes into ``request.state.tenant``.
* ``POST``/``PUT``/``PATCH`` on ``/v1/*`` (except raw ``/v1/observe``) need a JSON
  ``Content-Type`` (415 ``unsupported_media_type``): no cross-origin simple request reaches them;
* bodies over ``max_body_bytes`` get 413 (by ``Content-Length`` or while streaming);
  ``Content-Encoding: gzip`` (or ``deflate``) bodies are inflated here, and the *inflated* size is
  held to the same limit (a decompression bomb is a 413, found after at most limit + 1 bytes of
  output); an undecodable one is 400 ``bad_encoding``, any other encoding 415;
  requests running past ``request_timeout_s`` get 504. All errors use the typed error body.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import re
import time
import zlib

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from tao.server.auth import KeyRing, given_key, keyring_for, required_role
from tao.server.config import ServerConfig
from tao.server.metrics import IN_FLIGHT, REGISTRY, REQUEST_LATENCY, REQUESTS

TRACE_ID: contextvars.ContextVar[str] = contextvars.ContextVar("tao_trace_id", default="-")
REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("tao_request_id", default="-")
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")
_OPEN_PATHS = (
    "/healthz",
    "/readyz",
    "/metrics",
    "/docs",
    "/openapi.json",
    "/redoc",
    "/.well-known/agent-card.json",
)


_BODY_METHODS = ("POST", "PUT", "PATCH")
_RAW_BODY_PATHS = ("/v1/observe",)  # raw ActionResult bytes (?tool=NAME), checked in Rust


def _is_json(media: bytes) -> bool:
    """``application/json`` or a ``+json`` type: what a cross-origin form or ``text/plain``
    request cannot send without a CORS preflight (which this server never grants)."""
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))


class _BodyTooLarge(Exception):
    pass


def install_log_trace_ids() -> None:
    """Give every log record ``trace_id`` / ``request_id`` attributes (idempotent)."""
    old = logging.getLogRecordFactory()
    if getattr(old, "_tao_trace", False):
        return

    def factory(*args, **kwargs):
        record = old(*args, **kwargs)
        if getattr(record, "trace_id", None) is None:
            record.trace_id = TRACE_ID.get()
        record.request_id = REQUEST_ID.get()
        return record

    factory._tao_trace = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def _error_body(status: int, type_: str, message: str, trace_id: str) -> bytes:
    err = {"message": message, "type": type_, "param": None, "code": type_}
    return orjson.dumps({"error": err, "trace_id": trace_id})


class CoreMiddleware:
    """ASGI middleware implementing the behaviour in the module docstring."""

    def __init__(self, app, config: ServerConfig, keyring: KeyRing | None = None) -> None:
        self.app, self.cfg = app, config
        self._ring = keyring

    def _endpoint(self, scope) -> str:
        path = scope.get("path", "")
        if path.startswith("/v1/") or path in _OPEN_PATHS:
            return path if len(path) <= 64 else path[:64]
        return "other"  # bounded label cardinality for unknown paths

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        rid_raw = headers.get(b"x-request-id")
        request_id = rid_raw.decode("latin-1") if rid_raw else os.urandom(16).hex()
        m = _TRACEPARENT.match(headers.get(b"traceparent", b"").decode("latin-1"))
        trace_id = m.group(1) if m else os.urandom(16).hex()  # 32 hex digits, as a W3C trace id
        state = scope.setdefault("state", {})
        state["trace_id"], state["request_id"] = trace_id, request_id
        t_tok, r_tok = TRACE_ID.set(trace_id), REQUEST_ID.set(request_id)
        endpoint, method = self._endpoint(scope), scope.get("method", "GET")
        extra_headers = [(b"x-request-id", request_id.encode("latin-1")), (b"x-trace-id", trace_id.encode())]
        started = {"status": 0}

        async def send_wrapped(message):
            if message["type"] == "http.response.start":
                started["status"] = message["status"]
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + extra_headers
            await send(message)

        async def reply(status: int, type_: str, msg: str, more: list | None = None) -> None:
            body = _error_body(status, type_, msg, trace_id)
            hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send_wrapped(
                {"type": "http.response.start", "status": status, "headers": hdrs + (more or [])}
            )
            await send_wrapped({"type": "http.response.body", "body": body})

        t0 = time.perf_counter()
        IN_FLIGHT.inc()
        try:
            await self._dispatch(scope, receive, send_wrapped, reply, headers, started)
        finally:
            IN_FLIGHT.dec()
            REQUESTS.labels(endpoint=endpoint, method=method, status=str(started["status"] or 500)).inc()
            REQUEST_LATENCY.labels(endpoint=endpoint).observe(time.perf_counter() - t0)
            TRACE_ID.reset(t_tok)
            REQUEST_ID.reset(r_tok)

    async def _dispatch(self, scope, receive, send, reply, headers, started) -> None:
        path = scope.get("path", "")
        if self._ring is not None and path.startswith("/v1/"):
            principal = self._ring.authenticate(given_key(headers))
            if principal is None:
                return await reply(
                    401, "unauthorized", "missing or wrong API key", [(b"www-authenticate", b"Bearer")]
                )
            role = required_role(path)
            if role not in principal.roles:
                return await reply(403, "forbidden", f"this key lacks the '{role}' role")
            state = scope.setdefault("state", {})
            state["tenant"], state["roles"] = principal.tenant, principal.roles
        if path.startswith("/v1/") and scope.get("method") in _BODY_METHODS and path not in _RAW_BODY_PATHS:
            media = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
            if not _is_json(media):
                return await reply(
                    415,
                    "unsupported_media_type",
                    "JSON endpoints take Content-Type: application/json",
                )
        limit = self.cfg.max_body_bytes
        clen = headers.get(b"content-length")
        if clen is not None:
            try:
                if int(clen) > limit:
                    return await reply(413, "body_too_large", f"request body exceeds {limit} bytes")
            except ValueError:
                return await reply(400, "bad_request", "invalid Content-Length")
        seen = {"n": 0}

        async def receive_limited():
            message = await receive()
            if message["type"] == "http.request":
                seen["n"] += len(message.get("body", b""))
                if seen["n"] > limit:
                    raise _BodyTooLarge()
            return message

        encoding = headers.get(b"content-encoding", b"identity").strip().lower()
        if encoding not in (b"", b"identity"):
            if encoding not in (b"gzip", b"x-gzip", b"deflate"):
                return await reply(
                    415, "unsupported_encoding", f"Content-Encoding {encoding.decode('latin-1')!r}"
                )
            try:
                body = await self._inflate(receive_limited, encoding, limit)
            except _BodyTooLarge:
                return await reply(413, "body_too_large", f"decompressed request body exceeds {limit} bytes")
            except zlib.error as exc:
                return await reply(
                    400, "bad_encoding", f"request body is not valid {encoding.decode()}: {exc}"
                )
            receive_limited = _replay(body, receive)
            scope = dict(scope)
            scope["headers"] = [
                (k, v)
                for k, v in scope.get("headers", [])
                if k.lower() not in (b"content-encoding", b"content-length")
            ] + [(b"content-length", str(len(body)).encode())]
        try:
            async with asyncio.timeout(self.cfg.request_timeout_s):  # in this task: wait_for made one
                await self.app(scope, receive_limited, send)
        except _BodyTooLarge:
            if not started["status"]:
                await reply(413, "body_too_large", f"request body exceeds {limit} bytes")
        except TimeoutError:
            logging.getLogger("tao.server").warning(
                "request timed out after %.1fs: %s", self.cfg.request_timeout_s, path
            )
            if not started["status"]:
                await reply(504, "timeout", f"request exceeded {self.cfg.request_timeout_s}s")
        except Exception:
            logging.getLogger("tao.server").exception("unhandled error on %s", path)
            if not started["status"]:
                await reply(500, "internal_error", "internal error (see server log)")

    @staticmethod
    async def _inflate(receive, encoding: bytes, limit: int) -> bytes:
        wbits = 16 + zlib.MAX_WBITS if encoding in (b"gzip", b"x-gzip") else zlib.MAX_WBITS
        d = zlib.decompressobj(wbits)
        out = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            more = message.get("more_body", False)
            while chunk:
                out += d.decompress(chunk, limit + 1 - len(out))
                if len(out) > limit:
                    raise _BodyTooLarge()
                chunk = d.unconsumed_tail
        out += d.flush()
        if len(out) > limit:
            raise _BodyTooLarge()
        if not d.eof:
            raise zlib.error("truncated stream")
        return bytes(out)


def _replay(body: bytes, receive):
    sent = {"done": False}

    async def replay():
        if not sent["done"]:
            sent["done"] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def register(app: FastAPI, config: ServerConfig) -> None:
    install_log_trace_ids()
    ring = keyring_for(config.api_key, config.extra.get("keys_file"))  # KeysFileError stops start-up
    app.state.keyring = ring
    app.add_middleware(CoreMiddleware, config=config, keyring=ring)

    @app.get("/healthz", tags=["ops"], summary="liveness: the process answers")
    async def healthz() -> dict:
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"], summary="readiness: the plan model is loaded (when enabled)")
    async def readyz(request: Request) -> Response:
        checks: dict[str, str] = {}
        ready = True
        for name, probe in getattr(request.app.state, "readiness", {}).items():
            ok, detail = probe()
            checks[name] = detail
            ready = ready and ok
        body = orjson.dumps(
            {
                "status": "ready" if ready else "not_ready",
                "checks": checks,
                "trace_id": request.state.trace_id,
            }
        )
        return Response(body, status_code=200 if ready else 503, media_type="application/json")

    @app.get("/metrics", tags=["ops"], summary="Prometheus metrics")
    async def metrics() -> Response:
        return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)


def add_readiness(app: FastAPI, name: str, probe) -> None:
    """Register a readiness probe ``probe() -> (ok: bool, detail: str)`` shown by ``/readyz``."""
    if not hasattr(app.state, "readiness"):
        app.state.readiness = {}
    app.state.readiness[name] = probe
