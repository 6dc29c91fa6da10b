"""The routing rules added for requests nobody tuned to: the bilingual lexicon's concepts and the
registry-derived rows, the explicit "none of these" class, widening on a low margin, and the
intersection of the routed subset with the tools the plan model knows (in the loop, over the real
mock service of the 41 tools)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from loop_stand_ins import WEATHER_PLAN, KnowingPlanner, events_of, session_at

from tao.contracts import EventKind
from tao.domains.combined import parts
from tao.loop.intent import PlanningConfig, RouteBranch
from tao.loop.intent.corpus import Split, domain_rows
from tao.loop.intent.features import Masker
from tao.loop.intent.generated import card_rows, negative_rows
from tao.loop.intent.lexicon import CONCEPTS, concepts_of
from tao.loop.planner import EnginePlanner

REFERENCE_ONLY = frozenset(t.name for t in parts()[0].tools)  # the default checkpoint's 22 tools


# ------------------------------------------------------------------ lexicon and generated rows
def test_every_concept_is_a_word_of_the_registrys_own_texts(combined) -> None:
    texts = " ".join(
        [t.name.replace("_", " ") + " " + t.description for t in combined.tools]
        + [str(a).replace("_", " ") for t in combined.tools for a in t.args_schema.get("properties", {})]
    ).lower()
    missing = [c for c in CONCEPTS if not re.search(rf"\b{c}", texts)]
    assert missing == []


def test_concepts_are_shared_across_languages_and_scripts(combined) -> None:
    m = Masker(combined.lexicon)
    assert "leave" in concepts_of(m("how many vacation days do I have left")) and "leave" in concepts_of(
        m("我还剩几天年假")
    )
    # traditional characters and full-width digits are normalized first (OpenCC t2s)
    assert m("員工號Ｅ１００２３３的密碼過期了") == m("员工号E100233的密码过期了")
    assert {"employee", "password"} <= set(concepts_of(m("員工號E100233的密碼過期了")))
    # an id is evidence of its group; a city the gazetteer knows is a slot
    assert "trip" in concepts_of(m("what about TRP-123456")) and "slot_city" in m("weather in Hangzhou")


def test_generated_negatives_never_collide_with_in_scope_rows() -> None:
    neg = {r.text.lower() for r in negative_rows(parts())}
    inscope = {r.text.lower() for r in domain_rows(parts(), Split.TRAIN) if r.tools}
    assert len(neg) > 300 and not neg & inscope
    # a verb resembling one the noun's tools offer is never generated as out of scope
    assert not any(
        # cancel_order, cancel_leave_request, cancel_trip (a hotel booking, 酒店订单, has no cancel tool)
        re.search(
            r"(delete|remove|删除|删掉).*((?<!hotel )order|(?<!酒店)订单|leave request|请假单|trip|出差)", t
        )
        for t in neg
    )
    assert any("delete" in t and "account" in t for t in neg)


def test_each_tool_has_card_rows_in_both_languages() -> None:
    rows = [r for p in parts() for r in card_rows(p)]
    for lang in ("en", "zh"):
        assert {next(iter(r.tools)) for r in rows if r.lang == lang} == {
            t.name for p in parts() for t in p.tools
        }


# ------------------------------------------------------------------ the "none of these" class
@pytest.mark.parametrize(
    "text", ["delete my account", "注销我的账号", "what is the capital of Canada", "上海有多少人口"]
)
def test_the_none_class_sends_actions_no_tool_offers_to_the_fallback(combined_router, text) -> None:
    d = combined_router.route(text)
    assert d.branch is RouteBranch.FALLBACK and d.tools == (), d.record()
    assert d.record()["none"] is not None


def test_the_none_rule_can_overrule_a_confident_tool_only_within_its_lead(combined_router) -> None:
    text = "帮我看看明天北京的天气怎么样"
    d = combined_router.route(text)
    assert d.routed and d.none is not None and d.none < combined_router.config.none_threshold
    old = combined_router.config
    try:
        combined_router.config = replace(old, none_threshold=0.0, none_lead=-1.0)
        assert combined_router.route(text).branch is RouteBranch.FALLBACK
        # the calibrated lead: "none" far below a confident tool never overrules it
        combined_router.config = replace(old, none_threshold=0.0, none_lead=-0.4)
        assert combined_router.route(text).routed
    finally:
        combined_router.config = old


# ------------------------------------------------------------------ widening on a low margin
def test_a_low_margin_widens_the_subset_instead_of_cutting_it(combined_router) -> None:
    text = "list what I submitted"  # several groups fit about equally
    old = combined_router.config
    try:
        combined_router.config = replace(
            old, widen_margin=0.0, threshold=0.0, none_threshold=1.0, none_lead=1.0
        )
        narrow = combined_router.route(text)
        combined_router.config = replace(
            old, widen_margin=1.0, widen_top=5, threshold=0.0, none_threshold=1.0, none_lead=1.0
        )
        wide = combined_router.route(text)
    finally:
        combined_router.config = old
    assert not narrow.widened and wide.widened and wide.record()["widened"] is True
    assert set(narrow.groups) <= set(wide.groups) and len(wide.groups) > len(narrow.groups)
    top_groups = {
        next(t.domain for t in combined_router.domain.tools if t.name == n) for n, _ in wide.scores[:5]
    }
    assert top_groups <= set(wide.groups)


# ------------------------------------------------------------------ the plan model's own tools
async def test_the_routed_subset_is_intersected_with_the_plan_models_tools(stack) -> None:
    planner = KnowingPlanner(REFERENCE_ONLY, WEATHER_PLAN)
    rep = await stack(planner).run("帮我看看明天北京的天气怎么样", session_at())
    assert rep.status == "success"
    (call,) = planner.calls
    assert call["strict"] is True and "get_weather" in call["tools"] and set(call["tools"]) <= REFERENCE_ONLY
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert decision["tools"] == call["tools"]


async def test_a_request_routed_outside_the_models_tools_gets_the_rule_plan_not_tool_unknown(stack) -> None:
    planner = KnowingPlanner(REFERENCE_ONLY, WEATHER_PLAN)
    rep = await stack(planner).run("我还剩几天年假？我的员工号是E100000", session_at())
    assert planner.calls == []  # never asked to plan with tools it does not know
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert decision["path"] == "fallback_planner" and "outside" in decision["reason"]
    assert "get_leave_balance" in decision["outside_model"]
    assert [s.tool for s in rep.steps] == ["get_leave_balance"], rep.message
    assert rep.status == "success", rep.message


async def test_without_the_fallback_planner_it_is_a_typed_tool_unknown(stack) -> None:
    cfg = PlanningConfig()
    cfg = replace(cfg, fallback_planner=replace(cfg.fallback_planner, enabled=False))
    planner = KnowingPlanner(REFERENCE_ONLY, WEATHER_PLAN)
    rep = await stack(planner, cfg).run("我还剩几天年假？我的员工号是E100000", session_at())
    assert planner.calls == [] and rep.status == "failed" and rep.error_type == "TOOL_UNKNOWN"
    assert "not in the plan model's registry" in rep.message
    assert events_of(rep, EventKind.PLANNING_DECISION)[0]["path"] == "unknown_tools"


async def test_a_planner_that_knows_every_tool_keeps_the_whole_subset(stack) -> None:
    planner = KnowingPlanner(None, WEATHER_PLAN)
    rep = await stack(planner).run("帮我看看明天北京的天气怎么样", session_at())
    (decision,) = events_of(rep, EventKind.PLANNING_DECISION)
    assert "outside_model" not in decision and decision["tools"] == planner.calls[0]["tools"]


def test_the_engine_planner_reports_its_checkpoints_tools() -> None:
    from types import SimpleNamespace

    from tao.domains.combined import registry

    assert EnginePlanner(SimpleNamespace()).known_tools is None  # no codec: unknown
    ref = EnginePlanner(SimpleNamespace(codec=SimpleNamespace(domain=None))).known_tools
    assert ref == REFERENCE_ONLY  # the codecs' default domain
    full = EnginePlanner(
        SimpleNamespace(codec=SimpleNamespace(domain=registry())), tools=["get_trip", "nope"]
    )
    assert full.known_tools == frozenset({"get_trip"})
