"""The context budget: reserve arithmetic, caps, unused shares flowing to history, ordering."""

from __future__ import annotations

import pytest

from tao.loop.context import (
    BudgetConfig,
    ContextOverflow,
    Item,
    allocate,
    assemble,
    fit,
    ordered,
    result_text,
    trim_tool_result,
)


def words(n: int) -> str:
    return " ".join(["ab"] * n)  # approx_tokens: one token per short word


def test_reserves_small_window_uses_shares():
    r = BudgetConfig(window=10_000).reserves()
    assert (r.output, r.system, r.tools, r.memory) == (800, 500, 1500, 1500)
    assert r.history == 10_000 - 800 - 500 - 1500 - 1500 == 5700
    assert r.total == 10_000


def test_reserves_large_window_hits_caps():
    r = BudgetConfig(window=200_000).reserves()
    assert r.output == 8192  # 8% would be 16000
    assert r.system == 2000  # 5% would be 10000
    assert (r.tools, r.memory) == (30_000, 30_000)
    assert r.history == 200_000 - 8192 - 2000 - 60_000
    assert r.total == 200_000


def test_reserves_floor_and_sum_exact():
    for w in (1, 7, 333, 4097, 32_768, 131_072):
        r = BudgetConfig(window=w).reserves()
        assert r.total == w and min(r.output, r.system, r.tools, r.memory, r.history) >= 0


def test_bad_config_refused():
    with pytest.raises(ValueError):
        BudgetConfig(window=0)
    with pytest.raises(ValueError):
        BudgetConfig(window=100, tools_share=0.9, memory_share=0.2)


def test_unused_shares_flow_to_history():
    cfg = BudgetConfig(window=10_000)
    b = allocate(cfg, system=100, tools=0, memory=250)
    assert (b.output, b.system, b.tools, b.memory) == (800, 100, 0, 250)
    assert b.history == 5700 + 400 + 1500 + 1250 == 8850
    assert b.total == 10_000
    # a need above the reserve is capped at the reserve, nothing flows
    b = allocate(cfg, system=9999, tools=9999, memory=9999)
    assert (b.system, b.tools, b.memory, b.history) == (500, 1500, 1500, 5700)


def test_output_reserve_never_flows():
    b = allocate(BudgetConfig(window=200_000), system=0, tools=0, memory=0)
    assert b.output == 8192 and b.history == 200_000 - 8192


def test_ordering_score_then_id_and_stable_under_shuffle():
    items = [Item("b", "x", 0.5), Item("a", "x", 0.5), Item("c", "x", 0.9), Item("d", "x", 0.1)]
    assert [i.id for i in ordered(items)] == ["c", "a", "b", "d"]
    assert [i.id for i in ordered(reversed(items))] == ["c", "a", "b", "d"]


def test_fit_drops_lowest_ranked_whole_items():
    items = [Item("a", words(40), 0.9), Item("b", words(40), 0.8), Item("c", words(10), 0.1)]
    kept, used = fit(items, 60)
    assert [i.id for i in kept] == ["a", "c"] and used == 50


def test_assemble_history_gets_what_tools_and_memory_leave():
    cfg = BudgetConfig(window=1000)  # output 80, system 50, tools 150, memory 150, history 570
    hist = [Item(f"h{i:02d}", words(50), score=i) for i in range(20)]  # 1000 tokens of history
    ctx = assemble(cfg, system=words(20), tools=[Item("t1", words(30))], memory=[], history=hist)
    assert ctx.budget.history == 1000 - 80 - 20 - 30 - 0 == 870
    assert ctx.used["history"] <= 870 and len(ctx.history) == 17
    # the most relevant (highest score) turns are kept, in deterministic order
    assert [i.id for i in ctx.history] == [f"h{i:02d}" for i in range(19, 2, -1)]
    assert ctx.dropped["history"] == ["h02", "h01", "h00"]
    # with a full tool share, history gets less
    tools = [Item(f"t{i}", words(50)) for i in range(3)]
    ctx2 = assemble(cfg, system=words(20), tools=tools, memory=[], history=hist)
    assert ctx2.budget.history == 1000 - 80 - 20 - 150 == 750 and len(ctx2.history) == 15


def test_assemble_refuses_oversized_system_prompt():
    with pytest.raises(ContextOverflow):
        assemble(BudgetConfig(window=1000), system=words(51))


def test_trim_tool_result_keeps_only_needed_fields():
    data = {
        "order_id": "2026",
        "status": "shipped",
        "items": [{"sku": "A", "blob": "x" * 500}],
        "debug": {"a": 1},
    }
    assert trim_tool_result(data, {"status": "/status", "sku": "/items/0/sku", "gone": "/nope"}) == {
        "sku": "A",
        "status": "shipped",
    }
    assert trim_tool_result(data, ["status", "/order_id"]) == {"order_id": "2026", "status": "shipped"}
    assert result_text({"b": 1, "a": [1, 2]}) == '{"a":[1,2],"b":1}'
