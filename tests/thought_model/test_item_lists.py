"""A clause insufficient for a record id the registry serves otherwise (thought_model.item_lists)."""

from __future__ import annotations

from tao.contracts import InsufficientContext
from thought_model.clauses import Clause
from thought_model.item_lists import served_instead
from thought_model.registry_graph import RegistryGraph, reference_tools

GRAPH = RegistryGraph(reference_tools())
ME = "U35041628"


def _rows(clause: str, field: str, slots: dict, request: str, me: str | None = ME) -> list | None:
    c = Clause(masked=clause, slots={k: v for k, v in slots.items() if k in clause})
    out = served_instead(InsufficientContext(required_fields=[field]), c, slots, request, me, GRAPH)
    return None if out is None else [(s.tool, dict(s.arguments)) for s in out.steps]


def test_my_records_are_their_list() -> None:
    assert _rows("看下我的发票", "invoice_id", {}, "看下我的订单，再看下我的发票") == [
        ("list_invoices", {"user_id": ME})
    ]
    slots = {"<DATE1>": "@last_week", "<DATE2>": "@this_month"}
    assert _rows("<DATE2>的发票", "invoice_id", slots, "列出我<DATE1>的订单和<DATE2>的发票") == [
        ("list_invoices", {"user_id": ME, "period": "@this_month"})
    ]


def test_the_named_users_records_and_the_named_orders_invoice() -> None:
    slots = {"<USER1>": "U61728394"}
    assert _rows("他的订单", "order_id", slots, "查下用户 <USER1> 的资料 跟他的订单") == [
        ("list_orders", {"user_id": "U61728394"})
    ]
    slots = {"<ORDER1>": "508813926647201935"}
    assert _rows("看看发票开了没", "invoice_id", slots, "单号 <ORDER1> 到哪了 顺便看看发票开了没") == [
        ("get_order_invoice", {"order_id": "508813926647201935"})
    ]


def test_left_to_the_model_and_the_fill_rules() -> None:
    # no record named ("帮我看看到底是啥状态"), a selection ("最近那张"), an id in the request, not an id
    assert _rows("帮我看看到底是啥状态呀", "order_id", {}, "我的报销 <EXP1> 帮我看看到底是啥状态呀") is None
    assert _rows("我最近那张发票的详情", "invoice_id", {}, "我最近那张发票的详情") is None
    assert _rows("查下发票", "invoice_id", {"<INV1>": "INV2026120301"}, "查下发票 <INV1>") is None
    assert (
        _rows("给订单 <ORDER1> 退款", "amount", {"<ORDER1>": "662019384475610293"}, "给订单 <ORDER1> 退款")
        is None
    )
    assert _rows("看下我的发票", "invoice_id", {}, "看下我的发票", me=None) is None  # nobody's list
