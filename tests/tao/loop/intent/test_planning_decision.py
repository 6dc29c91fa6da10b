"""The planning decision point in the loop, over a real mock service serving the 41 tools:
the routed subset reaches the planner, the fallback branch asks instead of guessing, bypass and
urgency rules, the rule-based fallback planner after two failed plans; each decision recorded."""

from __future__ import annotations

from dataclasses import replace

from loop_stand_ins import WEATHER_PLAN, ScriptedPlanner, events_of, session_at

from tao.contracts import EventKind
from tao.loop.intent import PlanningConfig
from tao.loop.intent.decision import DecisionPoint, PlanPath


async def test_the_routed_subset_restricts_the_planners_grammar_and_is_recorded(stack) -> None:
    planner = ScriptedPlanner(WEATHER_PLAN)
    rep = await stack(planner).run("帮我看看明天北京的天气怎么样", session_at())
    assert rep.status == "success"
    (call,) = planner.calls
    assert call["strict"] is True and "get_weather" in call["tools"] and len(call["tools"]) < 41
    (routing,) = events_of(rep, EventKind.ROUTING)
    assert routing["branch"] == "classifier" and routing["best"][0] == "get_weather"
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert decision["path"] == "plan" and decision["tools"] == call["tools"]


async def test_an_out_of_scope_request_asks_instead_of_forcing_an_intent(stack) -> None:
    planner = ScriptedPlanner(WEATHER_PLAN)
    rep = await stack(planner).run("给我讲个笑话吧", session_at())
    assert rep.status == "needs_user" and rep.error_type == "INSUFFICIENT_CONTEXT"
    assert rep.required_fields == ["intent"] and planner.calls == [] and rep.steps == []
    assert events_of(rep, EventKind.ROUTING)[0]["branch"] == "fallback"
    assert events_of(rep, EventKind.PLANNING_DECISION)[0]["path"] == "clarify"


async def test_the_general_fallback_plans_with_the_whole_registry(stack) -> None:
    from tao.loop.intent import FallbackBranch

    cfg = PlanningConfig()
    cfg = replace(cfg, routing=replace(cfg.routing, fallback=FallbackBranch.GENERAL))
    planner = ScriptedPlanner(WEATHER_PLAN)
    rep = await stack(planner, cfg).run("给我讲个笑话吧", session_at())
    assert rep.status == "success" and len(planner.calls) == 1
    assert planner.calls[0]["strict"] is False and len(planner.calls[0]["tools"]) == 41


async def test_an_input_beyond_the_token_bound_skips_planning_with_a_typed_answer(stack) -> None:
    planner = ScriptedPlanner(WEATHER_PLAN)
    rep = await stack(planner).run("查一下北京的天气。" + "这是很长的背景说明。" * 80, session_at())
    assert rep.status == "failed" and rep.error_type == "BUDGET_EXHAUSTED" and "not planned" in rep.message
    assert planner.calls == [] and events_of(rep, EventKind.ROUTING) == []  # not even routed
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert decision["path"] == "bypass" and decision["tokens"] > 400


async def test_urgency_with_one_clear_tool_takes_the_direct_single_step_path(stack) -> None:
    planner = ScriptedPlanner("never asked")
    rep = await stack(planner).run("马上告诉我上海明天的天气，别想太多", session_at())
    assert rep.status == "success" and planner.calls == []
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert decision["path"] == "direct" and decision["urgency"] == "马上"
    assert [s.tool for s in rep.steps] == ["get_weather"]
    assert rep.plan is not None and rep.plan["steps"][0]["arguments"]["city"] == "上海"


async def test_urgency_without_one_clear_tool_plans_normally(stack) -> None:
    planner = ScriptedPlanner(WEATHER_PLAN)
    rep = await stack(planner).run(
        "马上查一下明天北京的天气，然后帮我请假 2026-05-06到2026-05-08", session_at()
    )
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert decision["path"] == "plan" and decision["urgency"] == "马上" and len(planner.calls) == 1


