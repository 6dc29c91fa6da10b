"""MCP tools: an MCP server's tools as :class:`ToolSpec` contracts, called through an MCP session.

Refs (``--registry`` / ``TAO_REGISTRY``, through :func:`tao.domains.load_domain`)::

    mcp+stdio:python my_server.py --flag      # launch the command, talk JSON-RPC over its stdio
    mcp+http://127.0.0.1:8000/mcp             # streamable HTTP (also mcp+https://)

Mapping (docs/protocols.md has the table): ``inputSchema`` -> ``args_schema`` (checked before any
call, like every tool), ``outputSchema`` -> ``response_schema`` (checked on every observation);
annotations -> permission and idempotency, with the MCP defaults when a hint is absent
(``readOnlyHint`` false, ``destructiveHint`` true, ``idempotentHint`` false):

* ``readOnlyHint: true``                     -> ``read``, idempotent (retried on transient errors)
* not read-only, ``destructiveHint: false``  -> ``write`` (``idempotent`` = ``idempotentHint``)
* not read-only, destructive (or no hints)   -> ``high_risk``: never runs without approval, unless
  ``overrides`` (``{tool: "read" | "write" | "high_risk"}``, ``TAO_MCP_PERMISSIONS`` as
  ``name=perm,…``) says otherwise.

Hints are the server's word, not a proof; what the runtime enforces is the resulting contract.
Calls go through one session per source, opened lazily in the event loop that uses it and held by
one background task (anyio scopes stay in the task that entered them). ``_meta`` carries the
request id, thought id and idempotency key (``tao.runtime/…``). A tool result with ``isError`` is a
client error (no retry); a lost session is transient (retried for idempotent tools, breaker counts).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from tao.action.http_tools import CallContext
from tao.action.normalize import from_http
from tao.contracts import ActionResult, ErrorInfo, ErrorType, Permission, ToolSpec
from tao.contracts.domain import Domain

SCHEMES = ("mcp+stdio:", "mcp+http://", "mcp+https://")
META = "tao.runtime"
_NAME = re.compile(r"[^a-z0-9_]+")


class McpRefError(ValueError):
    """A ``mcp+…`` ref that names no command or URL."""


@dataclass(frozen=True)
class McpSource:
    """Where an MCP server is: a command (stdio) or a URL (streamable HTTP)."""

    ref: str
    command: tuple[str, ...] = ()
    url: str | None = None

    @classmethod
    def parse(cls, ref: str) -> McpSource:
        if ref.startswith("mcp+stdio:"):
            argv = tuple(shlex.split(ref[len("mcp+stdio:") :]))
            if not argv:
                raise McpRefError(f"{ref!r}: mcp+stdio: needs a command")
            return cls(ref, command=argv)
        if ref.startswith(("mcp+http://", "mcp+https://")):
            return cls(ref, url=ref[len("mcp+") :])
        raise McpRefError(f"{ref!r}: expected mcp+stdio:COMMAND or mcp+http(s)://HOST/PATH")

    def client(self, timeout_s: float | None = None):
        from mcp import Client, StdioServerParameters

        if self.url is not None:
            return Client(self.url, read_timeout_seconds=timeout_s)
        cmd, *args = self.command
        if cmd in ("python", "python3"):  # the same interpreter (and venv) as the runtime
            cmd = sys.executable
        env = {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "VIRTUAL_ENV")}
        return Client(
            StdioServerParameters(command=cmd, args=args, env=env or None), read_timeout_seconds=timeout_s
        )


def tool_name(mcp_name: str) -> str:
    """An MCP tool name as a ToolSpec name (``^[a-z][a-z0-9_]{1,63}$``)."""
    n = _NAME.sub("_", mcp_name.lower()).strip("_") or "tool"
    if not n[0].isalpha():
        n = "t_" + n
    return (n + "_")[:64] if len(n) < 2 else n[:64]


def permission_of(annotations: Any, override: str | None = None) -> tuple[Permission, bool]:
    """(permission, idempotent) from MCP tool annotations (see the module docstring)."""
    get = (lambda k: getattr(annotations, k, None)) if annotations is not None else (lambda k: None)
    read_only = get("read_only_hint") is True
    destructive = get("destructive_hint") is not False  # MCP default: true
    idempotent = True if read_only else get("idempotent_hint") is True
    if override:
        return Permission(override), idempotent
    if read_only:
        return Permission.READ, True
    return (Permission.HIGH_RISK if destructive else Permission.WRITE), idempotent


def _overrides_from_env() -> dict[str, str]:
    raw = os.environ.get("TAO_MCP_PERMISSIONS", "")
    pairs = (p.split("=", 1) for p in raw.split(",") if "=" in p)
    return {k.strip(): v.strip() for k, v in pairs}


def spec_of(tool: Any, server: str, override: str | None = None) -> ToolSpec:
    """One MCP ``Tool`` as a contract."""
    perm, idem = permission_of(tool.annotations, override)
    title = getattr(tool.annotations, "title", None) if tool.annotations else None
    out: dict[str, Any] = dict(tool.output_schema or {})
    raw_props = out.get("properties")
    props: dict[str, Any] = raw_props if isinstance(raw_props, dict) else {}
    return ToolSpec(
        name=tool_name(tool.name),
        description=tool.description or tool.title or title or tool.name,
        args_schema=dict(tool.input_schema or {"type": "object"}),
        response_schema=out,
        required_fields=[f"/{p}" for p in out.get("required") or [] if isinstance(p, str)],
        extract={p: f"/{p}" for p in props if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p)},
        permission=perm,
        idempotent=idem,
        retry_budget=2 if idem else 0,
        domain=f"mcp:{server}",
    )


async def alist_specs(
    source: McpSource, overrides: dict[str, str] | None = None, timeout_s: float = 30.0
) -> tuple[str, list[ToolSpec], dict[str, str]]:
    """(server name, contracts, contract name -> MCP tool name) of one MCP server."""
    overrides = {**_overrides_from_env(), **(overrides or {})}
    async with source.client(timeout_s) as c:
        info = c.server_info
        server = (info.name if info else None) or "mcp"
        tools, cursor = [], None
        while True:
            page = await c.list_tools(cursor=cursor) if cursor else await c.list_tools()
            tools.extend(page.tools)
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                break
    names: dict[str, str] = {}
    specs = []
    for t in tools:
        spec = spec_of(t, server, overrides.get(t.name) or overrides.get(tool_name(t.name)))
        if spec.name in names:
            raise McpRefError(f"{source.ref}: tools {names[spec.name]!r} and {t.name!r} map to one name")
        names[spec.name] = t.name
        specs.append(spec)
    return server, specs, names


def _run_sync(coro_fn, *args):
    """Run a coroutine to completion from sync code, also when an event loop is already running."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["v"] = asyncio.run(coro_fn(*args))
        except BaseException as exc:  # handed to the caller's thread
            out["e"] = exc

    import threading

    th = threading.Thread(target=target, name="tao-mcp-load")
    th.start()
    th.join()
    if "e" in out:
        raise out["e"]
    return out["v"]


