"""A tiny stand-in for ``tao serve``'s ``POST /v1/run`` used by the load tester's accounting test.

It answers by the fault the test injected in the ``X-Mock-Fault`` header (``timeout`` →
TOOL_TIMEOUT, ``malformed`` → TOOL_MALFORMED_RESPONSE, ``reject`` → 429, ``error500`` → 500,
``hang`` → answers after the client has given up) and by the plan itself (a reference to
``never_produced`` → DEPENDENCY_MISSING), and counts every request it received per fault
(``GET /stats``). Run: ``python tests/bench/stub_run_server.py --port P``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections import Counter

import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response

FAILURES = {"timeout": "TOOL_TIMEOUT", "malformed": "TOOL_MALFORMED_RESPONSE"}


def create_app(hang_s: float) -> FastAPI:
    app = FastAPI()
    received: Counter[str] = Counter()

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"status": "ok"}

    @app.get("/stats")
    async def stats() -> dict:
        return dict(received)

    @app.post("/v1/run")
    async def run(request: Request) -> Response:
        t0 = time.perf_counter()
        raw = await request.body()
        fault = request.headers.get("x-mock-fault", "none")
        received[fault] += 1
        received["_total"] += 1
        if fault == "reject":
            return Response(
                orjson.dumps({"error": {"type": "rate_limited", "message": "bucket full"}}),
                status_code=429,
                headers={"Retry-After": "1"},
                media_type="application/json",
            )
        if fault == "error500":
            return Response(
                orjson.dumps({"error": {"type": "internal_error", "message": "x"}}),
                status_code=500,
                media_type="application/json",
            )
        if fault == "hang":
            await asyncio.sleep(hang_s)
        status, error = "success", None
        if b"never_produced" in raw:
            status, error = "failed", "DEPENDENCY_MISSING"
        elif fault in FAILURES:
            status, error = "failed", FAILURES[fault]
        steps = [{"step_id": "t1", "tool": "get_weather", "response_time_ms": 0.25}]
        total = (time.perf_counter() - t0) * 1e3 + 0.5
        body = {
            "trace_id": uuid.uuid4().hex,
            "thought_id": None,
            "status": status,
            "error_type": error,
            "answer": None,
            "steps": steps,
            "events": [],
            "stages_ms": {"thought": 0.0, "action": 0.3, "observation": 0.1, "total": total},
        }
        return Response(orjson.dumps(body), media_type="application/json")

    return app


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--hang-s", type=float, default=5.0)
    a = ap.parse_args()
    uvicorn.run(create_app(a.hang_s), host="127.0.0.1", port=a.port, log_level="warning", access_log=False)
