"""The replay peer: a minimal FastAPI + aiohttp proxy that makes the same tool calls as
``POST /v1/run`` in plan-replay mode, to the same out-of-process mock tool service, and nothing
else: no request or plan validation, no argument or observation checks, no trajectory, no
idempotency, no admission control, no metrics.

It takes the runtime's own request body (``{"plan": {"steps": [...]}, "session": ...}``) and runs
the steps in order (the load suite's plans are sequential). Per step: omitted arguments whose
schema default is a time symbol filled, time symbols (``@tomorrow``) resolved with the contracts'
own resolver against the session's ``now`` / ``timezone`` when sent, step references
(``${t1.order_id}``) looked up in the earlier step's output at the tool's ``extract`` pointer (the registry's data, as the runtime
does), one ``POST {tools_url}/tools/{name}`` with ``X-Request-ID``, the reply parsed with orjson.
The HTTP client is **aiohttp**, the one the runtime's tool layer uses (one pooled session,
idle connections dropped after 4 s like the runtime's), and the server is uvicorn with the same
event loop and HTTP parser as ``tao serve``, so the difference measured is the runtime's own work.

``python -m bench.replay_peer --port P --tools-url URL``.
"""

from __future__ import annotations

import argparse
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import orjson
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response

from tao.contracts.plan import REF_PATTERN
from tao.contracts.timeexpr import TimeSymbolError, resolve_symbol, session_now
from tao.domains.reference.registry import reference_tools

_REF = re.compile(REF_PATTERN)


def _pointer(doc: Any, pointer: str) -> Any:
    for part in pointer.lstrip("/").split("/") if pointer else []:
        if isinstance(doc, list):
            doc = doc[int(part)] if part.isdigit() and int(part) < len(doc) else None
        elif isinstance(doc, dict):
            doc = doc.get(part)
        else:
            return None
    return doc


def _resolve(v: Any, outputs: dict[str, dict[str, Any]], now: datetime) -> Any:
    if isinstance(v, str):
        m = _REF.match(v)
        if m:
            return outputs.get(m.group(1), {}).get(m.group(2))
        if v.startswith("@"):
            try:
                return resolve_symbol(v, now=now)
            except TimeSymbolError:
                return v
        return v
    if isinstance(v, list):
        return [_resolve(x, outputs, now) for x in v]
    if isinstance(v, dict):
        return {k: _resolve(x, outputs, now) for k, x in v.items()}
    return v


def _now(session: dict[str, Any]) -> datetime:
    """The session's clock (its ``now`` and ``timezone``), as the runtime's ``session_now``."""
    tz = ZoneInfo(session.get("timezone") or "Asia/Shanghai")
    raw = session.get("now")
    if not raw:
        return session_now(None).astimezone(tz)
    now = datetime.fromisoformat(raw)
    return now.replace(tzinfo=tz) if now.tzinfo is None else now.astimezone(tz)


def create_app(tools_url: str) -> FastAPI:
    tools = reference_tools()
    extract = {t.name: dict(t.extract) for t in tools}
    # omitted optional arguments whose schema default is a time symbol (get_weather.date =
    # @today): the runtime fills them against the session clock, so the peer does too
    time_defaults = {
        t.name: {
            k: p["default"]
            for k, p in (t.args_schema.get("properties") or {}).items()
            if isinstance(p, dict) and isinstance(p.get("default"), str) and p["default"].startswith("@")
        }
        for t in tools
    }
    base = tools_url.rstrip("/")
    holder: dict[str, aiohttp.ClientSession] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        conn = aiohttp.TCPConnector(limit=64, limit_per_host=0, keepalive_timeout=4.0)
        holder["http"] = aiohttp.ClientSession(connector=conn, trust_env=False)
        yield
        await holder["http"].close()

    app = FastAPI(title="bench replay peer", lifespan=lifespan)

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"status": "ok"}

    @app.post("/v1/run")
    async def run(request: Request) -> Response:
        t0 = time.perf_counter()
        body = orjson.loads(await request.body())
        rid = request.headers.get("x-request-id") or uuid.uuid4().hex
        now = _now(body.get("session") or {})
        http = holder["http"]
        outputs: dict[str, dict[str, Any]] = {}
        steps: list[dict[str, Any]] = []
        status, tool_ms = "success", 0.0
        for step in body["plan"]["steps"]:
            name = step["tool"]
            args = _resolve({**time_defaults.get(name, {}), **(step.get("arguments") or {})}, outputs, now)
            t = time.perf_counter()
            async with http.post(
                f"{base}/tools/{name}",
                data=orjson.dumps(args),
                headers={"Content-Type": "application/json", "X-Request-ID": rid},
            ) as resp:
                raw = await resp.read()
                code = resp.status
            ms = (time.perf_counter() - t) * 1e3
            tool_ms += ms
            steps.append(
                {
                    "step_id": step["step_id"],
                    "tool": name,
                    "arguments": args,
                    "status_code": code,
                    "tool_ms": ms,
                }
            )
            if code != 200:
                status = "failed"
                break
            data = orjson.loads(raw)
            outputs[step["step_id"]] = {k: _pointer(data, p) for k, p in extract.get(name, {}).items()}
        total = (time.perf_counter() - t0) * 1e3
        out = {
            "trace_id": rid,
            "status": status,
            "error_type": None if status == "success" else "TOOL_CLIENT_ERROR",
            "answer": outputs,
            "steps": steps,
            "stages_ms": {"thought": 0.0, "action": tool_ms, "observation": 0.0, "total": total},
        }
        return Response(orjson.dumps(out), media_type="application/json")

    return app


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.replay_peer", description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tools-url", required=True, help="base URL of the mock tool service")
    args = ap.parse_args(argv)
    uvicorn.run(
        create_app(args.tools_url),
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
