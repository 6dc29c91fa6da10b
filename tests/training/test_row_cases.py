"""Generated rows -> the case format (training.row_cases): the scorer reads what it writes."""

from __future__ import annotations

import json
from pathlib import Path

from training.cases import compare, load_cases
from training.row_cases import convert, row_case

PLAN_ROW = {
    "request": "weather in Paris and London tomorrow",
    "user_id": "U12345678",
    "today": "2026-05-11",
    "lang": "en",
    "intent": "multi_task",
    "expected": {
        "version": "1.0",
        "intent": "multi_task",
        "steps": [
            {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "Paris", "date": "@tomorrow"}},
            {"step_id": "t2", "tool": "get_weather", "arguments": {"city": "London", "date": "@tomorrow"}},
        ],
    },
}
INS_ROW = {
    "request": "show my orders",
    "user_id": None,
    "today": "2026-05-11",
    "lang": "en",
    "intent": "list_my_orders",
    "expected": {"error": "insufficient_context", "required_fields": ["user_id"], "intent": "list_my_orders"},
}


def test_families_and_expect_blocks() -> None:
    c = row_case(PLAN_ROW, 1)
    assert c["family"] == "coordinated" and c["expect"]["kind"] == "plan"
    assert c["expect"]["steps"][0] == {"tool": "get_weather", "args": {"city": "Paris", "date": "@tomorrow"}}
    assert c["session"]["now"].startswith("2026-05-11T")
    i = row_case(INS_ROW, 2)
    assert i["family"] == "insufficient" and i["expect"] == {
        "kind": "insufficient_context",
        "missing": ["user_id"],
    }
    chain = {**PLAN_ROW, "intent": "weather_two_cities", "expected": {**PLAN_ROW["expected"], "intent": "w"}}
    assert row_case(chain, 3)["family"] == "chain"


def test_written_cases_load_and_score_their_own_plan(tmp_path: Path) -> None:
    src, dst = tmp_path / "rows.jsonl", tmp_path / "cases.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in (PLAN_ROW, INS_ROW)) + "\n")
    assert convert(src, dst) == 2
    cases = load_cases(dst)
    from tao.contracts import InsufficientContext, ThoughtPlan
    from tao.domains.reference.registry import reference_tools

    schemas = {t.name: t.args_schema for t in reference_tools()}
    plan = ThoughtPlan.model_validate(PLAN_ROW["expected"])
    assert compare(cases[0], plan, schemas).exact  # time symbols resolved on both sides
    swapped = ThoughtPlan.model_validate(
        {**PLAN_ROW["expected"], "steps": PLAN_ROW["expected"]["steps"][::-1]}
    )
    assert not compare(cases[0], swapped, schemas).exact
    assert compare(cases[1], InsufficientContext(required_fields=["user_id"]), schemas).exact
