"""The intent router on the 41-tool registry: rules, classifier subsets, multi-intent requests,
the threshold and its fallback branch, and a small registry fit at start-up."""

from __future__ import annotations

import pytest

from tao.contracts.domain import RequestExample
from tao.domains import load_domain
from tao.loop.intent import FallbackBranch, IntentRouter, RouteBranch, RouterConfig
from tao.loop.intent.corpus import IntentRow, Split, domain_rows
from tao.loop.intent.router import NONE, split_clauses


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("订单123456789012345678到哪了", "get_logistics"),
        ("帮我看下明天深圳的天气", "get_weather"),
        ("my laptop AT-12345 is broken, I need a replacement", "request_device_replacement"),
        ("how many days of annual leave do I still have", "get_leave_balance"),
        ("给我查一下TCK-123456这个工单的进度", "get_ticket"),
        ("search hotels in Hangzhou from 2026-05-06 for two nights", "search_hotels"),
    ],
)
def test_a_clear_request_routes_to_a_small_subset_with_its_tool(combined_router, text, tool) -> None:
    d = combined_router.route(text)
    assert d.branch in (RouteBranch.CLASSIFIER, RouteBranch.RULE)
    assert tool in d.tools and len(d.tools) <= 16 < 41
    assert d.best is not None and d.best[1] >= combined_router.config.threshold


def test_a_tool_named_in_the_request_is_a_rule_decision(combined_router) -> None:
    d = combined_router.route("please run get_payslip for E104233 month 2026-03")
    assert d.branch is RouteBranch.RULE and d.rule == "tool_named" and d.tools[0] == "get_payslip"


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("查一下明天北京的天气，然后帮我申请年假 2026-05-06到2026-05-08", {"get_weather", "request_leave"}),
        ("reset my VPN password and then show my leave balance", {"reset_password", "get_leave_balance"}),
        ("订单123456789012345678的物流，另外查下TRP-123456的行程", {"get_logistics", "get_trip"}),
    ],
)
def test_a_multi_intent_request_keeps_every_asks_tool(combined_router, text, tools) -> None:
    d = combined_router.route(text)
    assert d.routed and tools <= set(d.tools), d.record()
    assert d.clauses >= 2


@pytest.mark.parametrize(
    "text",
    [
        "给我讲个笑话",
        "how do I bake sourdough bread",
        "帮我写一首关于秋天的诗",
        "who won the football match yesterday",
    ],
)
def test_an_out_of_scope_request_takes_the_fallback_branch(combined_router, text) -> None:
    d = combined_router.route(text)
    assert d.branch is RouteBranch.FALLBACK and d.tools == () and d.fallback is FallbackBranch.CLARIFY
    rec = d.record()
    assert rec["branch"] == "fallback" and rec["best"] is not None  # the closest intent is recorded


def test_the_threshold_decides_the_branch_not_the_nearest_intent(combined) -> None:
    strict = IntentRouter.build(
        combined, RouterConfig(threshold=0.999, max_iter=30), rows=_tiny_rows(), parts=[combined]
    )
    d = strict.route("show my leave balance please")
    assert d.branch is RouteBranch.FALLBACK and d.best is not None and d.best[0] == "get_leave_balance"
    general = IntentRouter.build(
        combined,
        RouterConfig(threshold=0.999, fallback=FallbackBranch.GENERAL, max_iter=30),
        rows=_tiny_rows(),
        parts=[combined],
    )
    assert general.route("show my leave balance please").fallback is FallbackBranch.GENERAL


def _tiny_rows() -> list[IntentRow]:
    texts = {
        "get_leave_balance": ["my leave balance", "how many leave days left", "我还剩几天假"],
        "get_weather": ["weather in Paris", "明天北京天气", "is it raining in Rome"],
        "get_trip": ["trip TRP-123456 itinerary", "行程TRP-654321", "status of trip TRP-111111"],
    }
    rows = [IntentRow(t, "en", frozenset({tool})) for tool, ts in texts.items() for t in ts]
    return [*rows, IntentRow("tell me a joke", "en", frozenset()), IntentRow("讲个笑话", "zh", frozenset())]


def test_a_small_registry_fits_at_start_up_in_seconds() -> None:
    helpdesk = load_domain("tao.domains.helpdesk:registry")
    r = IntentRouter.build(helpdesk, RouterConfig(max_iter=60))
    assert r.fit_s < 60 and set(r.model.classes) == {*helpdesk.tool_names(), NONE}  # + "none of these"
    d = r.route("my VPN password expired, reset it")
    assert d.routed and "reset_password" in d.tools
    # chains teach producers: a ticket read by an employee's name needs find_employee too
    assert "find_employee" in r.producers.get("list_tickets", set())


def test_the_shipped_model_is_used_only_when_its_fingerprint_matches(
    combined, combined_router, tmp_path
) -> None:
    import shutil
    from pathlib import Path

    assert combined_router.loaded_from is not None  # the fitted file matches the combined registry
    copy = tmp_path / "router.npz"
    shutil.copy(combined_router.loaded_from, copy)
    before = copy.read_bytes()
    other = load_domain("tao.domains.helpdesk:registry")
    stale = IntentRouter.build(other, RouterConfig(max_iter=20, model_path=str(copy)))
    assert stale.loaded_from is None  # another registry's fingerprint: refit, never misused
    assert copy.read_bytes() == before  # ... and never overwritten
    fresh = tmp_path / "helpdesk.npz"
    IntentRouter.build(other, RouterConfig(max_iter=20, model_path=str(fresh)))
    again = IntentRouter.build(other, RouterConfig(max_iter=20, model_path=str(fresh)))
    assert again.loaded_from == str(fresh) and Path(fresh).exists()


def test_held_out_rows_never_appear_in_training(combined) -> None:
    from tao.domains.combined import parts

    train = {r.text for r in domain_rows(parts(), Split.TRAIN)}
    held = [r for r in domain_rows(parts(), Split.HELDOUT) if r.source in ("example", "out_of_scope")]
    assert held and not [r.text for r in held if r.text in train]


def test_clauses_split_at_connectives_only() -> None:
    assert split_clauses("查一下天气，然后订会议室") == ["查一下天气", "订会议室"]
    assert split_clauses("check the weather and then book a room") == ["check the weather", "book a room"]
    assert split_clauses("show my leave balance") == ["show my leave balance"]


def test_example_requests_are_rules(combined_router, combined) -> None:
    ex: RequestExample = next(e for e in combined.examples if e.steps[0][0] == "cancel_trip")
    d = combined_router.route(ex.text)
    assert d.branch is RouteBranch.RULE and d.rule == "example" and "cancel_trip" in d.tools
