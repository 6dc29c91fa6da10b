"""Repeated value tuples get one step each (thought_model.paired); enumeration markers split asks."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.clauses import split_masked
from thought_model.entities import Perception, perceive
from thought_model.paired import paired_fan_out

O1, O2 = "260302000000000001", "260302000000000002"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def test_a_second_order_amount_pair_gets_its_own_refund() -> None:
    p = Perception(
        masked="订单<ORDER1>退款<AMOUNT1>，<ORDER2>退款<AMOUNT2>",
        slots={"<ORDER1>": O1, "<AMOUNT1>": 88.0, "<ORDER2>": O2, "<AMOUNT2>": 120.0},
    )
    plan = _plan({"tool": "refund_payment", "arguments": {"order_id": O1, "amount": 88.0}})
    out = paired_fan_out(plan, p)
    assert [(s.tool, s.arguments) for s in out.steps] == [
        ("refund_payment", {"order_id": O1, "amount": 88.0}),
        ("refund_payment", {"order_id": O2, "amount": 120.0}),
    ]


def test_copies_that_repeat_the_first_value_take_the_kth() -> None:
    slots = {"<AMOUNT1>": 45.0, "<DATE1>": "2026-03-16", "<AMOUNT2>": 680.0, "<DATE2>": "2026-03-15"}
    p = Perception(masked="<AMOUNT1> on <DATE1>; and <AMOUNT2> on <DATE2>", slots=slots)
    args = {"category": "hotel", "description": "x"}
    plan = _plan(
        {"tool": "submit_expense", "arguments": {"amount": 45.0, "date": "2026-03-16", **args}},
        {"tool": "submit_expense", "arguments": {"amount": 45.0, "date": "2026-03-15", **args}},
    )
    out = paired_fan_out(plan, p)
    assert [s.arguments["amount"] for s in out.steps] == [45.0, 680.0]


def test_left_alone_when_the_second_tuple_is_incomplete_or_used() -> None:
    p = Perception(
        masked="cancel <ORDER1> and refund <AMOUNT1> on <ORDER2>",
        slots={"<ORDER1>": O1, "<AMOUNT1>": 30.0, "<ORDER2>": O2},
    )
    plan = _plan({"tool": "refund_payment", "arguments": {"order_id": O2, "amount": 30.0}})
    assert paired_fan_out(plan, p) is plan


def test_a_bare_number_with_the_same_preposition_is_the_next_amount() -> None:
    p = perceive("refund 88 on 260302000000000001 and 12.5 on 260302000000000002")
    assert p.masked == "refund <AMOUNT1> on <ORDER1> and <AMOUNT2> on <ORDER2>"
    assert p.slots["<AMOUNT2>"] == 12.5


def test_enumeration_markers_split_asks() -> None:
    assert split_masked("1. my calendar <DATE1> 2. the invoice for order <ORDER1>") == [
        "my calendar <DATE1>",
        "the invoice for order <ORDER1>",
    ]
    assert split_masked("一、查订单<ORDER1>的状态；二、<DATE1><CITY1>天气；三、我<DATE2>的行程") == [
        "查订单<ORDER1>的状态",
        "<DATE1><CITY1>天气",
        "我<DATE2>的行程",
    ]
    assert split_masked("refund <AMOUNT1> on <ORDER1>") == ["refund <AMOUNT1> on <ORDER1>"]


def test_a_selection_phrase_with_an_act_on_it_is_its_own_clause() -> None:
    from thought_model.clauses import _has_verb
    from thought_model.selection import is_selection
    from thought_model.selection import split_selection as split

    def split_selection(piece: str) -> list[str]:
        return split(piece, _has_verb)

    assert split_selection("refund <AMOUNT1> on my latest delivered order") == [
        "my latest delivered order",
        "refund <AMOUNT1> on it",
    ]
    assert split_selection("把我最近一笔已付款的订单开张发票，抬头写<TEXT1>") == [
        "我最近一笔已付款的订单",
        "把它开张发票，抬头写<TEXT1>",
    ]
    assert split_selection("list my newest order") == ["list my newest order"]  # the selection is the ask
    assert split_selection("where is my most recent shipped order?") == [
        "where is my most recent shipped order?"
    ]
    assert is_selection("my latest delivered order") and not is_selection("refund it")


def test_my_noun_phrases_after_a_comma_are_list_items_of_the_opening_verb() -> None:
    assert split_masked("list my shipped orders, my void invoices and my rejected expenses") == [
        "list my shipped orders",
        "my void invoices",
        "my rejected expenses",
    ]
