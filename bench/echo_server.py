"""The load test's peer: a bare FastAPI + uvicorn app whose ``POST /v1/run`` parses the JSON body
and answers a fixed /v1/run-shaped success without doing anything.

Measured with the same client at the same offered rate, it is the floor of the HTTP/ASGI stack
on this machine; the runtime's latency is reported as a ratio to it.
``python -m bench.echo_server --port P``.
"""

from __future__ import annotations

import argparse
import time
import uuid

import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response


def create_app() -> FastAPI:
    app = FastAPI(title="bench echo")

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"status": "ok"}

    @app.post("/v1/run")
    async def run(request: Request) -> Response:
        t0 = time.perf_counter()
        body = orjson.loads(await request.body())
        steps = len((body.get("plan") or {}).get("steps") or []) if isinstance(body, dict) else 0
        total = (time.perf_counter() - t0) * 1e3
        out = {
            "trace_id": uuid.uuid4().hex,
            "thought_id": None,
            "status": "success",
            "error_type": None,
            "answer": f"{steps} steps",
            "steps": [],
            "stages_ms": {"thought": 0.0, "action": 0.0, "observation": 0.0, "total": total},
            "events": [],
        }
        return Response(orjson.dumps(out), media_type="application/json")

    return app


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.echo_server")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    args = ap.parse_args(argv)
    uvicorn.run(create_app(), host=args.host, port=args.port, log_level="warning", access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
