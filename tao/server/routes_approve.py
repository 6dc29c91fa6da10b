"""``POST /v1/runs/{run_id}/approve``: approve one pending call of a run and resume it.

Body ``{"step_id": str, "digest": "<64 hex>"}`` — the values of one entry of the run's
``pending_approvals``. Only a key with the ``approve`` role reaches this route (the core
middleware answers 401/403 otherwise), and only for a run of its own tenant (another tenant's
run id is a 404, as an unknown one). The digest binds the approval to the call (run id, step id,
tool, resolved arguments): a call whose arguments changed since is pending again under a new
digest, never run on the old approval. The run state is on the shared backend, so any replica
resumes it: the plan is replayed with its thought id (steps already done are answered from the
idempotency records, nothing is repeated) and the approved digests. The reply has the shape of
``POST /v1/run``'s; a run that stops at another approval keeps its ``run_id``. A run that has
ended answers its final reply again.
"""

from __future__ import annotations

import contextlib
import uuid

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tao.server.config import ServerConfig
from tao.server.errors import ApiError


class ApproveBody(BaseModel):
    """Body of ``POST /v1/runs/{run_id}/approve``."""

    model_config = ConfigDict(extra="forbid")

    step_id: str = Field(min_length=1, max_length=64, description="the pending call's step id")
    digest: str = Field(pattern=r"^[0-9a-f]{64}$", description="the pending call's digest")


def _parse(raw: bytes) -> ApproveBody:
    from tao.server.body import parse_json_object

    data = parse_json_object(raw)
    try:
        return ApproveBody.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = "/" + "/".join(str(p) for p in first.get("loc", ()))
        raise ApiError(422, "invalid_request", str(first.get("msg", "invalid request")), field=loc) from None


def register(app: FastAPI, config: ServerConfig) -> None:
    @app.post(
        "/v1/runs/{run_id}/approve",
        tags=["run"],
        summary="approve one pending call of a run (key with the approve role) and resume the run",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": ApproveBody.model_json_schema(ref_template="#/components/schemas/{model}")
                    }
                },
            }
        },
    )
    async def approve(run_id: str, request: Request) -> Response:
        from tao.action.dedup import heartbeat
        from tao.action.idempotency import BackendUnavailable, record_key
        from tao.action.permissions import BoundApprover
        from tao.contracts import SessionState
        from tao.loop.planner import ReplayPlanner
        from tao.server.routes_run import fault_headers, tenant_of
        from tao.server.run_state import RunState, reply

        body = _parse(await request.body())
        holder = app.state.run_holder
        rt = await holder.get()
        backend = rt.executor.idempotency
        tenant = tenant_of(request)
        try:
            state = await RunState.load(backend, tenant, run_id)
        except BackendUnavailable as exc:
            raise ApiError(
                503, "state_unavailable", f"run state store unreachable ({exc})", headers={"Retry-After": "1"}
            ) from None
        if state is None:
            raise ApiError(404, "run_not_found", f"no run {run_id!r} waiting for approval", field="run_id")
        if state.final is not None:
            return Response(orjson.dumps(state.final), media_type="application/json")
        if not any(p["step_id"] == body.step_id and p["digest"] == body.digest for p in state.pending):
            raise ApiError(
                409,
                "approval_mismatch",
                "no pending call of this run has that step id and digest (its arguments may have changed)",
                field="/digest",
            )
        lock, owner = record_key("runresume", tenant, run_id), uuid.uuid4().hex
        ttl_ms = max(1, int(holder.lock_ttl_s * 1000))
        if not await backend.acquire(lock, owner, ttl_ms):
            raise ApiError(
                409, "request_in_progress", "this run is being resumed", headers={"Retry-After": "1"}
            )
        try:
            async with heartbeat(backend, lock, owner, ttl_ms):
                approved = [*state.approved, body.digest]
                approver = BoundApprover.of(run_id, approved, state.write_tools)
                report = await rt.loop(ReplayPlanner(state.plan)).run(
                    state.request,
                    SessionState.model_validate(state.session),
                    approver=approver,
                    headers=fault_headers(request, config),
                    trace_id=getattr(request.state, "trace_id", None),
                    thought_id=state.plan.get("thought_id"),
                )
                out = reply(report, run_id, approver)
                state.approved = approved
                state.pending = approver.pending if out["pending_approvals"] else []
                state.final = None if out["pending_approvals"] else out
                with contextlib.suppress(BackendUnavailable):
                    await state.save(backend, holder.run_state_ttl_s)
        finally:
            with contextlib.suppress(BackendUnavailable):
                await backend.release(lock, owner)
        return Response(orjson.dumps(out), media_type="application/json")
