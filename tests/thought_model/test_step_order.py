"""Independent steps in the order of the clauses that ask them (thought_model.step_order)."""

from __future__ import annotations

from tao.contracts import PlanStep, ThoughtPlan
from thought_model.step_order import clause_order

ME = "E100777"
RESET = ("reset_password", {"employee_id": ME, "system": "vpn"})
TICKET = ("create_ticket", {"employee_id": ME, "category": "hardware", "summary": "dock broken"})


def _plan(*steps: tuple[str, dict], deps: bool = False) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {
                    "step_id": f"t{i}",
                    "tool": t,
                    "arguments": a,
                    "dependencies": [f"t{i - 1}"] if deps and i > 1 else [],
                }
                for i, (t, a) in enumerate(steps, 1)
            ],
        }
    )


def _part(*steps: tuple[str, dict]) -> list[PlanStep]:
    return list(_plan(*steps).steps)


def _tools(p: ThoughtPlan) -> list[str]:
    return [s.tool for s in p.steps]


def test_independent_steps_follow_their_clauses() -> None:
    plan = _plan(TICKET, RESET)
    out = clause_order(plan, [_part(RESET), _part(TICKET)])
    assert _tools(out) == ["reset_password", "create_ticket"]
    assert [s.step_id for s in out.steps] == ["t1", "t2"]


def test_an_order_already_right_or_unknown_is_kept() -> None:
    plan = _plan(RESET, TICKET)
    assert clause_order(plan, [_part(RESET), _part(TICKET)]) is plan
    swapped = _plan(TICKET, RESET)
    assert clause_order(swapped, [_part(RESET), None]) is swapped  # no clause claims the ticket
    assert clause_order(swapped, [_part(TICKET, RESET)]) is swapped  # one clause
    chain = _plan(TICKET, RESET, deps=True)
    assert clause_order(chain, [_part(RESET), _part(TICKET)]) is chain  # data flow decides


def test_a_tool_of_two_clauses_is_placed_by_its_arguments() -> None:
    other = ("reset_password", {"employee_id": "E200001", "system": "erp"})
    plan = _plan(other, RESET)
    out = clause_order(plan, [_part(RESET), _part(other)])
    assert [s.arguments["employee_id"] for s in out.steps] == [ME, "E200001"]
