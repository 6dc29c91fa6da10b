"""``POST /v1/plan``: request text + session + optional tool subset -> a checked ThoughtPlan.

The text is ``request`` (``text`` is its deprecated alias, :mod:`tao.server.request_text`).

The plan engine is loaded in a background thread at startup (``/readyz`` reports it); until it is
ready the endpoint answers 503. A session whose ``user_id`` breaks the domain's user-id rule is a
typed 422 (``invalid_user_id``) before any decoding. Every plan is resolved
(:func:`tao.loop.resolve.resolve_plan`: time symbols against the session, one step per day for
multi-day symbols on one-date arguments, the symbols kept in each step's ``resolved_from``),
stamped (``thought_id``, ``created_at``) and run through the loop's plan check
(:class:`tao.loop.plancheck.PlanValidator`, the Rust ``PlanChecker``) against the tool contracts
before it is returned; a malformed or unexecutable plan becomes a typed error, never a 200.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tao.contracts import ErrorType, InsufficientContext, SessionState
from tao.loop.plancheck import PlanValidator
from tao.loop.resolve import ResolveError, for_check, resolve_plan, user_id_checker
from tao.server import request_text
from tao.server.config import ServerConfig
from tao.server.errors import ApiError
from tao.server.metrics import DECODE_PROCESS, ENGINE_READY, PLAN_RESULTS, STAGE_LATENCY, record_plan_stats
from tao.server.routes_core import add_readiness

log = logging.getLogger("tao.server.plan")
MAX_TEXT_CHARS = 4000
_FORBIDDEN = {"\u2028": "U+2028 LINE SEPARATOR", "\u2029": "U+2029 PARAGRAPH SEPARATOR", "\x00": "NUL"}


class PlanBody(BaseModel):
    """Body of ``POST /v1/plan``."""

    model_config = ConfigDict(extra="forbid")

    request: str = Field(
        min_length=1, max_length=MAX_TEXT_CHARS, description="the user's request (deprecated alias: text)"
    )
    session: SessionState | None = None
    tools: list[str] | None = Field(default=None, min_length=1, description="tool subset (default: all)")
    deadline_ms: float | None = Field(default=None, gt=0, le=600_000, description="generation budget")


class EngineHolder:
    """Loads the engine off the event loop and exposes its state to ``/readyz``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config, self.engine, self.error = config, None, None
        self.loaded = False  # the model is loaded (the grammar warm-up may still run)
        self.warmup: dict[str, float] | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._load, name="plan-engine-loader", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        try:
            from thought_model.engine import load_engine
            from thought_model.engine.codec import GenericCodec

            codec = GenericCodec() if self.config.extra.get("codec") == "generic" else None
            t0 = time.perf_counter()
            cpu_config = None
            if self.config.decode_process:
                from thought_model.engine.cpu import CpuEngineConfig

                cpu_config = CpuEngineConfig(decode_process=True)
            engine = load_engine(
                self.config.engine,
                self.config.checkpoint,
                codec=codec,
                registry=self.config.registry,
                compose=self.config.compose,
                engine_url=self.config.engine_url,
                cpu_config=cpu_config,
            )
            self.loaded = True
            if self.config.grammar_warmup:  # ready only once the frequent grammars are compiled
                self.warmup = warm_grammars(engine, self.config.domain())
            self.engine = engine
            DECODE_PROCESS.set_engine(engine)
            ENGINE_READY.set(1)
            log.info(
                "plan engine %s loaded from %s in %.1fs",
                self.engine.name,
                self.config.checkpoint,
                time.perf_counter() - t0,
            )
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            log.error("plan engine failed to load: %s", self.error)

    def probe(self) -> tuple[bool, str]:
        if self.engine is not None:
            if not self.engine.ready:  # its decode process is restarting (rows answer 503 meanwhile)
                return False, f"restarting ({self.engine.name})"
            return True, f"loaded ({self.engine.name})"
        if not self.config.load_model:  # --no-model: never loading, so never "loading"
            return False, "disabled (--no-model)"
        if self.error:
            return False, f"failed: {self.error}"
        return False, "warming up grammars" if self.loaded else "loading"

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=60)
        if self.engine is not None:
            self.engine.close()


def warm_grammars(engine: Any, domain: Any) -> dict[str, float] | None:
    """Compile the grammars of the registry's frequent slot sets (:mod:`thought_model.warmup`) on
    an engine that caches them (``warm_up``); None for engines without one."""
    warm = getattr(engine, "warm_up", None)
    if not callable(warm):
        return None
    from thought_model.warmup import registry_slot_sets

    info = warm(registry_slot_sets(domain.tools, domain.lexicon))
    log.info("grammar warm-up: %s", info)
    return info if isinstance(info, dict) else None


def parse_json_body(raw: bytes) -> Any:
    """Decode a JSON body under the shared input policy (:mod:`tao.server.body`: invalid UTF-8,
    syntax errors and duplicate keys are typed 400s)."""
    from tao.server.body import parse_json

    return parse_json(raw)


_Body = TypeVar("_Body", bound=BaseModel)


def validate_body(model: type[_Body], data: Any) -> _Body:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = "/" + "/".join(str(p) for p in first.get("loc", ()))
        msg = str(first.get("msg", "invalid request"))
        if first.get("type") == "extra_forbidden" and first.get("loc"):
            msg = f"unknown field {str(first['loc'][-1])!r} at {loc}"
        raise ApiError(422, "invalid_request", msg, field=loc) from None


def _check_text(text: str, field: str = "/request") -> None:
    for ch, name in _FORBIDDEN.items():
        if ch in text:
            raise ApiError(400, "invalid_text", f"{field[1:]} contains {name}", field=field)
    if not text.strip():
        raise ApiError(422, "invalid_request", f"{field[1:]} is blank", field=field)


