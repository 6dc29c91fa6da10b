"""``tao mcp``: the runtime as an MCP server (the official ``mcp`` SDK's low-level ``Server``).

    tao mcp [--transport stdio|http] [--host 127.0.0.1] [--port 8765] [--registry REF]
            [--checkpoint DIR] [--engine auto|cpu|vllm] [--no-model] [--tools-url URL]

Tools:

* ``plan`` {request, session?} -> a ThoughtPlan (or ``insufficient_context``) from the plan model;
* ``run`` {request, plan?, approve?, session?} -> the whole loop's report, as ``POST /v1/run``
  (high-risk tools only with ``approve``; the MCP client's word, never text inside tool results);
* ``observe`` {tool, result, expected?} -> the Rust observation check of one ActionResult;
* each **read-only** tool of the registry, under its own name: ``inputSchema`` = the contract's
  argument schema, ``outputSchema`` = its response schema (when an object schema), annotations
  ``readOnlyHint``/``idempotentHint``; called through the executor (argument check, timeout,
  retries, breaker) and observed; an invalid observation is an ``isError`` result.

Write and high-risk tools are not exposed one by one: they run only inside ``run``, under the
permission gate. Streamable HTTP serves at ``http://HOST:PORT/mcp``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import orjson

from tao.contracts import Permission, ToolSpec
from tao.server.config import ServerConfig

log = logging.getLogger("tao.mcp")

_SESSION = {"type": "object", "description": "SessionState (session_id, user_id, now, timezone, …)"}
CORE_TOOLS: dict[str, dict[str, Any]] = {
    "plan": {
        "description": "Plan a request with the runtime's plan model: a ThoughtPlan (steps of registry "
        "tools with arguments and dependencies) or insufficient_context with the missing fields. Calls no tool.",
        "schema": {
            "type": "object",
            "properties": {
                "request": {"type": "string", "minLength": 1, "maxLength": 4000},
                "session": _SESSION,
            },
            "required": ["request"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
    "run": {
        "description": "Run the whole Thought-Action-Observation loop for a request: plan (or replay the "
        "given plan), call the tools under their contracts, check every observation. High-risk tools run "
        "only when named in approve.",
        "schema": {
            "type": "object",
            "properties": {
                "request": {"type": "string", "minLength": 1, "maxLength": 4000},
                "plan": {"type": "object", "description": "a ThoughtPlan to replay (skips the model)"},
                "approve": {"type": "array", "items": {"type": "string"}, "maxItems": 64},
                "session": _SESSION,
            },
            "required": ["request"],
            "additionalProperties": False,
        },
        "read_only": False,
    },
    "observe": {
        "description": "Check one tool result (an ActionResult: status_code, response_time_ms, parsed_data, …) "
        "against the tool's contract: schema, rules, latency, extraction, confidence.",
        "schema": {
            "type": "object",
            "properties": {
                "tool": {"type": "string"},
                "result": {"type": "object"},
                "expected": {"type": "object"},
            },
            "required": ["tool", "result"],
            "additionalProperties": False,
        },
        "read_only": True,
    },
}


class McpRuntime:
    """The runtime behind the MCP tools, created lazily in the serving event loop."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.domain = config.domain(full=config.tools_url is None)
        self.runtime: Any = None
        self.engine: Any = None
        self._lock = asyncio.Lock()

    def read_tools(self) -> list[ToolSpec]:
        return [t for t in self.domain.tools if t.permission is Permission.READ and t.name not in CORE_TOOLS]

    async def get(self) -> Any:
        async with self._lock:
            if self.runtime is None:
                from tao.loop.runtime import Runtime, RuntimeConfig

                self.runtime = await asyncio.to_thread(
                    Runtime, RuntimeConfig(tools_url=self.config.tools_url), domain=self.domain
                )
                await self.runtime.registry.aconnect()
        return self.runtime

    async def get_engine(self) -> Any:
        if not self.config.load_model:
            raise RuntimeError("the plan model is not loaded (--no-model); pass a plan to `run`")
        async with self._lock:
            if self.engine is None:
                from tao.loop.runtime import load_plan_engine

                self.engine = await asyncio.to_thread(
                    load_plan_engine, self.config.checkpoint, self.config.engine, self.config.registry
                )
        return self.engine

    async def aclose(self) -> None:
        if self.runtime is not None:
            await self.runtime.aclose()
        if self.engine is not None and hasattr(self.engine, "close"):
            await asyncio.to_thread(self.engine.close)

    # --- tools ---------------------------------------------------------------------------------
    async def plan(self, args: dict[str, Any]) -> dict[str, Any]:
        from tao.contracts import SessionState
        from tao.loop.planner import EnginePlanner

        engine = await self.get_engine()
        session = SessionState.model_validate(args.get("session") or {})
        out = await EnginePlanner(engine).plan(args["request"], session)
        if out.error is not None:
            raise ValueError(out.error.message)
        return orjson.loads(orjson.dumps(out.output, default=_dump))

    async def run(self, args: dict[str, Any]) -> dict[str, Any]:
        from tao.action.permissions import approve_tools
        from tao.contracts import SessionState
        from tao.loop.planner import EnginePlanner, ReplayPlanner

        planner = ReplayPlanner(args["plan"]) if args.get("plan") else EnginePlanner(await self.get_engine())
        rt = await self.get()
        session = SessionState.model_validate(args["session"]) if args.get("session") else None
        report = await rt.loop(planner).run(
            args["request"], session, approver=approve_tools(args.get("approve") or [])
        )
        return orjson.loads(orjson.dumps(report.to_dict(), default=_dump))

    async def observe(self, args: dict[str, Any]) -> dict[str, Any]:
        from tao.contracts import ActionResult

        spec = self.domain.registry().get(args["tool"])
        if spec is None:
            raise ValueError(f"no tool named {args['tool']!r} in the registry")
        rt = await self.get()
        result = ActionResult.model_validate({"tool": spec.name, **args["result"]})
        return rt.observer.observe(spec, result, args.get("expected")).model_dump(mode="json")

    async def call_read_tool(self, spec: ToolSpec, args: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        from tao.action.executor import ExecContext

        rt = await self.get()
        res = await rt.executor.execute(spec.name, args, ExecContext())
        if res.error_info is not None:
            return {"error": res.error_info.model_dump(mode="json")}, True
        obs = rt.observer.observe(spec, res)
        if not obs.valid:
            return {
                "error": {"error_type": str(obs.error_type), "observation": obs.model_dump(mode="json")}
            }, True
        data = res.parsed_data
        return (data if isinstance(data, dict) else {"result": data}), False


def _dump(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return str(obj)


def build_server(rt: McpRuntime):
    """The low-level MCP ``Server`` whose handlers call ``rt``."""
    import mcp_types as types
    from mcp.server import Server

    read_tools = {t.name: t for t in rt.read_tools()}

    def tool_list() -> list[Any]:
        out = []
        for name, meta in CORE_TOOLS.items():
            ann = types.ToolAnnotations(
                read_only_hint=meta["read_only"], destructive_hint=not meta["read_only"], open_world_hint=True
            )
            out.append(
                types.Tool(
                    name=name, description=meta["description"], input_schema=meta["schema"], annotations=ann
                )
            )
        for spec in read_tools.values():
            schema = spec.response_schema if spec.response_schema.get("type") == "object" else None
            out.append(
                types.Tool(
                    name=spec.name,
                    description=spec.description,
                    input_schema=spec.args_schema or {"type": "object"},
                    output_schema=schema,
                    annotations=types.ToolAnnotations(
                        read_only_hint=True, idempotent_hint=True, open_world_hint=True
                    ),
                )
            )
        return out

    async def on_list_tools(ctx, params) -> Any:
        return types.ListToolsResult(tools=tool_list())

    async def on_call_tool(ctx, params) -> Any:
        name, args = params.name, dict(params.arguments or {})
        try:
            if name in CORE_TOOLS:
                data = await getattr(rt, name)(args)
                is_error = False
            elif name in read_tools:
                data, is_error = await rt.call_read_tool(read_tools[name], args)
            else:
                data, is_error = {"error": f"unknown tool {name!r}"}, True
        except Exception as exc:  # a typed tool error for the client, never a crashed session
            log.warning("mcp tool %s failed: %s", name, exc)
            data, is_error = {"error": f"{type(exc).__name__}: {exc}"}, True
        text = orjson.dumps(data).decode()
        structured = data if (not is_error and isinstance(data, dict)) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=structured,
            is_error=is_error,
        )

    return Server("tao-runtime", version="0.1.0", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tao mcp", description="serve the TAO Runtime as an MCP server")
    ap.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--registry", default=None, metavar="REF", help="tool domain (MODULE:ATTR or mcp+…)")
    ap.add_argument("--checkpoint", type=Path, default=None)
    ap.add_argument("--engine", choices=["auto", "cpu", "vllm"], default=None)
    ap.add_argument(
        "--tools-url", default=None, help="HTTP tool service (default: the domain's mock / MCP server)"
    )
    ap.add_argument("--no-model", action="store_true", help="do not load the plan model (`run` needs a plan)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level="WARNING", stream=sys.stderr)  # stdout is the stdio transport's
    cfg = ServerConfig.from_env(
        checkpoint=args.checkpoint, engine=args.engine, registry=args.registry, tools_url=args.tools_url
    )
    if args.no_model:
        cfg.load_model = False
    from tao.domains import DomainLoadError
    from thought_model.checkpoint import DomainMismatchError

    try:
        rt = McpRuntime(cfg)
    except (DomainLoadError, DomainMismatchError) as exc:
        print(f"tao mcp: {exc}", file=sys.stderr)
        return 2
    server = build_server(rt)
    if args.transport == "stdio":
        import anyio
        from mcp.server.stdio import stdio_server

        async def serve() -> None:
            try:
                async with stdio_server() as (read, write):
                    await server.run(read, write, server.create_initialization_options())
            finally:
                await rt.aclose()

        anyio.run(serve)
        return 0
    import uvicorn

    app = server.streamable_http_app(host=args.host)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
