"""A2A tools: a remote agent's card as one :class:`ToolSpec`, called through the ``a2a-sdk`` client.

Refs: ``--registry a2a+http://HOST:PORT`` (a domain of that one agent) or, beside any domain,
``TAO_A2A_AGENTS="helpdesk=http://HOST:PORT,billing=http://…"`` (``RuntimeConfig.a2a_agents``):
each agent becomes a tool (``ALIAS``, else ``ask_`` + the card's name) whose arguments are
``request`` (the sub-task's text), optional ``plan`` (a ThoughtPlan the remote replays: an object
is resolved by the caller first, its step refs are the caller's; a JSON string travels as is) and
``publish`` (outputs the remote writes to the conversation's blackboard). The result is the
remote task: ``{agent, task_id, conversation_id, state, status, error_type, message, answer,
trace_id, blackboard_writes}``.

Cards are fetched from ``/.well-known/agent-card.json`` and kept ``ttl_s`` (:class:`CardCache`);
parsing is tolerant (unknown fields, bad skills, a missing name: warnings, kept in
:attr:`CardInfo.warnings` and logged), but the protocol is not: the JSON-RPC interface must speak
A2A 1.x or 0.3 (what the SDK client speaks; sent as ``A2A-Version``) and, when the card carries
the TAO envelope extension, the envelope's major version must match
(:class:`A2AProtocolError` / :class:`~tao.contracts.envelope.EnvelopeVersionError`).

Every call carries the envelope of :mod:`tao.action.a2a_context` (conversation, parent task,
sender, chain, blackboard, depth, trace id; also as a W3C ``traceparent`` header); the executor's
contract applies as for any tool (permission, argument check, timeout, retries only when
idempotent, breaker, observation). Mapping of outcomes: completed -> 200; failed with a transient
cause -> 503 (``TOOL_TRANSIENT``); failed otherwise, rejected, input/auth required -> 4xx
(``TOOL_CLIENT_ERROR``); a refused message (envelope, depth, rounds, A2A version) -> 400 with the
remote's reason; unreachable -> ``TOOL_TRANSIENT``; no answer in time -> ``TOOL_TIMEOUT``.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from tao.action.a2a_cards import (
    CARDS,
    A2AProtocolError,
    A2ARefError,
    AgentSource,
    CardCache,
    CardInfo,
    agent_sources,
    load_specs,
    parse_card,
    spec_of,
)
from tao.action.a2a_context import MAX_DEPTH, current_conversation
from tao.action.http_tools import CallContext
from tao.action.normalize import from_http
from tao.contracts import ActionResult, ErrorInfo, ErrorType, ToolSpec
from tao.contracts.domain import Domain
from tao.contracts.envelope import ENVELOPE_KEY, EnvelopeError

log = logging.getLogger("tao.a2a")
_TRANSIENT = {"TOOL_TRANSIENT", "TOOL_TIMEOUT", "TOOL_CIRCUIT_OPEN", "RATE_LIMITED", "BUDGET_EXHAUSTED"}
__all__ = [
    "CARDS",
    "A2AConnection",
    "A2AProtocolError",
    "A2ARefError",
    "AgentSource",
    "CardCache",
    "CardInfo",
    "agent_sources",
    "load_a2a_domain",
    "load_specs",
    "parse_card",
    "spec_of",
    "struct_ints",
]


def load_a2a_domain(ref: str) -> Domain:
    """The domain of one remote agent (the ``a2a+…`` loader of :func:`tao.domains.load_domain`)."""
    src = AgentSource.parse(ref)
    info = CARDS.get_sync(src.url)  # unreachable / protocol errors: DomainLoadError with the reason
    spec = spec_of(info, src)
    return Domain(name=spec.domain, tools=[spec], ref=ref, transport=src.ref)


def struct_ints(v: Any) -> Any:
    """protobuf Struct numbers are doubles: integral ones back to int (JSON Schema integers)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    if isinstance(v, dict):
        return {k: struct_ints(x) for k, x in v.items()}
    if isinstance(v, list):
        return [struct_ints(x) for x in v]
    return v


