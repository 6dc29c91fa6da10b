import json

import pytest
from pydantic import ValidationError

from tao.contracts import InsufficientContext, PlanStep, ThoughtPlan, ToolSpec
from tao.contracts.export import DEFAULT_DIR, render
from tao.contracts.export import main as export_main
from tao.domains.reference.registry import reference_tools


def test_exported_schemas_are_current():
    rendered = render()
    for fname, text in rendered.items():
        path = DEFAULT_DIR / fname
        assert path.exists(), f"{fname} not exported; run `tao schemas`"
        assert path.read_text(encoding="utf-8") == text, f"{fname} drifted from the model; run `tao schemas`"
    assert export_main(["--check"]) == 0


def test_check_detects_drift(tmp_path):
    export_main([str(tmp_path)])
    (tmp_path / "thought_plan.json").write_text("{}", encoding="utf-8")
    assert export_main(["--check", str(tmp_path)]) == 1


def test_plan_roundtrip_and_stamp():
    plan = ThoughtPlan(
        intent="order_status",
        steps=[
            PlanStep(step_id="t1", tool="find_user", arguments={"name": "张三"}),
            PlanStep(
                step_id="t2",
                tool="list_orders",
                arguments={"user_id": "${t1.user_id}", "period": "@last_month"},
                dependencies=["t1"],
            ),
        ],
    )
    stamped = plan.stamped()
    assert stamped.thought_id and stamped.created_at is not None
    again = ThoughtPlan.model_validate_json(stamped.model_dump_json())
    assert again == stamped


@pytest.mark.parametrize(
    "bad",
    [
        {"intent": "x1", "steps": []},
        {"intent": "ok", "steps": [{"step_id": "s1", "tool": "find_user"}]},
        {"intent": "ok", "steps": [{"step_id": "t1", "tool": "find_user", "extra": 1}]},
        {"intent": "ok", "steps": [{"step_id": f"t{i}", "tool": "find_user"} for i in range(1, 9)]},
    ],
)
def test_plan_rejects_bad_shapes(bad):
    with pytest.raises(ValidationError):
        ThoughtPlan.model_validate(bad)


def test_insufficient_context_requires_fields():
    with pytest.raises(ValidationError):
        InsufficientContext(required_fields=[])
    assert InsufficientContext(required_fields=["order_id"]).error == "insufficient_context"


def test_reference_registry_is_realistic():
    tools = {t.name: t for t in reference_tools()}
    assert len(tools) >= 12
    assert tools["send_email"].permission.value == "high_risk" and not tools["send_email"].idempotent
    assert tools["get_order_status"].permission.value == "read" and tools["get_order_status"].idempotent
    for t in tools.values():
        ToolSpec.model_validate(json.loads(t.model_dump_json()))
        assert t.args_schema["type"] == "object"
        if t.fallback_tool:
            assert t.fallback_tool in tools