async def test_the_rule_based_planner_takes_over_after_two_failed_plans(stack) -> None:
    planner = ScriptedPlanner("not json", {"version": "1.0", "intent": "x", "steps": []})
    rep = await stack(planner).run("帮我看看明天北京的天气怎么样", session_at())
    assert len(planner.calls) == 2 and rep.status == "success"
    decisions = events_of(rep, EventKind.PLANNING_DECISION)
    assert [d["path"] for d in decisions] == ["plan", "fallback_planner"]
    assert decisions[1]["rule_plan"]["steps"][0]["tool"] == "get_weather"
    assert rep.steps[0].tool == "get_weather" and rep.steps[0].status == "ok"


async def test_the_fallback_planner_ends_insufficient_context_when_a_required_slot_misses(stack) -> None:
    planner = ScriptedPlanner("not json")
    rep = await stack(planner).run("show me the itinerary of my business trip", session_at())
    assert len(planner.calls) == 2
    assert rep.status == "needs_user" and rep.error_type == "INSUFFICIENT_CONTEXT"
    assert rep.required_fields == ["trip_id"]
    assert events_of(rep, EventKind.PLANNING_DECISION)[-1]["path"] == "fallback_planner"


async def test_without_a_fallback_planner_two_failures_stay_a_failure(stack) -> None:
    cfg = PlanningConfig()
    cfg = replace(cfg, fallback_planner=replace(cfg.fallback_planner, enabled=False))
    planner = ScriptedPlanner("not json")
    rep = await stack(planner, cfg).run("帮我看看明天北京的天气怎么样", session_at())
    assert rep.status == "failed" and rep.error_type == "LLM_OUTPUT_MALFORMED" and len(planner.calls) == 2


async def test_a_plan_longer_than_max_steps_is_refused_and_replanned(stack) -> None:
    two = {
        "version": "1.0",
        "intent": "weather",
        "steps": [
            {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京"}, "dependencies": []},
            {"step_id": "t2", "tool": "get_weather", "arguments": {"city": "上海"}, "dependencies": []},
        ],
    }
    cfg = replace(PlanningConfig(), max_steps=1)
    planner = ScriptedPlanner(two, WEATHER_PLAN)
    rep = await stack(planner, cfg).run("帮我看看明天北京的天气怎么样", session_at())
    assert len(planner.calls) == 2 and rep.status == "success" and len(rep.steps) == 1
    (err,) = events_of(rep, EventKind.ERROR)
    assert err["error_type"] == "PLAN_INVALID" and "max_steps is 1" in err["errors"][0]
    rep = await stack(ScriptedPlanner(two), replace(PlanningConfig(), max_steps=2)).run(
        "帮我看看明天北京的天气怎么样", session_at()
    )
    assert rep.status == "success" and len(rep.steps) == 2


def test_the_direct_path_needs_the_threshold_and_the_margin(combined, combined_router) -> None:
    dp = DecisionPoint(combined, PlanningConfig(), combined_router)
    d = dp.before("right now: weather in Paris tomorrow", session_at())
    assert d.path is PlanPath.DIRECT and d.urgency == "right now"
    cfg = PlanningConfig()
    cfg = replace(cfg, bypass=replace(cfg.bypass, urgency_margin=1.0))
    d2 = DecisionPoint(combined, cfg, combined_router).before(
        "right now: weather in Paris tomorrow", session_at()
    )
    assert d2.path is PlanPath.PLAN and d2.urgency == "right now"


async def test_the_runtime_wires_the_decision_point_from_its_config(combined) -> None:
    from tao.loop.runtime import Runtime, RuntimeConfig

    rt = Runtime(RuntimeConfig(planning=PlanningConfig()), domain=combined)
    try:
        assert rt.decision is not None and rt.decision.router is not None
        planner = ScriptedPlanner(WEATHER_PLAN)
        rep = await rt.loop(planner).run("帮我看看明天北京的天气怎么样", session_at())
        assert rep.status == "success" and planner.calls[0]["strict"] is True
        assert events_of(rep, EventKind.ROUTING) and events_of(rep, EventKind.PLANNING_DECISION)
    finally:
        await rt.aclose()
    plain = Runtime(RuntimeConfig(), domain=combined)
    try:
        assert plain.decision is None  # off unless configured
    finally:
        await plain.aclose()