@dataclass
class A2AConnection:
    """Calls one remote agent (a registry transport); cards from the shared :data:`CARDS` cache."""

    source: AgentSource
    cache: CardCache = field(default_factory=lambda: CARDS)
    api_key: str | None = field(default_factory=lambda: os.environ.get("TAO_A2A_API_KEY") or None)
    max_depth: int = MAX_DEPTH
    _http: httpx.AsyncClient | None = None

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = httpx.AsyncClient(headers={"A2A-Version": "1.0"})
        return self._http

    async def call(self, spec: ToolSpec, args: dict[str, Any], ctx: CallContext) -> ActionResult:
        t0 = time.perf_counter()
        conv = current_conversation()
        if conv.depth + 1 > self.max_depth:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.PERMISSION_DENIED,
                f"delegation depth {conv.depth + 1} > {self.max_depth}",
            )
        try:
            info = await self.cache.get(self.source.url, self._client(), min(10.0, ctx.timeout_s))
        except (A2AProtocolError, EnvelopeError) as exc:
            return _fail(
                spec, ctx, t0, ErrorType.TOOL_CLIENT_ERROR, f"A2A agent {self.source.url}: {exc}", exc
            )
        except (httpx.HTTPError, ValueError) as exc:
            return _fail(
                spec, ctx, t0, ErrorType.TOOL_TRANSIENT, f"agent card unavailable: {exc}", retry=True
            )
        env = conv.child_envelope(list(args.get("publish") or []))
        try:
            task = await self._send(info, args, ctx, env.to_json())
        except TimeoutError:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_TIMEOUT,
                f"no A2A answer within {ctx.timeout_s:.3f} s",
                retry=True,
            )
        except Exception as exc:
            return self._map_exc(spec, ctx, t0, exc)
        result, status = self._result(task, spec)
        for key, entry in (result.get("blackboard_writes") or {}).items():
            if isinstance(entry, dict):
                conv.write(
                    key, entry.get("value"), str(entry.get("writer") or spec.name), step_id=ctx.step_id
                )
        res = from_http(
            spec.name, ctx.step_id, status, orjson.dumps(result), (time.perf_counter() - t0) * 1000
        )
        if res.error_info is not None:  # the remote's own reason, not only the mapped status
            why = f"remote task {result.get('state')}: {result.get('error_type')}: {result.get('message')}"
            info = res.error_info.model_copy(update={"message": f"{res.error_info.message}; {why}"[:2000]})
            res = res.model_copy(update={"error_info": info})
        return res

    async def _send(self, info: CardInfo, args: dict[str, Any], ctx: CallContext, envelope: dict) -> Any:
        import asyncio

        from a2a import types as a2a
        from a2a.client import ClientCallContext, ClientConfig, ClientFactory

        parts = [a2a.Part(text=args["request"])]
        plan = args.get("plan")
        if isinstance(plan, str):
            plan = orjson.loads(plan)
        if plan is not None:
            part = a2a.Part(media_type="application/json")
            part.data.struct_value.update({"plan": plan})
            parts.append(part)
        msg = a2a.Message(
            message_id=uuid.uuid4().hex,
            role=a2a.Role.ROLE_USER,
            context_id=envelope["conversation_id"],
            parts=parts,
        )
        meta = {ENVELOPE_KEY: envelope, "tao.runtime/request-id": ctx.request_id}
        if ctx.idempotency_key:
            meta["tao.runtime/idempotency-key"] = ctx.idempotency_key
        msg.metadata.update(meta)
        headers = {"X-Request-ID": ctx.request_id}
        if envelope.get("trace_id"):
            headers["traceparent"] = f"00-{envelope['trace_id']}-{uuid.uuid4().hex[:16]}-01"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=self._client())).create(info.card)
        call = ClientCallContext(service_parameters=headers, timeout=ctx.timeout_s)
        last = None
        async with asyncio.timeout(ctx.timeout_s):
            async for ev in client.send_message(a2a.SendMessageRequest(message=msg), context=call):
                last = ev
        return last

    def _result(self, ev: Any, spec: ToolSpec) -> tuple[dict[str, Any], int]:
        from a2a import types as a2a
        from google.protobuf.json_format import MessageToDict

        out: dict[str, Any] = {"agent": spec.name, "answer": {}, "blackboard_writes": {}}
        if ev is None or not ev.HasField("task"):
            text = (
                "".join(p.text for p in ev.message.parts) if ev is not None and ev.HasField("message") else ""
            )
            out.update(task_id="", state="message", status="success" if text else "failed", message=text)
            return out, 200 if text else 502
        task = ev.task
        state = a2a.TaskState.Name(task.status.state).removeprefix("TASK_STATE_").lower()
        out.update(task_id=task.id, conversation_id=task.context_id, state=state, status=state, message="")
        for art in task.artifacts:
            for p in art.parts:
                if p.HasField("data"):
                    data = struct_ints(MessageToDict(p.data))
                    if isinstance(data, dict) and "status" in data:
                        out.update(
                            {
                                k: data[k]
                                for k in (
                                    "status",
                                    "error_type",
                                    "message",
                                    "answer",
                                    "trace_id",
                                    "blackboard_writes",
                                )
                                if k in data
                            }
                        )
        if state == "completed":
            return out, 200 if out.get("status") == "success" else 422
        if state == "failed":
            return out, 503 if out.get("error_type") in _TRANSIENT else 422
        return out, 409  # rejected, input/auth required, canceled: the remote did not do it

    def _map_exc(self, spec: ToolSpec, ctx: CallContext, t0: float, exc: Exception) -> ActionResult:
        from a2a.client import A2AClientError, A2AClientTimeoutError
        from a2a.utils.errors import A2AError

        if isinstance(exc, A2AClientTimeoutError | httpx.TimeoutException):
            return _fail(spec, ctx, t0, ErrorType.TOOL_TIMEOUT, f"A2A call timed out: {exc}", retry=True)
        cause = exc.__cause__
        if isinstance(exc, A2AClientError) and isinstance(cause, httpx.HTTPError):
            exc = cause  # the SDK wraps HTTP and network failures: judge by what happened
        if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code in (401, 403):
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_CLIENT_ERROR,
                f"A2A agent refused our credentials (HTTP {exc.response.status_code}; TAO_A2A_API_KEY)",
            )
        if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code < 500:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_CLIENT_ERROR,
                f"A2A agent answered HTTP {exc.response.status_code}",
            )
        if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code >= 500:
            return _fail(
                spec,
                ctx,
                t0,
                ErrorType.TOOL_TRANSIENT,
                f"A2A agent answered {exc.response.status_code}",
                retry=True,
            )
        if isinstance(exc, httpx.TransportError | ConnectionError | OSError):
            return _fail(spec, ctx, t0, ErrorType.TOOL_TRANSIENT, f"A2A agent unreachable: {exc}", retry=True)
        if isinstance(exc, A2AError):
            data = exc.data or {}
            info = ErrorInfo(
                error_type=ErrorType.TOOL_CLIENT_ERROR,
                message=f"A2A agent refused the message ({type(exc).__name__}): {exc.message}",
                field=data.get("field") or None,
                expected=data.get("expected") or None,
                received=data.get("received") or None,
            )
            return ActionResult(
                tool=spec.name,
                step_id=ctx.step_id,
                status_code=400,
                response_time_ms=round((time.perf_counter() - t0) * 1000, 3),
                error_info=info,
            )
        return _fail(
            spec,
            ctx,
            t0,
            ErrorType.TOOL_TRANSIENT,
            f"A2A call failed: {type(exc).__name__}: {exc}",
            retry=True,
        )

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None


def _fail(
    spec: ToolSpec, ctx: CallContext, t0: float, et: ErrorType, msg: str, exc: Any = None, retry: bool = False
) -> ActionResult:
    return ActionResult(
        tool=spec.name,
        step_id=ctx.step_id,
        response_time_ms=round((time.perf_counter() - t0) * 1000, 3),
        error_info=ErrorInfo(
            error_type=et,
            message=msg,
            expected=getattr(exc, "expected", None),
            received=getattr(exc, "received", None),
            retryable=retry,
        ),
    )
