"""submit_expense.category from the request's words (thought_model/expense_words.py)."""

from __future__ import annotations

import pytest

from tao.contracts import ThoughtPlan
from thought_model.expense_words import category_of, fix_category


@pytest.mark.parametrize(
    "masked, category",
    [
        ("报销<DATE1>的酒店住宿费 <AMOUNT1>，说明：<TEXT1>", "hotel"),
        ("报销<DATE1>的高铁票 <AMOUNT1>", "transport"),
        ("submit an expense of <AMOUNT1> for lunch <DATE1>", "meal"),
        ("expense <AMOUNT1> for office supplies", "office"),
        ("<DATE1>撸串花了 <AMOUNT1>", "meal"),
        ("请客户吃饭花了 <AMOUNT1>，帮我报了，类别餐费", "meal"),
        ("出差打车 <AMOUNT1>", "transport"),
        ("差旅报销 <AMOUNT1>", "travel"),
        ("taxi and hotel <AMOUNT1>, category: hotel", "hotel"),
    ],
)
def test_category_of(masked: str, category: str) -> None:
    assert category_of(masked) == category


@pytest.mark.parametrize("masked", ["报销 <AMOUNT1>，说明 <TEXT1>", "打车 <AMOUNT1> 和午饭 <AMOUNT2>"])
def test_no_category(masked: str) -> None:
    assert category_of(masked) is None


def _plan(category: str) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "submit_expense",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "submit_expense",
                    "arguments": {"amount": 25, "category": category, "date": "@today", "description": "x"},
                }
            ],
        }
    )


def test_fix_category_sets_the_word_category() -> None:
    fixed = fix_category(_plan("other"), "submit <AMOUNT1> for lunch <DATE1>")
    assert fixed.steps[0].arguments["category"] == "meal"


def test_fix_category_leaves_a_plan_without_words() -> None:
    plan = _plan("travel")
    assert fix_category(plan, "报销 <AMOUNT1>") is plan


def _two(categories: tuple[str, str], amounts: tuple[float, float]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {
                    "step_id": f"t{i}",
                    "tool": "submit_expense",
                    "arguments": {"amount": a, "category": c, "date": "@today", "description": "x"},
                }
                for i, (c, a) in enumerate(zip(categories, amounts, strict=True), 1)
            ],
        }
    )


def test_each_of_several_expenses_gets_the_category_of_its_own_words() -> None:
    slots = {"<AMOUNT1>": 45.0, "<AMOUNT2>": 210.0}
    masked = "报销两笔：1. <DATE1>出租车费 <AMOUNT1>，交通类，备注<TEXT1>；2. <DATE2>晚餐 <AMOUNT2>，餐费，备注<TEXT2>。"
    fixed = fix_category(_two(("transport", "transport"), (45.0, 210.0)), masked, slots)
    assert [s.arguments["category"] for s in fixed.steps] == ["transport", "meal"]
    en = "submit <AMOUNT1> transport on <DATE1> <TEXT1>, <AMOUNT2> hotel on <DATE1> <TEXT2>"
    fixed = fix_category(_two(("meal", "meal"), (45.0, 210.0)), en, slots)
    assert [s.arguments["category"] for s in fixed.steps] == ["transport", "hotel"]
    # without the slots (or with equal amounts) the whole request decides, as before
    both = _two(("other", "other"), (45.0, 210.0))
    assert [
        s.arguments["category"] for s in fix_category(both, "报销两笔午餐 <AMOUNT1> 和 <AMOUNT2>").steps
    ] == ["meal", "meal"]


def test_a_category_named_as_a_class_wins() -> None:
    assert category_of("<DATE1>高铁票 <AMOUNT1>，差旅类") == "travel"
    assert category_of("<DATE1>酒店 <AMOUNT1>，住宿类") == "hotel"
