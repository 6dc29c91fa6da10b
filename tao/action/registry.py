"""ToolRegistry: tool contracts plus how to call them (Python callables or HTTP).

Register an in-process tool with :meth:`ToolRegistry.register` (a sync or async callable that
takes the arguments as keywords) or build the contract from pydantic models with
:meth:`ToolRegistry.function`; register HTTP tools with :meth:`ToolRegistry.register_http`.
:meth:`export` returns the contracts as JSON (for training data and ``GET /v1/tools``).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tao.action.http_tools import CallContext, HttpToolConfig, HttpToolPool
from tao.action.normalize import from_value
from tao.contracts import ActionResult, ErrorInfo, ErrorType, ToolSpec

Transport = Callable[[ToolSpec, dict[str, Any], CallContext], Awaitable[ActionResult]]


class ToolError(Exception):
    """Raise from a Python tool to report a typed failure (e.g. a 4xx-like client error)."""

    def __init__(self, error_type: ErrorType, message: str, status_code: int = 400) -> None:
        super().__init__(message)
        self.error_type, self.message, self.status_code = error_type, message, status_code


@dataclass
class RegisteredTool:
    spec: ToolSpec
    transport: Transport
    kind: str  # "python" | "http" | "mcp" | "a2a"


CURRENT_CALL: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar("tao_call", default=None)
"""The :class:`CallContext` of the Python tool call running now (ids, ``idempotency_key``)."""


def _takes_key(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "idempotency_key" in params


def _python_transport(fn: Callable[..., Any]) -> Transport:
    """A Python tool gets its idempotency key as the ``idempotency_key`` keyword when it declares
    that parameter (``None`` for idempotent tools), and always through :data:`CURRENT_CALL`."""
    is_async = inspect.iscoroutinefunction(fn)
    takes_key = _takes_key(fn)

    async def call(spec: ToolSpec, args: dict[str, Any], ctx: CallContext) -> ActionResult:
        t0 = time.perf_counter()
        kwargs = dict(args, idempotency_key=ctx.idempotency_key) if takes_key else args
        token = CURRENT_CALL.set(ctx)
        try:
            value = await fn(**kwargs) if is_async else await asyncio.to_thread(fn, **kwargs)
        except ToolError as exc:
            return ActionResult(
                tool=spec.name,
                step_id=ctx.step_id,
                status_code=exc.status_code,
                response_time_ms=(time.perf_counter() - t0) * 1000,
                error_info=ErrorInfo(
                    error_type=exc.error_type,
                    message=exc.message,
                    retryable=exc.error_type in (ErrorType.TOOL_TRANSIENT, ErrorType.TOOL_TIMEOUT),
                ),
            )
        except (ConnectionError, TimeoutError, OSError) as exc:
            return ActionResult(
                tool=spec.name,
                step_id=ctx.step_id,
                status_code=503,
                response_time_ms=(time.perf_counter() - t0) * 1000,
                error_info=ErrorInfo(
                    error_type=ErrorType.TOOL_TRANSIENT,
                    retryable=True,
                    message=f"{type(exc).__name__}: {exc}",
                ),
            )
        except Exception as exc:  # a tool bug is reported, never raised into the loop
            return ActionResult(
                tool=spec.name,
                step_id=ctx.step_id,
                status_code=500,
                response_time_ms=(time.perf_counter() - t0) * 1000,
                error_info=ErrorInfo(
                    error_type=ErrorType.TOOL_TRANSIENT,
                    retryable=True,
                    message=f"tool raised {type(exc).__name__}: {exc}",
                ),
            )
        finally:
            CURRENT_CALL.reset(token)
        return from_value(spec.name, ctx.step_id, value, (time.perf_counter() - t0) * 1000)

    return call


class ToolRegistry:
    """Name → (contract, transport)."""

    def __init__(self) -> None:
        self._tools: dict[str, RegisteredTool] = {}
        self._schemas: dict[str, dict[str, Any]] | None = None  # args_schemas(), until a register
        self._pools: list[Any] = []  # HttpToolPool / McpConnection: things to aclose()

    def register(self, spec: ToolSpec, fn: Callable[..., Any]) -> ToolSpec:
        """Register an in-process tool; ``fn(**arguments)`` may be sync (run in a thread) or async."""
        self._tools[spec.name] = RegisteredTool(spec, _python_transport(fn), "python")
        self._schemas = None
        return spec

    def function(
        self,
        *,
        name: str,
        description: str,
        args_model: type[BaseModel],
        response_model: type[BaseModel] | None = None,
        **kw: Any,
    ) -> Callable[[Callable], Callable]:
        """Decorator: register a Python function with a contract built from pydantic models."""

        def deco(fn: Callable) -> Callable:
            spec = ToolSpec.from_models(
                name=name, description=description, args_model=args_model, response_model=response_model, **kw
            )
            self.register(spec, fn)
            return fn

        return deco

    def register_http(self, specs: Iterable[ToolSpec], base_url: str, **pool_kw: Any) -> HttpToolPool:
        """Register HTTP tools served at ``{base_url}/tools/{name}`` (one pooled client per tool)."""
        pool = HttpToolPool(HttpToolConfig(base_url=base_url, **pool_kw))
        self._pools.append(pool)
        for spec in specs:
            self._tools[spec.name] = RegisteredTool(spec, pool.call, "http")
            self._schemas = None
        return pool

    def register_mcp(self, specs: Iterable[ToolSpec], ref: str) -> Any:
        """Register tools called through the MCP server ``ref`` (``mcp+stdio:…`` / ``mcp+http(s)://…``):
        one session for all of them, closed by :meth:`aclose`."""
        from tao.action.mcp_tools import McpConnection, McpSource

        conn = McpConnection(McpSource.parse(ref))
        self._pools.append(conn)  # type: ignore[arg-type]  # anything with aclose()
        for spec in specs:
            self._tools[spec.name] = RegisteredTool(spec, conn.call, "mcp")
            self._schemas = None
        return conn

    def register_a2a(self, specs: Iterable[ToolSpec], ref: str) -> Any:
        """Register tools called through the remote A2A agent ``ref`` (``a2a+http(s)://HOST:PORT``):
        one connection (an HTTP client, the shared card cache), closed by :meth:`aclose`."""
        from tao.action.a2a_tools import A2AConnection, AgentSource

        conn = A2AConnection(AgentSource.parse(ref))
        self._pools.append(conn)
        for spec in specs:
            self._tools[spec.name] = RegisteredTool(spec, conn.call, "a2a")
            self._schemas = None
        return conn

    async def aconnect(self) -> None:
        """Open the sessions of session-based transports (MCP) now, in the running loop, so the
        first call's timeout is not spent starting a server."""
        for pool in self._pools:
            connect = getattr(pool, "session", None)
            if connect is not None:
                try:
                    await connect()
                except ConnectionError:
                    pass  # the first call reports it as a transient tool error

    def get(self, name: str) -> RegisteredTool | None:
        return self._tools.get(name)

    def spec(self, name: str) -> ToolSpec | None:
        t = self._tools.get(name)
        return t.spec if t else None

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools.values()]

    def args_schemas(self) -> dict[str, dict[str, Any]]:
        """{name: args JSON Schema}, the input of the Rust plan checker. Built once and shared
        until the next ``register*`` (every plan reads it): read it, never change it."""
        if self._schemas is None:
            self._schemas = {n: t.spec.args_schema for n, t in self._tools.items()}
        return self._schemas

    def export(self) -> list[dict[str, Any]]:
        """The contracts as JSON (training data generation, ``GET /v1/tools``)."""
        return [dict(t.spec.model_dump(mode="json"), transport=t.kind) for t in self._tools.values()]

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()
