"""Helpers of the action-layer / loop tests (imported by the test modules and conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tao.action.executor import ExecutorConfig, ToolExecutor
from tao.action.registry import ToolRegistry
from tao.contracts import SessionState
from tao.domains.reference.registry import reference_tools
from tao.loop.loop import LoopConfig, TaoLoop
from tao.loop.planner import ReplayPlanner
from tao.trace.trajectory import MemorySink

DATA = Path(__file__).resolve().parent / "data"
DEMO_NOW = "2026-11-15T10:00:00+08:00"


def make_executor(url: str, *, timeout_s: float | None = 0.5, **kw: Any) -> ToolExecutor:
    reg = ToolRegistry()
    reg.register_http(reference_tools(), url)
    kw.setdefault("jitter_s", (0.005, 0.02))
    return ToolExecutor(reg, ExecutorConfig(timeout_override_s=timeout_s, **kw))


def make_loop(executor: ToolExecutor, plans: Any, **kw: Any) -> tuple[TaoLoop, MemorySink]:
    sink = MemorySink()
    kw.setdefault("retry_jitter_s", (0.005, 0.02))
    tracer = kw.pop("tracer", None)
    sinks = [sink, *kw.pop("sinks", [])]
    store = kw.pop("session_store", None)
    loop = TaoLoop(
        ReplayPlanner(plans),
        executor,
        config=LoopConfig(**kw),
        sinks=sinks,
        tracer=tracer,
        session_store=store,
    )
    return loop, sink


def demo_session(**kw: Any) -> SessionState:
    from datetime import datetime

    kw.setdefault("user_id", "U00000001")
    return SessionState(now=datetime.fromisoformat(DEMO_NOW), **kw)


def plan(*steps: tuple, intent: str = "test_plan") -> dict[str, Any]:
    """plan(("t1", "tool", {args}), ("t2", "tool", {args}, ["t1"]))"""
    out = []
    for s in steps:
        sid, tool, args = s[:3]
        out.append(
            {
                "step_id": sid,
                "tool": tool,
                "arguments": args,
                "dependencies": list(s[3]) if len(s) > 3 else [],
            }
        )
    return {"version": "1.0", "intent": intent, "steps": out}


def load_jsonl(name: str) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()
    ]
