"""``POST /v1/run`` (the whole TAO loop over HTTP) and ``GET /v1/tools`` (the tool contracts).

Request: ``{"request": str, "session": SessionState?, "plan": ThoughtPlan?, "approve": [tool]?}`` (``text``:
the deprecated name of ``request``, :mod:`tao.server.request_text`)
(``approve``: over-limit writes of these tools, from a key with the ``approve`` role only; a
high-risk call or a contact change is approved only through ``POST /v1/runs/{run_id}/approve``).
With ``plan`` the model is skipped (plan replay, used by the load tester to isolate runtime
overhead); without it the server's plan engine plans. Response 200 (whatever the run's outcome):
``{"trace_id", "thought_id", "status", "error_type", "answer", "stages_ms", "steps", "events",
"run_id", "pending_approvals": [{"step_id", "tool", "arguments", "digest"}], ...}``.
Tools are called at ``TAO_TOOLS_URL``; when unset the mock service is started in-process on a
free loopback port. ``X-Mock-*`` request headers (fault injection per request) are forwarded to
the tool calls only when the server runs with the test flag ``--test-fault-headers``
(``ServerConfig.extra["test_fault_headers"]``); otherwise a caller could steer shared tools
(one ``X-Mock-Fault: timeout`` would open a breaker for every tenant). Sessions with a ``session_id`` are snapshotted between turns (Redis when
``TAO_REDIS_URL`` is set, else in-process).

An ``Idempotency-Key`` header makes the request safe to resend to any replica
(:mod:`tao.server.run_idempotency`); the records are in Redis with ``TAO_REDIS_URL``, else in the
process. ``TAO_IDEMPOTENCY_LOCK_TTL_S`` (default 10) bounds how long a dead replica's in-flight
lock blocks a resend; ``TAO_IDEMPOTENCY_TTL_S`` (default 86400) how long replies are kept.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from tao.contracts import SessionState
from tao.server import request_text
from tao.server.config import ServerConfig
from tao.server.errors import ApiError

MAX_REQUEST_CHARS = 4000


class RunBody(BaseModel):
    """Body of ``POST /v1/run``."""

    model_config = ConfigDict(extra="forbid")

    request: str = Field(min_length=1, max_length=MAX_REQUEST_CHARS, description="the user's request")
    session: SessionState | None = None
    plan: dict[str, Any] | None = Field(default=None, description="a ThoughtPlan to replay (skips the model)")
    approve: list[str] = Field(default_factory=list, max_length=64, description="tools approved for this run")


def _ttl(config: ServerConfig, name: str, env: str, default: float) -> float:
    raw = config.extra.get(name) or os.environ.get(env)
    try:
        value = float(raw) if raw else default
    except ValueError:
        value = default
    return value if value > 0 else default


def _planning(config: ServerConfig) -> Any:
    """The planning decision point's config (``--planner-config`` / TAO_PLANNER_CONFIG), else None (off)."""
    path = config.extra.get("planner_config") or os.environ.get("TAO_PLANNER_CONFIG")
    if not path:
        return None
    from tao.loop.intent import load_planning_config

    return load_planning_config(path)