def _plan_body(raw: bytes) -> tuple[PlanBody, str]:
    """The body (``text`` accepted as the deprecated name of ``request``) and the name used."""
    data = parse_json_body(raw)
    used = request_text.take_alias(data, "/v1/plan")
    try:
        body = validate_body(PlanBody, data)
    except ApiError as exc:
        exc.field = request_text.pointer(exc.field, used)
        exc.message = exc.message.replace("/request", f"/{used}")
        raise
    _check_text(body.request, f"/{used}")
    return body, used


_ERROR_STATUS = {ErrorType.BUDGET_EXHAUSTED: 504, ErrorType.TOOL_UNKNOWN: 422}


def register(app: FastAPI, config: ServerConfig) -> None:
    holder = EngineHolder(config)
    validator = PlanValidator(config.domain().tools)
    served_tools = config.domain().tools
    check_user = user_id_checker(served_tools, config.domain().lexicon)
    app.state.plan_validator = validator  # the same checker the loop uses (agreement test)
    app.state.plan_engine = holder
    if config.load_model:
        add_readiness(app, "plan_engine", holder.probe)
    else:  # /readyz says what /v1/plan says: ready to serve, without a plan model
        add_readiness(app, "plan_engine", lambda: (True, "disabled (--no-model)"))
    prev = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[Any]:
        if config.load_model:
            holder.start()
        async with prev(app_) as state:
            yield state
        holder.close()

    app.router.lifespan_context = lifespan

    @app.post(
        "/v1/plan",
        tags=["plan"],
        summary="plan a request (schema-constrained, validated)",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": request_text.body_schema(
                            PlanBody.model_json_schema(ref_template="#/components/schemas/{model}")
                        )
                    }
                },
            }
        },
    )
    async def plan(request: Request) -> Response:
        from thought_model.engine.base import EngineUnavailableError, PlanRequest

        t0 = time.perf_counter()
        body, used = _plan_body(await request.body())
        if body.session is not None and body.session.user_id is not None:
            problem = check_user(body.session.user_id)
            if problem:  # before any decoding: the model would plan "my orders" for a bad id
                raise ApiError(422, "invalid_user_id", problem, field="/session/user_id")
        known = validator.tool_names
        for i, name in enumerate(body.tools or []):
            if name not in known:
                raise ApiError(422, "unknown_tool", f"unknown tool {name!r}", field=f"/tools/{i}")
        if holder.engine is None:
            if not config.load_model:
                raise ApiError(
                    503, "model_disabled", "the plan engine is disabled on this server (--no-model)"
                )
            raise ApiError(
                503, "model_not_ready", f"plan engine {holder.probe()[1]}", headers={"Retry-After": "1"}
            )
        STAGE_LATENCY.labels(endpoint="/v1/plan", stage="parse").observe(time.perf_counter() - t0)
        t1 = time.perf_counter()
        req = PlanRequest(
            text=body.request,
            session=body.session,
            tools=body.tools,
            deadline_s=body.deadline_ms / 1000.0 if body.deadline_ms else None,
        )
        try:
            result = await holder.engine.agenerate_one(req)
        except EngineUnavailableError as exc:  # the decode process is restarting: retry shortly
            PLAN_RESULTS.labels(outcome="engine_unavailable").inc()
            raise ApiError(503, "engine_unavailable", str(exc), headers={"Retry-After": "2"}) from None
        STAGE_LATENCY.labels(endpoint="/v1/plan", stage="decode").observe(time.perf_counter() - t1)
        st = result.stats
        record_plan_stats(st.prompt_tokens, st.generated_tokens, st.jump_forward_tokens, st.forward_passes)
        if result.error is not None:
            PLAN_RESULTS.labels(outcome=result.error.error_type.value).inc()
            raise ApiError(
                _ERROR_STATUS.get(result.error.error_type, 422),
                result.error.error_type.value.lower(),
                result.error.message,
                field=result.error.field,
                extra={"stats": st.as_dict()},
            )
        out: dict[str, Any] = {
            "plan": None,
            "insufficient": None,
            "stats": st.as_dict(),
            "engine": holder.engine.name,
        }
        output = result.output
        if isinstance(output, InsufficientContext):
            out["insufficient"] = output.model_dump(mode="json")
            PLAN_RESULTS.labels(outcome="insufficient_context").inc()
        else:
            t2 = time.perf_counter()
            try:  # the caller gets resolved arguments (symbols kept in resolved_from)
                assert output is not None  # no error, so a plan
                plan_obj = resolve_plan(output, body.session, served_tools).stamped()
            except ResolveError as exc:
                PLAN_RESULTS.labels(outcome="PLAN_INVALID").inc()
                raise ApiError(422, "plan_invalid", str(exc), field=exc.field) from None
            check = validator.check(for_check(plan_obj))  # the resolved values, against the schemas
            STAGE_LATENCY.labels(endpoint="/v1/plan", stage="check").observe(time.perf_counter() - t2)
            if not check["valid"]:
                PLAN_RESULTS.labels(outcome="PLAN_INVALID").inc()
                first = (check.get("errors") or [{}])[0]
                raise ApiError(
                    422,
                    "plan_invalid",
                    f"generated plan failed check_plan: {first.get('message', '')}",
                    field=first.get("path"),
                    extra={"errors": check.get("errors", [])[:10]},
                )
            out["plan"] = plan_obj.model_dump(mode="json")
            out["order"] = check.get("order")
            PLAN_RESULTS.labels(outcome="plan").inc()
        STAGE_LATENCY.labels(endpoint="/v1/plan", stage="total").observe(time.perf_counter() - t0)
        return request_text.mark(Response(orjson.dumps(out), media_type="application/json"), used)
