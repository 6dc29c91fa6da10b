"""``POST /v1/observe`` and ``POST /v1/observe/batch``: ActionResult -> ObservationResult.

Each tool's contract (reference registry, ``ToolSpec.model_dump(mode="json")``) is compiled once
into a ``rust_validator.ObservationChecker`` and cached. Two body forms:

* JSON ``{"tool": "get_order_status", "result": {...ActionResult...}, "expected": {...}?}``
* raw bytes of an ActionResult JSON document with ``?tool=NAME`` (any non-JSON content type,
  e.g. ``application/octet-stream``): handed to the checker as bytes, no Python parsing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from tao.contracts import ActionResult, ToolSpec
from tao.server.config import ServerConfig
from tao.server.errors import ApiError
from tao.server.metrics import OBSERVATIONS, STAGE_LATENCY
from tao.server.routes_plan import parse_json_body, validate_body

MAX_BATCH = 1000


class ObserveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: str | None = Field(default=None, description="tool name (default: result.tool)")
    result: ActionResult
    expected: dict[str, list[Any]] | None = Field(
        default=None, description="{JSON pointer: [values the plan foresaw]} (consistency check)"
    )


class ObserveBatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[ObserveBody] = Field(min_length=1, max_length=MAX_BATCH)


class CheckerCache:
    """One compiled ObservationChecker per (tool, expected) pair, built on first use."""

    def __init__(self, specs: Sequence[ToolSpec]) -> None:
        self._contracts = {s.name: s.model_dump(mode="json") for s in specs}
        self._cache: dict[tuple[str, bytes], Any] = {}
        self._lock = threading.Lock()

    @property
    def tools(self) -> frozenset[str]:
        return frozenset(self._contracts)

    def get(self, tool: str, expected: dict | None):
        if tool not in self._contracts:
            raise ApiError(422, "unknown_tool", f"unknown tool {tool!r}", field="/tool")
        key = (tool, orjson.dumps(expected, option=orjson.OPT_SORT_KEYS) if expected else b"")
        hit = self._cache.get(key)
        if hit is None:
            try:
                from rust_validator import CompileError, ObservationChecker
            except ImportError:
                raise ApiError(
                    503,
                    "validator_unavailable",
                    "rust_validator.ObservationChecker is not built (run `make build`)",
                ) from None
            try:
                checker = ObservationChecker(self._contracts[tool], expected=expected)
            except CompileError as exc:
                raise ApiError(
                    422, "invalid_request", f"bad expected values: {exc}", field="/expected"
                ) from None
            with self._lock:
                if len(self._cache) > 4096:
                    self._cache.clear()
                hit = self._cache.setdefault(key, checker)
        return hit


def run_check(checker, doc) -> dict:
    """``checker.check(doc)``, with bad documents (ValidationInputError) as a typed 400."""
    from rust_validator import ValidationInputError

    try:
        res = checker.check(doc)
    except ValidationInputError as exc:
        raise ApiError(400, "invalid_action_result", str(exc)[:500]) from None
    return res if isinstance(res, dict) else dict(res)


def register(app: FastAPI, config: ServerConfig) -> None:
    cache = CheckerCache(config.domain().tools)

    def observe_one(item: ObserveBody) -> dict:
        tool = item.tool or item.result.tool
        checker = cache.get(tool, item.expected)
        out = run_check(checker, item.result.model_dump(mode="json"))
        OBSERVATIONS.labels(tool=tool, valid=str(bool(out.get("valid"))).lower()).inc()
        return out

    @app.post(
        "/v1/observe",
        tags=["observe"],
        summary="check one ActionResult against its tool contract",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": ObserveBody.model_json_schema(ref_template="#/components/schemas/{model}")
                    },
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                },
            }
        },
    )
    async def observe(request: Request) -> Response:
        t0 = time.perf_counter()
        raw = await request.body()
        ctype = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
        if ctype == "application/json":
            item = validate_body(ObserveBody, parse_json_body(raw))
            out = observe_one(item)
        else:
            tool = request.query_params.get("tool")
            if not tool:
                raise ApiError(
                    422, "invalid_request", "raw ActionResult bodies need ?tool=NAME", field="/tool"
                )
            if not raw:
                raise ApiError(400, "malformed_json", "empty body")
            out = run_check(cache.get(tool, None), raw)
            OBSERVATIONS.labels(tool=tool, valid=str(bool(out.get("valid"))).lower()).inc()
        STAGE_LATENCY.labels(endpoint="/v1/observe", stage="check").observe(time.perf_counter() - t0)
        return Response(orjson.dumps(out), media_type="application/json")

    @app.post(
        "/v1/observe/batch",
        tags=["observe"],
        summary="check many ActionResults",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": ObserveBatchBody.model_json_schema(
                            ref_template="#/components/schemas/{model}"
                        )
                    }
                },
            }
        },
    )
    async def observe_batch(request: Request) -> Response:
        t0 = time.perf_counter()
        body = validate_body(ObserveBatchBody, parse_json_body(await request.body()))
        results = [observe_one(item) for item in body.items]
        STAGE_LATENCY.labels(endpoint="/v1/observe/batch", stage="check").observe(time.perf_counter() - t0)
        return Response(orjson.dumps({"results": results}), media_type="application/json")
