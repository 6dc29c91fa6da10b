""" "The same title" copied from the step before; empty lookups dropped (thought_model.same_value)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.registry_graph import reference_tools
from thought_model.same_value import same_values

SPECS = {t.name: t for t in reference_tools()}


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _inv(order: str, title: str) -> dict:
    return {"tool": "create_invoice", "arguments": {"order_id": order, "title": title}}


def test_the_same_title_is_copied_from_the_step_before() -> None:
    for same in ("一样", "也一样", "相同", "the same", "same"):
        out = same_values(
            _plan(_inv("730182946651027734", "北京星辰科技有限公司"), _inv("730182946651027769", same)), SPECS
        )
        assert out.steps[1].arguments["title"] == "北京星辰科技有限公司", same


def test_a_real_title_and_a_first_same_are_left_alone() -> None:
    plan = _plan(_inv("730182946651027734", "Same Day Ltd"), _inv("730182946651027769", "Acme"))
    assert same_values(plan, SPECS) is plan
    alone = _plan(_inv("730182946651027734", "一样"))
    assert same_values(alone, SPECS) is alone


def test_an_empty_lookup_is_dropped_unless_it_is_all_there_is() -> None:
    room = {
        "tool": "find_meeting_room",
        "arguments": {"start": "2026-06-16 10:00", "duration_min": 180, "capacity": 20},
    }
    out = same_values(_plan(room, {"tool": "find_user", "arguments": {}}), SPECS)
    assert [s.tool for s in out.steps] == ["find_meeting_room"]
    only = _plan({"tool": "find_user", "arguments": {}})
    assert same_values(only, SPECS) is only