class RunHolder:
    """The shared runtime (registry, executor, breakers, idempotency records), created lazily in
    the server's event loop and closed at shutdown."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.runtime = None
        self._lock = asyncio.Lock()
        self.lock_ttl_s = _ttl(config, "idempotency_lock_ttl_s", "TAO_IDEMPOTENCY_LOCK_TTL_S", 10.0)
        self.done_ttl_s = _ttl(config, "idempotency_ttl_s", "TAO_IDEMPOTENCY_TTL_S", 24 * 3600.0)
        self.run_state_ttl_s = _ttl(config, "run_state_ttl_s", "TAO_RUN_STATE_TTL_S", 3600.0)

    async def get(self):
        if self.runtime is None:
            async with self._lock:
                if self.runtime is None:
                    from tao.action.dedup import DedupConfig
                    from tao.action.executor import ExecutorConfig
                    from tao.loop.loop import LoopConfig
                    from tao.loop.runtime import Runtime, RuntimeConfig

                    domain = self.config.domain(full=self.config.tools_url is None)
                    if (
                        self.config.tools_url is None
                        and domain.transport is None
                        and not domain.mock_handlers
                    ):
                        raise ApiError(  # a contract file describes its tools, it does not serve them
                            503,
                            "no_tool_service",
                            f"domain {domain.ref or domain.name!r} has no mock handlers: start the server "
                            "with --tools-url / TAO_TOOLS_URL (its tools at URL/tools/NAME)",
                        )
                    path = self.config.extra.get("trajectory_path") or os.environ.get("TAO_TRAJECTORY_PATH")
                    store = self._store()
                    self.runtime = await asyncio.to_thread(
                        Runtime,
                        RuntimeConfig(
                            tools_url=self.config.tools_url,
                            trajectory_path=Path(path) if path else None,
                            executor=ExecutorConfig(
                                dedup=DedupConfig(lock_ttl_s=self.lock_ttl_s, done_ttl_s=self.done_ttl_s),
                                breaker_redis_url=self.config.redis_url,  # one breaker per tool, fleet-wide
                            ),
                            # finish (with BUDGET_EXHAUSTED) before the server's timeout
                            loop=LoopConfig(wall_time_s=max(1.0, 0.9 * self.config.request_timeout_s)),
                            planning=_planning(self.config),
                        ),
                        session_store=store,
                        domain=domain,
                        idempotency=self._idempotency(),
                    )
                    await self.runtime.registry.aconnect()  # MCP sessions: open them in this loop
        return self.runtime

    def _idempotency(self):
        from tao.action.idempotency import MemoryIdempotency
        from tao.action.idempotency_redis import RedisIdempotency

        if self.config.redis_url:
            return RedisIdempotency.from_url(self.config.redis_url)
        return MemoryIdempotency()

    def _store(self):
        from tao.loop.session import MemorySessionStore, RedisSessionStore

        if self.config.redis_url:
            return RedisSessionStore.from_url(self.config.redis_url)
        return MemorySessionStore()

    async def aclose(self) -> None:
        if self.runtime is not None:
            await self.runtime.aclose()
            self.runtime = None


def _parse(raw: bytes) -> tuple[RunBody, str]:
    """The body (``text`` accepted as the deprecated name of ``request``) and the name used."""
    from tao.server.body import check_text, parse_json

    data = parse_json(raw)  # the shared input policy
    used = request_text.take_alias(data, "/v1/run")
    if isinstance(data, dict) and isinstance(data.get("request"), str):
        check_text(data["request"], f"/{used}")
    from pydantic import ValidationError

    try:
        body = RunBody.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = request_text.pointer("/" + "/".join(str(p) for p in first.get("loc", ())), used)
        raise ApiError(422, "invalid_request", str(first.get("msg", "invalid request")), field=loc) from None
    if not body.request.strip():
        raise ApiError(422, "invalid_request", f"{used} is blank", field=f"/{used}")
    return body, used


def tenant_of(request: Request) -> str:
    """The caller's tenant: the API key's (``request.state.tenant``), else ``default`` (no keys
    configured). Never the body or a header."""
    return getattr(request.state, "tenant", None) or "default"


def _bind_session(request: Request, body: RunBody) -> SessionState:
    """The request's session, bound to the caller's tenant; a bad session id is a typed 422."""
    from tao.loop.session import SessionKeyError, check_session_id

    tenant = tenant_of(request)
    session = body.session or SessionState()
    if "tenant" in session.model_fields_set and session.tenant != tenant:
        raise ApiError(
            403,
            "tenant_mismatch",
            "the tenant comes from the API key; omit session.tenant or send the key's own",
            field="/session/tenant",
        )
    if session.session_id is not None:
        try:
            check_session_id(session.session_id)
        except SessionKeyError as exc:
            raise ApiError(422, "invalid_session_id", str(exc), field="/session/session_id") from None
    return session.model_copy(update={"tenant": tenant})


def _may_approve(request: Request) -> bool:
    """Keys configured: the key has the ``approve`` role; none (loopback only): yes."""
    from tao.server.auth import Role

    roles = getattr(request.state, "roles", None)
    return roles is None or Role.APPROVE in roles


def fault_headers(request: Request, config: ServerConfig) -> dict[str, str]:
    if not config.extra.get("test_fault_headers"):
        return {}
    return {k: v for k, v in request.headers.items() if k.lower().startswith("x-mock-")}


def _engine(app: FastAPI) -> Any:
    holder = getattr(app.state, "plan_engine", None)
    return getattr(holder, "engine", None)


def register(app: FastAPI, config: ServerConfig) -> None:
    holder = RunHolder(config)
    app.state.run_holder = holder
    prev = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[Any]:
        async with prev(app_) as state:
            yield state
        await holder.aclose()

    app.router.lifespan_context = lifespan

    @app.post(
        "/v1/run",
        tags=["run"],
        summary="run the whole TAO loop (plan or replayed plan → tools → checks)",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": request_text.body_schema(
                            RunBody.model_json_schema(ref_template="#/components/schemas/{model}")
                        )
                    }
                },
            }
        },
    )
    async def run(request: Request) -> Response:
        from tao.server.run_idempotency import KeyedRun, RunIdemConfig, check_key, fingerprint

        raw = await request.body()
        body, used = _parse(raw)
        session = _bind_session(request, body)
        idem = request.headers.get("idempotency-key")
        if idem is None:
            return request_text.mark(await _run(request, body, session, None), used)
        check_key(idem)
        rt = await holder.get()
        keyed = KeyedRun(
            rt.executor.idempotency,
            RunIdemConfig(lock_ttl_s=holder.lock_ttl_s, done_ttl_s=holder.done_ttl_s),
            session.tenant,
            idem,
            fingerprint(orjson.loads(raw)),
        )
        recorded = await keyed.begin()
        if recorded is not None:
            replayed = Response(
                recorded, media_type="application/json", headers={"Idempotent-Replayed": "true"}
            )
            return request_text.mark(replayed, used)
        try:
            resp = await _run(request, body, session, keyed.thought_id)
            await keyed.finish(bytes(resp.body))
            return request_text.mark(resp, used)
        except ApiError:
            await keyed.abandon()  # refused before running (4xx/503): the key stays free
            raise
        finally:
            await keyed.release()

    from tao.server.direct_route import install as install_direct

    install_direct(app, "POST", "/v1/run", run)  # the replay hot path skips the router's scan

    async def _run(
        request: Request, body: RunBody, session: SessionState, thought_id: str | None
    ) -> Response:
        import uuid

        from tao.action.idempotency import BackendUnavailable
        from tao.action.permissions import BoundApprover
        from tao.loop.planner import EnginePlanner, ReplayPlanner
        from tao.server.run_state import RunState, reply

        if body.approve and not _may_approve(request):
            raise ApiError(
                403, "forbidden", "`approve` needs a key with the 'approve' role", field="/approve"
            )
        if body.plan is not None:
            planner = ReplayPlanner(body.plan)
        else:
            engine = _engine(app)
            if engine is None:
                raise ApiError(
                    503,
                    "model_not_ready",
                    "the plan engine is not loaded; send a `plan` to replay",
                    headers={"Retry-After": "1"},
                )
            planner = EnginePlanner(engine)
        rt = await holder.get()
        run_id = uuid.uuid4().hex
        approver = BoundApprover.of(run_id, write_tools=body.approve)
        from tao.loop.session import SessionStoreUnavailable

        try:
            report = await rt.loop(planner).run(
                body.request,
                session,
                approver=approver,
                headers=fault_headers(request, config),
                trace_id=getattr(request.state, "trace_id", None),
                thought_id=thought_id,
            )
        except SessionStoreUnavailable as exc:  # raised before anything ran
            raise ApiError(503, "session_store_unavailable", str(exc), headers={"Retry-After": "1"}) from None
        out = reply(report, run_id, approver)
        if out["pending_approvals"] and report.plan is not None:
            state = RunState(
                run_id,
                session.tenant,
                body.request,
                session.model_dump(mode="json"),
                report.plan,
                pending=approver.pending,
                write_tools=list(body.approve),
            )
            try:
                await state.save(rt.executor.idempotency, holder.run_state_ttl_s)
            except BackendUnavailable:
                out["run_id"] = None  # not resumable: nothing high-risk ran; send the request again
        return Response(orjson.dumps(out), media_type="application/json")

    @app.get("/v1/tools", tags=["run"], summary="the tool contracts (JSON)")
    async def tools() -> Response:
        rt = holder.runtime
        if rt is not None:
            specs = rt.registry.export()
        else:
            kind = "mcp" if (config.domain().transport or "").startswith("mcp+") else "http"
            specs = [dict(t.model_dump(mode="json"), transport=kind) for t in config.domain().tools]
        return Response(orjson.dumps({"tools": specs, "count": len(specs)}), media_type="application/json")
