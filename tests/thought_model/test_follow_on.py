"""The read a request asks of its last step's result (thought_model.follow_on)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from tao.domains.helpdesk import domain
from thought_model.entities import SLOT_TOKEN_RE
from thought_model.follow_on import follow_on_read
from thought_model.registry_graph import RegistryGraph
from thought_model.tool_cues import derive_cues

ME = "E100777"
D = domain()
GRAPH = RegistryGraph(D.tools)
CUES = derive_cues(D.tools, D.examples, D.value_words)
TICKET = ("create_ticket", {"employee_id": ME, "category": "software", "summary": "Outlook crashes"})
LIST = ("list_tickets", {"employee_id": ME})


def _plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [{"step_id": f"t{i}", "tool": t, "arguments": a} for i, (t, a) in enumerate(steps, 1)],
        }
    )


def _run(plan: ThoughtPlan, text: str) -> list[tuple[str, dict]]:
    out = follow_on_read(plan, text, SLOT_TOKEN_RE.sub(" ", text), D.tools, GRAPH, CUES)
    return [(s.tool, s.arguments) for s in out.steps]


def test_write_then_read_what_it_created() -> None:
    got = _run(_plan(TICKET), "open a software ticket: Outlook crashes, then tell me who it got assigned to")
    assert got[-1] == ("get_ticket", {"ticket_id": "${t1.ticket_id}"})


def test_stray_trailing_read_gives_way() -> None:
    plan = _plan(TICKET, ("list_devices", {"employee_id": ME}))
    got = _run(plan, "open a software ticket: Outlook crashes, then tell me who it got assigned to")
    assert [t for t, _ in got] == ["create_ticket", "get_ticket"]


def test_no_read_without_its_words() -> None:
    assert len(_run(_plan(TICKET), "open a software ticket: Outlook crashes")) == 1


def test_words_of_the_plan_values_are_no_evidence() -> None:
    plan = _plan(
        ("create_ticket", {"employee_id": ME, "category": "hardware", "summary": "check the status light"})
    )
    assert len(_run(plan, "open a hardware ticket: check the status light")) == 1


def test_a_list_feeds_a_read_only_for_one_item() -> None:
    assert [t for t, _ in _run(_plan(LIST), "我最近那个工单现在谁在跟")] == ["list_tickets", "get_ticket"]
    assert len(_run(_plan(LIST), "show all my tickets, who has them?")) == 1


def test_a_read_of_a_stray_list_reads_what_the_write_made() -> None:
    plan = ThoughtPlan.model_validate(
        {
            "intent": "multi_task",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "request_device_replacement",
                    "arguments": {"asset_tag": "AT-31877", "reason": "swollen battery"},
                },
                {"step_id": "t2", "tool": "list_tickets", "arguments": {"employee_id": ME}},
                {
                    "step_id": "t3",
                    "tool": "get_ticket",
                    "arguments": {"ticket_id": "${t2.ticket_id}"},
                    "dependencies": ["t2"],
                },
            ],
        }
    )
    text = "replace AT-31877 because of a swollen battery, then check the status of that ticket"
    assert _run(plan, text) == [
        ("request_device_replacement", {"asset_tag": "AT-31877", "reason": "swollen battery"}),
        ("get_ticket", {"ticket_id": "${t1.ticket_id}"}),
    ]
    listed = "replace AT-31877 because of a swollen battery, then list my tickets and check the newest"
    assert [t for t, _ in _run(plan, listed)] == ["request_device_replacement", "list_tickets", "get_ticket"]


def test_a_read_text_ends_before_its_done_piece() -> None:
    reason = {"asset_tag": "AT-20415", "reason": "屏幕碎了，申请完"}
    plan = _plan(("request_device_replacement", reason))
    got = _run(plan, "申请更换 AT-20415，原因是屏幕碎了，申请完顺便查一下对应工单的状态")
    assert got[0][1]["reason"] == "屏幕碎了" and got[1][0] == "get_ticket"
    kept = {"asset_tag": "AT-20415", "reason": "电脑蓝屏，重启好几次也不行"}
    got = _run(
        _plan(("request_device_replacement", kept)), "换掉 AT-20415，电脑蓝屏，重启好几次也不行，然后查状态"
    )
    assert got[0][1]["reason"] == "电脑蓝屏，重启好几次也不行"


def test_a_word_of_another_planned_tool_asks_for_no_read() -> None:
    """ "Look up his devices and request a replacement": ``look`` is find_employee's word (and
    get_ticket's); the replacement's ticket is not read."""
    plan = _plan(
        ("find_employee", {"name": "Marco Rossi"}),
        ("list_devices", {"employee_id": "${t1.employee_id}"}),
        ("request_device_replacement", {"asset_tag": "${t2.asset_tag}", "reason": "laptop fan is grinding"}),
    )
    assert "look" in CUES.cues["find_employee"] & CUES.cues["get_ticket"]
    text = "Marco Rossi's laptop fan is grinding. Look up his devices and request a replacement"
    assert [t for t, _ in _run(plan, text)] == ["find_employee", "list_devices", "request_device_replacement"]


def test_a_summary_that_swallowed_the_next_ask_is_evidence_up_to_it() -> None:
    """ "开个权限工单，内容是需要共享盘的写权限，开完帮我看看状态": 状态 is the request's, not the summary's."""
    plan = _plan(
        (
            "create_ticket",
            {"employee_id": ME, "category": "access", "summary": "需要共享盘的写权限，开完帮我看看状态"},
        )
    )
    got = _run(plan, "开个权限工单，内容是需要共享盘的写权限，开完帮我看看状态")
    assert got == [
        ("create_ticket", {"employee_id": ME, "category": "access", "summary": "需要共享盘的写权限"}),
        ("get_ticket", {"ticket_id": "${t1.ticket_id}"}),
    ]
