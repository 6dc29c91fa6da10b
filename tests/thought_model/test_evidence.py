"""The evidence rule (thought_model.evidence): steps the request gives no word for and that no later
step needs are dropped; pass-through reads are bypassed; a list next to given ids is dropped."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.evidence import evidenced, prune_unasked

ME = "U55102938"
O1, O2 = "293847561029384756", "293847561029384757"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.tool, s.arguments, s.dependencies) for s in p.steps]


INVOICE = _plan(
    {"tool": "create_invoice", "arguments": {"order_id": O1, "title": "Acme Ltd"}},
    {"tool": "get_invoice", "arguments": {"invoice_id": "${t1.invoice_id}"}, "dependencies": ["t1"]},
)


def test_an_invoice_nobody_asked_to_see_is_dropped() -> None:
    slots = {"<ORDER1>": O1, "<TEXT1>": "Acme Ltd"}
    out = prune_unasked(INVOICE, f"Issue an invoice for order {O1} with the title Acme Ltd", slots)
    assert _rows(out) == [("create_invoice", {"order_id": O1, "title": "Acme Ltd"}, [])]
    for asked in (
        f"Issue an invoice for order {O1} titled Acme Ltd, then show me the invoice",
        f"给订单{O1}开张发票，抬头Acme Ltd，开完把票面信息核一遍",
    ):
        assert prune_unasked(INVOICE, asked, slots) is INVOICE


def test_a_status_read_between_the_list_and_the_act_is_bypassed() -> None:
    plan = _plan(
        {"tool": "list_orders", "arguments": {"user_id": ME, "status": "pending"}},
        {"tool": "get_order_status", "arguments": {"order_id": "${t1.order_id}"}, "dependencies": ["t1"]},
        {
            "tool": "cancel_order",
            "arguments": {"order_id": "${t2.order_id}", "reason": "duplicate"},
            "dependencies": ["t2"],
        },
    )
    out = prune_unasked(
        plan, "grab my newest pending order and cancel it, reason: duplicate", {"<TEXT1>": "duplicate"}
    )
    assert _rows(out) == [
        ("list_orders", {"user_id": ME, "status": "pending"}, []),
        ("cancel_order", {"order_id": "${t1.order_id}", "reason": "duplicate"}, ["t1"]),
    ]
    asked = "check the status of my newest order and cancel it, reason: duplicate"
    assert prune_unasked(plan, asked, {"<TEXT1>": "duplicate"}) is plan


def test_a_standalone_status_read_is_kept_without_status_words() -> None:
    plan = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O1}},
        {"tool": "get_weather", "arguments": {"city": "北京"}},
    )
    assert prune_unasked(plan, f"查下订单{O1}，再看看北京天气", {"<ORDER1>": O1, "<CITY1>": "北京"}) is plan


def test_a_step_on_a_value_of_its_own_is_kept_and_a_shared_one_needs_words() -> None:
    both = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O1}},
        {"tool": "get_order_invoice", "arguments": {"order_id": O1}},
    )
    slots = {"<ORDER1>": O1}
    assert _rows(prune_unasked(both, f"查下订单{O1}的状态", slots)) == [
        ("get_order_status", {"order_id": O1}, [])
    ]
    assert prune_unasked(both, f"查下订单{O1}的状态和发票", slots) is both
    own = _plan(
        {"tool": "get_weather", "arguments": {"city": "北京"}},
        {"tool": "get_order_invoice", "arguments": {"order_id": O1}},
    )
    assert prune_unasked(own, f"北京天气，还有{O1}", {"<CITY1>": "北京", **slots}) is own


def test_a_list_next_to_ids_it_would_find_is_dropped_unless_asked() -> None:
    plan = _plan(
        {"tool": "cancel_order", "arguments": {"order_id": O1, "reason": "x"}},
        {"tool": "cancel_order", "arguments": {"order_id": O2, "reason": "x"}},
        {"tool": "list_orders", "arguments": {"user_id": ME}},
    )
    slots = {"<ORDER1>": O1, "<ORDER2>": O2, "<TEXT1>": "x"}
    assert [s.tool for s in prune_unasked(plan, f"Cancel orders {O1} and {O2}, reason: x", slots).steps] == [
        "cancel_order",
        "cancel_order",
    ]
    asked = f"Cancel orders {O1} and {O2}, reason: x, and list my orders"
    assert prune_unasked(plan, asked, slots) is plan


def test_calendar_and_booking_need_their_words_and_a_plan_is_never_emptied() -> None:
    trip = _plan(
        {"tool": "list_calendar_events", "arguments": {"date": "2026-05-15"}},
        {"tool": "get_weather", "arguments": {"city": "西安", "date": "2026-05-15"}},
    )
    slots = {"<DATE1>": "2026-05-15", "<CITY1>": "西安"}
    assert [s.tool for s in prune_unasked(trip, "我周五去西安出差，那边天气怎么样", slots).steps] == [
        "get_weather"
    ]
    assert prune_unasked(trip, "我周五去西安出差，那边天气怎么样，还有我周五的日程", slots) is trip
    find_book = _plan(
        {"tool": "find_meeting_room", "arguments": {"start": "s", "duration_min": 60, "capacity": 6}},
        {
            "tool": "book_meeting_room",
            "arguments": {"room_id": "${t1.room_id}", "start": "s", "duration_min": 60},
            "dependencies": ["t1"],
        },
    )
    s2 = {"<DATE1>": "s", "<DUR1>": 60, "<NUM1>": 6}
    assert (
        len(prune_unasked(find_book, "Find a free room tomorrow at 10am for an hour for 6 people", s2).steps)
        == 1
    )
    assert prune_unasked(find_book, "帮我约个明天10点6个人一小时的会议室", s2) is find_book
    only = _plan({"tool": "list_calendar_events", "arguments": {"date": "2026-05-15"}})
    assert prune_unasked(only, "周五西安天气", {"<DATE1>": "2026-05-15"}) is only


def test_cues_read_traditional_chinese_and_tools_without_cues_are_evidenced() -> None:
    assert evidenced("get_logistics", "幫我查一下訂單的物流")
    assert not evidenced("get_logistics", "cancel it")
    assert evidenced("find_user", "anything")


def test_a_list_of_orders_needs_an_order_word() -> None:
    assert not evidenced("list_orders", "my sister's wedding is on the 3rd, what'll the weather be like")
    assert evidenced("list_orders", "cancel my latest purchase")
    assert evidenced("list_orders", "我最近买的东西到哪了")


def test_an_invite_is_no_invoice_but_a_misspelt_invoice_is() -> None:
    assert not evidenced("list_invoices", "check her diary before I send the invite")
    assert not evidenced("list_invoices", "an invitation for Friday")
    assert evidenced("list_invoices", "show my invioces")


def test_a_status_filter_word_is_no_tracking_ask():
    plan = ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "list_orders",
                    "arguments": {"user_id": "U55102938", "status": "in_transit"},
                },
                {
                    "step_id": "t2",
                    "tool": "get_logistics",
                    "arguments": {"order_id": "${t1.order_id}"},
                    "dependencies": ["t1"],
                },
            ],
        }
    )
    assert [s.tool for s in prune_unasked(plan, "我运输途中的订单", {}).steps] == ["list_orders"]
    kept = prune_unasked(plan, "我有个运输中的订单，查下它到哪了", {})
    assert [s.tool for s in kept.steps] == ["list_orders", "get_logistics"]


def test_a_second_reader_of_a_given_id_needs_its_words_next_to_that_id() -> None:
    exp = "EXP20260101"
    plan = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O2}},
        {"tool": "get_logistics", "arguments": {"order_id": O2}},
        {"tool": "get_expense_status", "arguments": {"expense_id": exp}},
    )
    slots = {"<ORDER1>": O2, "<EXP1>": exp}
    out = prune_unasked(plan, f"查一下订单 {O2} 的快递，再看看报销单 {exp} 的进度", slots)
    assert [s.tool for s in out.steps] == ["get_logistics", "get_expense_status"]  # 进度 is the claim's
    asked = f"查一下订单 {O2} 的状态和快递，再看看报销单 {exp} 的进度"
    assert prune_unasked(plan, asked, slots) is plan
    # one reader alone on its id keeps the bare-ask reading ("查下订单 X" is a status read)
    alone = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O2}},
        {"tool": "get_expense_status", "arguments": {"expense_id": exp}},
    )
    assert prune_unasked(alone, f"查下订单 {O2}，再看看报销单 {exp} 的进度", slots) is alone


def test_a_list_chain_beside_the_same_read_of_a_given_id_is_dropped_unless_asked() -> None:
    plan = _plan(
        {"tool": "list_orders", "arguments": {"user_id": ME}},
        {"tool": "get_order_status", "arguments": {"order_id": "${t1.order_id}"}, "dependencies": ["t1"]},
        {"tool": "get_order_status", "arguments": {"order_id": O1}},
    )
    slots = {"<ORDER1>": O1}
    out = prune_unasked(plan, f"Big week for me haha, what's the status of order {O1}?", slots)
    assert _rows(out) == [("get_order_status", {"order_id": O1}, [])]
    # a request that asks for the newest order as well keeps the chain
    asked = f"status of order {O1}, and of my latest order too"
    assert len(prune_unasked(plan, asked, slots).steps) == 3
