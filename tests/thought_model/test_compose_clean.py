"""The composer's clean-up of the whole-request plan (compose.clean_plan) and the fragment rule for
clauses that only point back ("tell me where each stands")."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.compose import clean_plan

ME = "U12345678"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.step_id, s.tool, s.arguments, s.dependencies) for s in p.steps]


STRAY = _plan(
    {"tool": "find_user", "arguments": {"phone": "17207017893"}},
    {"tool": "list_orders", "arguments": {"user_id": "${t1.user_id}"}, "dependencies": ["t1"]},
    {"tool": "list_orders", "arguments": {"user_id": ME}},
    {"tool": "get_logistics", "arguments": {"order_id": "${t3.order_id}"}, "dependencies": ["t3"]},
)


def test_stray_session_user_chain_is_dropped_when_the_request_never_speaks_of_the_speaker() -> None:
    out = clean_plan(
        STRAY, ME, "track down the account tied to 17207017893 and run through its order history"
    )
    assert _rows(out) == [
        ("t1", "find_user", {"phone": "17207017893"}, []),
        ("t2", "list_orders", {"user_id": "${t1.user_id}"}, ["t1"]),
    ]


def test_kept_when_the_speaker_is_mentioned_or_no_one_else_is_served() -> None:
    for text in (
        "find the account tied to 17207017893 and my own orders",
        "查一下17207017893的用户和我的订单",
    ):
        assert clean_plan(STRAY, ME, text) is STRAY
    mine_only = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": "123456789012345678"}},
        {"tool": "list_orders", "arguments": {"user_id": ME, "period": "@last_month"}},
    )
    assert clean_plan(mine_only, ME, "订单123456789012345678的状态，再列一下上个月的订单") is mine_only
    assert clean_plan(STRAY, None, "track down the account tied to 17207017893") is STRAY


def test_repeated_steps_are_dropped_and_references_follow_the_kept_one() -> None:
    p = _plan(
        {
            "tool": "update_user_profile",
            "arguments": {"user_id": ME, "field": "phone", "value": "13912345678"},
        },
        {"tool": "update_user_profile", "arguments": {"user_id": ME, "field": "city", "value": "Xiamen"}},
        {
            "tool": "update_user_profile",
            "arguments": {"user_id": ME, "field": "phone", "value": "13912345678"},
        },
        {"tool": "get_user_profile", "arguments": {"user_id": "${t3.user_id}"}, "dependencies": ["t3"]},
    )
    out = clean_plan(p, ME, "change my phone to 13912345678 and my city to Xiamen")
    assert [s.arguments.get("field") for s in out.steps] == ["phone", "city", None]
    assert _rows(out)[2] == ("t3", "get_user_profile", {"user_id": "${t1.user_id}"}, ["t1"])
    assert clean_plan(out, ME, "x") is out  # nothing left to drop


def test_fragment_clause_pointing_back_adds_no_step() -> None:
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_compose import SESSION, dumped, plan, run, step  # the composer test's fake engine

    text = "dig out invoices INV1234567890 and INV2234567890, and tell me where each stands"
    both = plan(
        "multi_task", step("get_invoice", invoice_id="<INV1>"), step("get_invoice", invoice_id="<INV2>")
    )
    rules = [
        (["<INV1>", "<INV2>", "each stands"], both),
        (["<INV1>", "!<INV2>"], plan("query_invoice", step("get_invoice", invoice_id="<INV1>"))),
        (["<INV2>", "!<INV1>"], plan("query_invoice", step("get_invoice", invoice_id="<INV1>"))),
        (
            ["each stands"],
            plan(
                "my_latest_order_status",
                step("list_orders", user_id="<ME>"),
                step("get_order_status", order_id="${t1.order_id}"),
                deps={2: ["t1"]},
            ),
        ),
    ]
    res, _ = run(rules, text, session=SESSION)
    assert [s["tool"] for s in dumped(res)["steps"]] == ["get_invoice", "get_invoice"], json.dumps(
        dumped(res)
    )
