"""clause_args.clause_grounded: a borrowed argument of the whole plan is replaced by the clause plan's."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.clause_args import clause_grounded
from thought_model.clauses import Clause

ME = "U00000001"


def _plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [{"step_id": f"t{i}", "tool": t, "arguments": a} for i, (t, a) in enumerate(steps, 1)],
        }
    )


CLAUSES = [
    Clause("Check the weather in <CITY1> <DATE1>", {"<CITY1>": "Dubai", "<DATE1>": "@today"}),
    Clause("list my calendar for <DATE2>", {"<DATE2>": "@tomorrow"}),
    Clause("show my invoices", {}),
]
ORIGIN = {"t1": 0, "t2": 1, "t3": 2}
WHOLE = _plan(
    ("get_weather", {"city": "Dubai", "date": "@today"}),
    ("list_calendar_events", {"date": "@today"}),
    ("list_invoices", {"user_id": ME, "period": "@tomorrow"}),
)
COMPOSED = _plan(
    ("get_weather", {"city": "Dubai", "date": "@today"}),
    ("list_calendar_events", {"date": "@tomorrow"}),
    ("list_invoices", {"user_id": ME}),
)


def test_borrowed_values_are_replaced_or_dropped() -> None:
    out = clause_grounded(WHOLE, COMPOSED, CLAUSES, ORIGIN, "…")
    assert [s.arguments for s in out.steps] == [s.arguments for s in COMPOSED.steps]


def test_that_day_and_same_plans_are_left_alone() -> None:
    assert clause_grounded(WHOLE, COMPOSED, CLAUSES, ORIGIN, "石家庄5天前的天气以及我当天的安排") is WHOLE
    assert clause_grounded(COMPOSED, COMPOSED, CLAUSES, ORIGIN, "…") is COMPOSED
