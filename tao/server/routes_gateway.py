"""OpenAI-compatible gateway: ``POST /v1/chat/completions`` (plain and streaming), ``GET /v1/models``,
``GET /v1/models/{id}`` and ``GET /v1/router/status``.

Per request: estimate → token-second admission (429 + ``Retry-After`` when the bucket says
wait) → pick a model → forward with httpx → read ``usage`` → ``Router.record``. Upstream 429,
5xx, timeouts and connection errors cool the model down and the next model of the chain is
tried (at most ``RouterConfig.max_attempts``); a streaming response is committed to its model
once the first byte is sent. Each try has its own timeout (``TAO_UPSTREAM_TIMEOUT_S``, default
half the request timeout), cut to what is left of the request's timeout, so a hung upstream
leaves time for a fallback. A model named in ``model`` is never silently substituted: only the
``fallbacks`` its profile declares may answer for it (``X-TAO-Model`` names the model that
answered, ``X-TAO-Fallback-From`` the first choice when another one did). Every tried model
rate-limited → 429 ``upstream_rate_limited`` with the soonest ``Retry-After``; all at their
concurrency limit → 503 ``model_busy``; all timed out → 504 ``upstream_timeout``; else 502. The
per-model in-flight count is released in ``finally`` (cancelled and timed-out requests too).

What the official ``openai`` SDK relies on: the upstream is always asked for
``stream_options.include_usage`` (the bucket settles on real counts), but the final ``choices: []``
usage chunk reaches the client only when the client asked for it itself (else
``chunk.choices[0]`` raises in every ordinary streaming loop); errors carry OpenAI's
``{"error": {"message", "type", "param", "code"}}``; an upstream that refuses the gateway's own
credentials (401/403) is a 502 ``upstream_auth_failed``, never a 401 that reads like the client's
key was wrong.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from router import Decision, Router, RouterConfig, RouterError, build_router
from router.forward import Forwarder, UpstreamReply
from router.metrics import UPSTREAM_TOKENS
from tao.server.body import parse_json_object
from tao.server.config import ServerConfig
from tao.server.errors import ApiError

ROUTER_HINTS = ("task_type", "memory", "tool_results", "max_latency_s")

try:  # the serving middleware's request id (generated when the client sent none)
    from tao.server.routes_core import REQUEST_ID as _REQUEST_ID
except ImportError:  # gateway mounted without the core middleware
    import contextvars

    _REQUEST_ID = contextvars.ContextVar("tao_request_id_fallback")


@dataclass
class GatewayState:
    router: Router
    forwarder: Forwarder
    config: RouterConfig
    inflight: dict[str, int] = field(default_factory=dict)
    request_timeout_s: float | None = None  # the server's per-request timeout: every try ends before it


class _Slot:
    """One request's place in a model's in-flight count; :meth:`release` is idempotent and is
    called from ``finally`` (a cancelled or timed-out request gives its place back)."""

    __slots__ = ("model", "released", "state")

    def __init__(self, state: GatewayState, model: str) -> None:
        self.state, self.model, self.released = state, model, False
        state.inflight[model] = state.inflight.get(model, 0) + 1

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.state.inflight[self.model] -= 1


@dataclass(frozen=True)
class _Failure:
    model: str
    kind: str  # a router record status (rate_limited, timeout, ...) or "busy" (concurrency limit)
    error: str
    retry_after_s: float | None = None


def _retry_header(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(seconds))) if math.isfinite(seconds) else "60"}


def _parse_body(raw: bytes) -> dict[str, Any]:
    body = parse_json_object(raw)  # the shared input policy (UTF-8, syntax, duplicate keys)
    if not isinstance(body.get("stream", False), bool):
        raise ApiError(400, "invalid_request", "'stream' must be a boolean", field="/stream")
    opts = body.get("stream_options")
    if opts is not None and not isinstance(opts, dict):
        raise ApiError(400, "invalid_request", "'stream_options' must be an object", field="/stream_options")
    return body


def _wants_usage(body: dict[str, Any]) -> bool:
    opts = body.get("stream_options")
    return isinstance(opts, dict) and opts.get("include_usage") is True


def _upstream_body(body: dict[str, Any], decision: Decision, state: GatewayState) -> dict[str, Any]:
    out = {k: v for k, v in body.items() if k not in ROUTER_HINTS}
    assert decision.model is not None  # only a decision for a model is forwarded
    profile = state.router.profiles[decision.model]
    out["model"] = profile.upstream_model or profile.name
    if out.get("stream"):
        out["stream_options"] = {**(out.get("stream_options") or {}), "include_usage": True}
    return out


def _usage_numbers(usage: Any, decision: Decision, fallback_out: float) -> tuple[float, float]:
    """(total tokens, output tokens) from an OpenAI ``usage`` object, else from what we saw."""
    if isinstance(usage, dict):
        out = float(usage.get("completion_tokens") or 0)
        total = float(usage.get("total_tokens") or (float(usage.get("prompt_tokens") or 0) + out))
        return total, out
    return decision.input_tokens + fallback_out, fallback_out


def _route_headers(decision: Decision, first_choice: str | None = None) -> dict[str, str]:
    """``X-TAO-Model``: the model that answered; ``X-TAO-Fallback-From``: the first choice when
    another model answered for it."""
    out = {
        "x-tao-model": decision.model or "",
        "x-tao-route-reason": decision.reason,
        "x-tao-predicted-tokens": str(int(decision.predicted_tokens)),
    }
    if first_choice and first_choice != decision.model:
        out["x-tao-fallback-from"] = first_choice
    return out


async def _decide(state: GatewayState, body: dict, tenant: str, tried: set[str]) -> Decision:
    try:
        return await state.router.aroute(body, tenant=tenant, exclude=tried)
    except RouterError as exc:
        raise ApiError(exc.status, exc.type, exc.message, field=exc.field) from None


async def _stream(
    state: GatewayState,
    decision: Decision,
    reply: UpstreamReply,
    t0: float,
    client_usage: bool = True,
    slot: _Slot | None = None,
):
    """Relay the upstream's SSE lines. The usage-only chunk (``choices: []``) is read for the
    bucket and passed on only when the client asked for ``include_usage`` itself."""
    resp = reply.response
    assert resp is not None  # an ok streaming reply carries its open response
    usage, chunks, status = None, 0, "ok"
    skip_blank = False
    try:
        async for line in resp.aiter_lines():
            if skip_blank and not line:
                skip_blank = False
                continue
            skip_blank = False
            if line.startswith("data:") and not line.startswith("data: [DONE]"):
                if '"usage"' in line:
                    try:
                        chunk = orjson.loads(line[5:])
                    except orjson.JSONDecodeError:
                        chunk = None
                    if isinstance(chunk, dict):
                        usage = chunk.get("usage") or usage
                        if not client_usage and not chunk.get("choices"):
                            skip_blank = True  # drop the event and its blank terminator line
                            continue
                chunks += 1
            yield (line + "\n").encode()
    except httpx.TimeoutException:
        status = "timeout"
    except httpx.HTTPError:
        status = "server_error"
    finally:
        if slot is not None:
            slot.release()
        await asyncio.shield(_finish_stream(state, decision, resp, usage, chunks, status, t0))


async def _finish_stream(state, decision, resp, usage, chunks, status, t0) -> None:
    await resp.aclose()
    total, out = _usage_numbers(usage, decision, max(0, chunks - 2))
    await state.router.arecord(decision, total, time.perf_counter() - t0, status, output_tokens=out)
    UPSTREAM_TOKENS.labels(decision.model, "completion").inc(out)


def _try_budget(state: GatewayState, started: float) -> float:
    """Seconds the next try may take: the per-try timeout, cut to what is left of the request's
    own timeout (less a small margin, so the gateway answers before the server's 504)."""
    per_try = state.forwarder.timeout_s
    if not state.request_timeout_s:
        return per_try
    margin = min(0.1, 0.1 * state.request_timeout_s)
    return min(per_try, state.request_timeout_s - margin - (time.perf_counter() - started))


def _failed(state: GatewayState, failures: list[_Failure], tried: set[str]) -> ApiError:
    """The error for a request every tried model failed: all rate-limited → 429 with the soonest
    Retry-After; all at their concurrency limit → 503; all timed out → 504; else 502."""
    kinds = {f.kind for f in failures}
    extra: dict[str, Any] = {"tried": sorted(tried)}
    detail = "; ".join(f"{f.model}: {f.error}" for f in failures)
    if kinds == {"rate_limited"}:
        waits = [f.retry_after_s or state.router.cooldowns.remaining(f.model) for f in failures]
        wait = min((w for w in waits if w > 0), default=1.0)
        extra["retry_after_s"] = round(wait, 3)
        return ApiError(
            429,
            "upstream_rate_limited",
            "every tried model is rate limited: " + detail,
            headers=_retry_header(wait),
            extra=extra,
        )
    if kinds == {"busy"}:
        return ApiError(
            503,
            "model_busy",
            "every tried model is at its concurrency limit: " + detail,
            headers=_retry_header(1.0),
            extra=extra,
        )
    if kinds == {"timeout"}:
        return ApiError(504, "upstream_timeout", "every tried model timed out: " + detail, extra=extra)
    return ApiError(502, "upstream_unavailable", "all tried models failed: " + detail, extra=extra)


def _cooling(state: GatewayState, wait: float) -> ApiError:
    """Nothing to try: every fitting model cools down (429 when all of them for rate limits)."""
    cooling = state.router.cooldowns.snapshot()
    if cooling and all(state.router.cooldowns.status(m) == "rate_limited" for m in cooling):
        return ApiError(
            429,
            "upstream_rate_limited",
            "every fitting model is cooling down after upstream rate limits",
            headers=_retry_header(wait),
            extra={"retry_after_s": round(wait, 3) if math.isfinite(wait) else None},
        )
    return ApiError(
        503,
        "no_model_available",
        "every fitting model is cooling down after upstream errors",
        headers=_retry_header(wait),
    )


async def chat_completions(request: Request) -> Response:
    """Route, admit and forward one chat completion; fall back along the decision's chain (for an
    explicitly named model: only the fallbacks its profile declares)."""
    started = time.perf_counter()
    state: GatewayState = request.app.state.gateway
    body = _parse_body(await request.body())
    tenant = getattr(request.state, "tenant", None) or request.headers.get("x-tenant-id") or "default"
    request_id = request.headers.get("x-request-id") or _REQUEST_ID.get(None)
    tried: set[str] = set()
    failures: list[_Failure] = []
    first_choice: str | None = None
    wait = 0.0
    for _ in range(max(1, state.config.max_attempts)):
        decision = await _decide(state, body, tenant, tried)
        wait = decision.retry_after_s
        if decision.model is None:
            break
        if not decision.admitted:
            raise ApiError(
                429,
                "rate_limited",
                f"token-second budget exhausted; retry in {decision.retry_after_s:.2f}s",
                headers=_retry_header(decision.retry_after_s),
                extra={"retry_after_s": round(decision.retry_after_s, 3), "model": decision.model},
            )
        profile = state.router.profiles[decision.model]
        first_choice = first_choice or profile.name
        if state.inflight.get(profile.name, 0) >= profile.concurrency:
            await state.router.arecord(decision, 0, 0, "skipped")  # refund; try the next model
            tried.add(profile.name)
            failures.append(_Failure(profile.name, "busy", f"concurrency limit {profile.concurrency}"))
            continue
        budget = _try_budget(state, started)
        if budget <= 0:  # the request's own timeout is (almost) spent: answer now, typed
            await state.router.arecord(decision, 0, 0, "skipped")
            failures.append(_Failure(profile.name, "timeout", "no time left in the request's timeout"))
            break
        reply = await _forward(request, state, decision, body, request_id, budget, first_choice)
        if isinstance(reply, Response):
            return reply
        tried.add(profile.name)
        failures.append(_Failure(profile.name, reply.status, reply.error, reply.retry_after_s))
    if failures:
        raise _failed(state, failures, tried)
    raise _cooling(state, wait)


async def _forward(
    request: Request,
    state: GatewayState,
    decision: Decision,
    body: dict[str, Any],
    request_id: str | None,
    budget: float,
    first_choice: str | None,
) -> Response | UpstreamReply:
    """One try at ``decision.model``: its answer (a response), or the failed reply to fall back
    from. Raises for what no fallback fixes (the upstream refused our key or the request)."""
    assert decision.model is not None
    profile = state.router.profiles[decision.model]
    slot = _Slot(state, profile.name)
    stream = bool(body.get("stream"))
    try:
        t0 = time.perf_counter()
        reply = await state.forwarder.send(
            profile,
            _upstream_body(body, decision, state),
            stream=stream,
            request_id=request_id,
            timeout_s=budget,
        )
        if reply.status == "ok" and stream:
            resp = StreamingResponse(
                _stream(state, decision, reply, t0, _wants_usage(body), slot),
                media_type="text/event-stream",
                headers=_route_headers(decision, first_choice),
            )
            slot = None  # the stream owns it now (released in its finally)
            return resp
    finally:
        if slot is not None:
            slot.release()
    if reply.status == "ok":
        total, out = _usage_numbers((reply.data or {}).get("usage"), decision, decision.output_tokens)
        await state.router.arecord(decision, total, reply.seconds, "ok", output_tokens=out)
        UPSTREAM_TOKENS.labels(profile.name, "completion").inc(out)
        return Response(
            reply.body, media_type="application/json", headers=_route_headers(decision, first_choice)
        )
    await state.router.arecord(decision, 0, reply.seconds, reply.status, retry_after_s=reply.retry_after_s)
    if reply.http_status in (401, 403):  # the upstream refused *our* credentials: not the client's fault
        raise ApiError(
            502,
            "upstream_auth_failed",
            f"upstream {profile.name!r} refused the gateway's credentials (HTTP {reply.http_status}); "
            f"check {profile.api_key_env or 'the profile api_key_env'}",
            extra={"model": profile.name, "upstream_status": reply.http_status},
        )
    if reply.status == "client_error":  # the upstream rejected the request itself: no fallback
        err = (reply.data or {}).get("error")
        msg = err.get("message") if isinstance(err, dict) else None
        raise ApiError(
            reply.http_status, "upstream_rejected", msg or reply.error, extra={"model": profile.name}
        )
    return reply


def per_try_timeout(rcfg: RouterConfig, request_timeout_s: float) -> float:
    """The per-try upstream timeout: ``TAO_UPSTREAM_TIMEOUT_S`` when set, else half the request
    timeout; never more than 90 % of it, so a hung upstream leaves time for a fallback."""
    explicit = rcfg.upstream_timeout_s if os.environ.get("TAO_UPSTREAM_TIMEOUT_S") else None
    return min(explicit if explicit is not None else request_timeout_s / 2, 0.9 * request_timeout_s)


def register(app: FastAPI, config: ServerConfig) -> None:
    """Build the router from ``config`` (+ ``TAO_ROUTER_*``) and add the gateway routes."""
    rcfg = RouterConfig.from_env(profiles_path=config.router_config, redis_url=config.redis_url)
    state = GatewayState(
        build_router(rcfg),
        Forwarder(per_try_timeout(rcfg, config.request_timeout_s)),
        rcfg,
        request_timeout_s=config.request_timeout_s,
    )
    app.state.gateway = state
    own = {f"{h}:{config.port}" for h in (config.host, "127.0.0.1", "localhost", "0.0.0.0")}
    for p in state.router.profiles.values():
        netloc = httpx.URL(p.endpoint).netloc.decode()
        if netloc in own:  # every request routed there would call this gateway again
            logging.getLogger("tao.server.gateway").warning(
                "model profile %r points at this gateway itself (%s); requests routed to it loop",
                p.name,
                p.endpoint,
            )

    previous = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[Any]:
        async with previous(app_) as inner:
            yield inner
        await app_.state.gateway.forwarder.aclose()
        await app_.state.gateway.router.aclose()

    app.router.lifespan_context = lifespan
    app.add_api_route(
        "/v1/chat/completions",
        chat_completions,
        methods=["POST"],
        tags=["gateway"],
        summary="OpenAI-compatible chat completions, routed and admitted by token-seconds",
    )

    def model_object(p) -> dict[str, Any]:
        return {
            "id": p.name,
            "object": "model",
            "created": 0,
            "owned_by": "tao-router",
            "profile": p.to_dict(),
        }

    async def list_models(request: Request) -> Response:
        router = request.app.state.gateway.router
        data = [model_object(p) for p in router.profiles.values()]
        return Response(orjson.dumps({"object": "list", "data": data}), media_type="application/json")

    async def retrieve_model(request: Request, model_id: str) -> Response:
        profile = request.app.state.gateway.router.profiles.get(model_id)
        if profile is None:
            raise ApiError(404, "model_not_found", f"the model {model_id!r} does not exist", field="model")
        return Response(orjson.dumps(model_object(profile)), media_type="application/json")

    async def router_status(request: Request) -> Response:
        router = request.app.state.gateway.router
        buckets = {
            t: {
                "degraded": bool(getattr(b, "degraded", False)),
                "capacity": b.config.capacity,
                "window_s": b.config.window_s,
            }
            for t, b in router.buckets().items()
        }
        return Response(
            orjson.dumps(
                {
                    "cooldowns": router.cooldowns.snapshot(),
                    "buckets": buckets,
                    "inflight": request.app.state.gateway.inflight,
                }
            ),
            media_type="application/json",
        )

    app.add_api_route(
        "/v1/models", list_models, methods=["GET"], tags=["gateway"], summary="routable model profiles"
    )
    app.add_api_route(
        "/v1/models/{model_id:path}",
        retrieve_model,
        methods=["GET"],
        tags=["gateway"],
        summary="one routable model profile (OpenAI's model object)",
    )
    app.add_api_route(
        "/v1/router/status",
        router_status,
        methods=["GET"],
        tags=["gateway"],
        summary="cooldowns, bucket degraded flags, in-flight counts",
    )
