"""The linked read of a user registry (thought_model.linked_read): the record another record points
to, from the contracts' response schema and extract (helpdesk: get_employee.manager_id)."""

from __future__ import annotations

import pytest

from tao.contracts import ThoughtPlan
from tao.domains import load_domain
from thought_model.linked_read import derive_links, linked_read
from thought_model.tool_cues import derive_cues

ME = "E315502"


@pytest.fixture(scope="module")
def helpdesk():
    d = load_domain("tao.domains.helpdesk:domain")
    tools = list(d.tools)
    cues = derive_cues(tools, d.examples, d.value_words)
    return derive_links(tools, d.examples, cues), cues


def _one_read() -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "get_employee",
            "steps": [{"step_id": "t1", "tool": "get_employee", "arguments": {"employee_id": ME}}],
        }
    )


def test_the_manager_link_comes_from_the_contracts(helpdesk) -> None:
    links, _ = helpdesk
    assert [(x.tool, x.arg, x.output) for x in links] == [("get_employee", "employee_id", "manager_id")]
    assert "manager" in links[0].words


@pytest.mark.parametrize(
    "text",
    ["who is my manager? tell me his email and office", "我的上级是谁？把他的邮箱告诉我"],
)
def test_a_question_about_the_linked_record_reads_it(helpdesk, text: str) -> None:
    links, cues = helpdesk
    out = linked_read(_one_read(), text, links, cues)
    assert [(s.tool, s.arguments) for s in out.steps] == [
        ("get_employee", {"employee_id": ME}),
        ("get_employee", {"employee_id": "${t1.manager_id}"}),
    ]


@pytest.mark.parametrize("text", ["who is my manager?", "show me my employee record"])
def test_no_question_about_it_keeps_one_read(helpdesk, text: str) -> None:
    links, cues = helpdesk
    plan = _one_read()
    assert linked_read(plan, text, links, cues) is plan
