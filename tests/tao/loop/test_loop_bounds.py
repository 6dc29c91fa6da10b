"""Every loop is bounded: re-plans, corrections per step, tool calls per run, wall time."""

from __future__ import annotations

import time

from action_helpers import demo_session, make_executor, make_loop, plan

from tao.contracts import EventKind
from tao.loop.correction import CorrectionBudget


async def test_replans_are_bounded(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    loop, _ = make_loop(ex, ["not json"], max_replans=2)
    rep = await loop.run("x", demo_session())
    assert rep.status == "failed" and rep.error_type == "LLM_OUTPUT_MALFORMED" and loop.planner.calls == 3
    await ex.aclose()


async def test_corrections_per_step_are_bounded(mock_tools) -> None:
    ex = make_executor(mock_tools.url, max_retries=0)
    mock_tools.faults(error_rate=1.0, tools=["get_weather"])  # never recovers, no fallback
    loop, _ = make_loop(
        ex, plan(("t1", "get_weather", {"city": "北京"})), correction=CorrectionBudget(retries=2)
    )
    rep = await loop.run("x", demo_session())
    actions = [e.payload["action"] for e in rep.events if e.kind is EventKind.CORRECTION]
    assert actions == ["retry", "retry", "fail"] and rep.status == "failed"
    assert mock_tools.stats()["calls"]["get_weather"] == 3
    await ex.aclose()


async def test_tool_calls_per_run_are_bounded(mock_tools) -> None:
    ex = make_executor(mock_tools.url)
    steps = [(f"t{i}", "get_weather", {"city": c}) for i, c in enumerate(["北京", "上海", "广州", "深圳"], 1)]
    loop, _ = make_loop(ex, plan(*steps), max_tool_calls=2, max_concurrency=1)
    rep = await loop.run("x", demo_session())
    assert [s.status for s in rep.steps].count("ok") == 2 and rep.error_type == "BUDGET_EXHAUSTED"
    assert mock_tools.stats()["calls"]["get_weather"] == 2
    await ex.aclose()


async def test_wall_time_is_bounded_and_independent_steps_run_concurrently(mock_tools) -> None:
    ex = make_executor(mock_tools.url, timeout_s=5.0)
    mock_tools.faults(slow_rate=1.0, slow_s=0.4, tools=["get_weather"])
    steps = [(f"t{i}", "get_weather", {"city": c}) for i, c in enumerate(["北京", "上海", "广州", "深圳"], 1)]
    loop, _ = make_loop(ex, plan(*steps), max_concurrency=4)
    t = time.perf_counter()
    rep = await loop.run("x", demo_session())
    assert rep.status == "success" and time.perf_counter() - t < 1.45  # 4 × 0.4 s in parallel, not >= 1.6 s
    mock_tools.faults(slow_rate=1.0, slow_s=3.0, tools=["get_weather"])
    loop, _ = make_loop(ex, plan(*steps), wall_time_s=0.5)
    t = time.perf_counter()
    rep = await loop.run("x", demo_session())
    assert time.perf_counter() - t < 1.5
    assert rep.status == "failed" and rep.error_type == "BUDGET_EXHAUSTED"
    assert all(s.error_type == "BUDGET_EXHAUSTED" for s in rep.steps)
    await ex.aclose()