def load_mcp_domain(ref: str) -> Domain:
    """The domain of an MCP server (the ``mcp+…`` loader of :func:`tao.domains.load_domain`)."""
    source = McpSource.parse(ref)
    server, specs, names = _run_sync(alist_specs, source)
    del names  # the connection maps names again from its own listing
    return Domain(name=f"mcp:{server}", tools=specs, ref=ref, transport=ref)


@dataclass
class McpConnection:
    """One MCP session held open by a background task; :meth:`call` is a registry transport."""

    source: McpSource
    names: dict[str, str] = field(default_factory=dict)  # contract name -> MCP tool name
    _client: Any = None
    _task: asyncio.Task | None = None
    _ready: asyncio.Event | None = None
    _stop: asyncio.Event | None = None
    _lock: asyncio.Lock | None = None
    _error: BaseException | None = None

    async def _hold(self) -> None:
        assert self._ready is not None and self._stop is not None
        try:
            async with self.source.client() as c:
                page = await c.list_tools()
                self.names.update(
                    {tool_name(t.name): t.name for t in page.tools if tool_name(t.name) not in self.names}
                )
                self._client = c
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # a session that cannot start or dies: calls see it
            self._error = exc
        finally:
            self._client = None
            self._ready.set()

    async def session(self):
        if self._client is not None:
            return self._client
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is None:
                if self._task is not None:  # the old session died: start over
                    with contextlib.suppress(BaseException):
                        await self._task
                self._ready, self._stop, self._error = asyncio.Event(), asyncio.Event(), None
                self._task = asyncio.create_task(self._hold(), name=f"mcp-session {self.source.ref}")
                await self._ready.wait()
            if self._client is None:
                raise ConnectionError(f"MCP session to {self.source.ref} failed: {self._error!r}")
        return self._client

    async def call(self, spec: ToolSpec, args: dict[str, Any], ctx: CallContext) -> ActionResult:
        t0 = time.perf_counter()
        meta = {f"{META}/request-id": ctx.request_id}
        if ctx.thought_id:
            meta[f"{META}/thought-id"] = ctx.thought_id
        if ctx.idempotency_key:
            meta[f"{META}/idempotency-key"] = ctx.idempotency_key
        try:
            client = await self.session()
            res = await client.call_tool(
                self.names.get(spec.name, spec.name), args, read_timeout_seconds=ctx.timeout_s, meta=meta
            )
        except TimeoutError:
            return _fail(spec, ctx, t0, ErrorType.TOOL_TIMEOUT, f"no MCP result within {ctx.timeout_s:.3f} s")
        except Exception as exc:  # session lost, server gone, protocol error: transient
            self._client = None
            return _fail(
                spec, ctx, t0, ErrorType.TOOL_TRANSIENT, f"MCP call failed: {type(exc).__name__}: {exc}"
            )
        elapsed = (time.perf_counter() - t0) * 1000
        text = "".join(getattr(b, "text", "") for b in res.content or [])
        if res.is_error:
            body = orjson.dumps({"error": text or "tool error"})
            return from_http(spec.name, ctx.step_id, 400, body, elapsed)
        if res.structured_content is not None:
            body = orjson.dumps(res.structured_content)
        else:
            try:
                orjson.loads(text)
                body = text.encode()
            except orjson.JSONDecodeError:
                body = orjson.dumps({"text": text})
        return from_http(spec.name, ctx.step_id, 200, body, elapsed)

    async def aclose(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._task, 10)
            self._task = None


def _fail(spec: ToolSpec, ctx: CallContext, t0: float, et: ErrorType, msg: str) -> ActionResult:
    return ActionResult(
        tool=spec.name,
        step_id=ctx.step_id,
        response_time_ms=round((time.perf_counter() - t0) * 1000, 3),
        error_info=ErrorInfo(error_type=et, message=msg, retryable=True),
    )
