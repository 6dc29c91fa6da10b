"""'his / 她的' is the named person's id, not the speaker's (thought_model.referents)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from thought_model.referents import third_person_user

ME = "U55102938"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.tool, s.arguments, s.dependencies) for s in p.steps]


def test_the_session_user_after_find_user_becomes_the_found_user() -> None:
    plan = _plan(
        {"tool": "find_user", "arguments": {"name": "John Smith"}},
        {"tool": "update_user_profile", "arguments": {"user_id": ME, "field": "city", "value": "Boston"}},
    )
    out = third_person_user(
        plan, "Look up John Smith, then change his city to Boston", ME, {"<NAME1>": "John Smith"}
    )
    assert _rows(out)[1] == (
        "update_user_profile",
        {"user_id": "${t1.user_id}", "field": "city", "value": "Boston"},
        ["t1"],
    )


def test_a_missing_find_user_is_added_for_the_one_unused_name() -> None:
    plan = _plan({"tool": "list_orders", "arguments": {"user_id": ME}})
    out = third_person_user(plan, "幫我找一下黃志明，看看他的訂單", ME, {"<NAME1>": "黄志明"})
    assert _rows(out) == [
        ("find_user", {"name": "黄志明"}, []),
        ("list_orders", {"user_id": "${t1.user_id}"}, ["t1"]),
    ]


def test_left_alone_when_the_speaker_speaks_of_their_own_or_no_one_else_is_named() -> None:
    plan = _plan({"tool": "list_orders", "arguments": {"user_id": ME}})
    slots = {"<NAME1>": "黄志明"}
    assert third_person_user(plan, "找一下黄志明，再看看我的订单", ME, slots) is plan
    assert third_person_user(plan, "Find Kevin and show my orders to him", ME, {"<NAME1>": "Kevin"}) is plan
    assert third_person_user(plan, "看看他的订单", ME, {}) is plan  # nobody named
    assert third_person_user(plan, "看看我的订单，黄志明帮我查的", ME, slots) is plan  # the speaker's own
    assert third_person_user(plan, "看看他的订单", None, slots) is plan
    two = {"<NAME1>": "黄志明", "<NAME2>": "王芳"}
    assert third_person_user(plan, "黄志明和王芳，看看他的订单", ME, two) is plan  # which one?


def test_a_named_person_without_a_pronoun_is_looked_up() -> None:
    """The one named person's id without 他/his ("找一下黄志明的订单", "my colleague X's orders")."""
    plan = _plan({"tool": "list_orders", "arguments": {"user_id": ME}})
    for text in ("找一下黄志明的订单", "show my colleague 黄志明's orders"):
        out = third_person_user(plan, text, ME, {"<NAME1>": "黄志明"})
        assert [(s.tool, s.arguments) for s in out.steps] == [
            ("find_user", {"name": "黄志明"}),
            ("list_orders", {"user_id": "${t1.user_id}"}),
        ]


def test_a_speaker_only_tool_becomes_its_variant_for_the_found_person() -> None:
    """ "find Li Na and show me what she has on Friday": the person's calendar, not the speaker's
    (the variant is the tool with the same arguments plus the user id, from the contracts)."""
    from tao.domains import reference_domain
    from thought_model.referents import person_variants

    tools = reference_domain().tools
    assert person_variants(tools, "user_id") == {"list_calendar_events": "list_user_calendar_events"}
    plan = _plan(
        {"tool": "find_user", "arguments": {"phone": "13800001111"}},
        {"tool": "list_calendar_events", "arguments": {"date": "2026-05-15"}},
    )
    slots = {"<PHONE1>": "13800001111", "<DATE1>": "2026-05-15"}
    for text in (
        "找一下手机号13800001111的人，周五她有什么安排",
        "find the person with phone 13800001111, what does he have on Friday",
    ):
        assert _rows(third_person_user(plan, text, ME, slots, tools=tools))[1] == (
            "list_user_calendar_events",
            {"date": "2026-05-15", "user_id": "${t1.user_id}"},
            ["t1"],
        )
    # the speaker's own calendar, or no pronoun: left alone
    assert (
        third_person_user(plan, "找一下手机号13800001111的人，再看看我周五的日程", ME, slots, tools=tools)
        is plan
    )
    assert (
        third_person_user(plan, "find 13800001111 and list events on Friday", ME, slots, tools=tools) is plan
    )


def test_the_person_id_another_step_takes_replaces_the_speaker() -> None:
    """ "先帮我查一下E471902的档案，再把他的ERP密码重置": 他 is E471902, whom get_employee reads."""
    me = "E100630"
    plan = _plan(
        {"tool": "get_employee", "arguments": {"employee_id": "E471902"}},
        {"tool": "reset_password", "arguments": {"employee_id": me, "system": "erp"}},
    )
    text = "先帮我查一下E471902的档案，再把他的ERP密码重置"
    out = third_person_user(plan, text, me, {"<EMPLOYEE1>": "E471902"}, "employee_id", "find_employee")
    assert _rows(out)[1] == ("reset_password", {"employee_id": "E471902", "system": "erp"}, [])
    # the speaker's own things stay the speaker's
    mine = "查一下E471902的档案，再把我的ERP密码重置"
    assert (
        third_person_user(plan, mine, me, {"<EMPLOYEE1>": "E471902"}, "employee_id", "find_employee") is plan
    )
