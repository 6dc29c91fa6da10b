"""Fan-out over coordinated lists of values (thought_model.fanout) and the plan edits it uses
(thought_model.plan_edit)."""

from __future__ import annotations

from datetime import date

from tao.contracts import ThoughtPlan
from thought_model.entities import Perception, perceive
from thought_model.fanout import Group, coordinated_groups, fan_out
from thought_model.plan_edit import Draft, build, drafts

O1, O2, O3 = "293847561029384756", "293847561029384757", "293847561029384758"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.tool, s.arguments, s.dependencies) for s in p.steps]


def _p(text: str) -> Perception:
    return perceive(text, today=date(2026, 5, 11), user_known=True)


def test_groups_need_list_separators_between_same_kind_slots() -> None:
    assert coordinated_groups("weather in <CITY1> + <CITY2>?") == [Group("CITY", ("<CITY1>", "<CITY2>"))]
    assert coordinated_groups("<CITY1>、<CITY2>和<CITY3><DATE1>天气") == [
        Group("CITY", ("<CITY1>", "<CITY2>", "<CITY3>"))
    ]
    assert coordinated_groups("order <ORDER1> and order <ORDER2>") == [
        Group("ORDER", ("<ORDER1>", "<ORDER2>"))
    ]
    assert coordinated_groups("in <CITY1> n <CITY2> today") == [Group("CITY", ("<CITY1>", "<CITY2>"))]
    # a route, another kind in between, a verb in between, amounts: no list
    assert coordinated_groups("fly from <CITY1> to <CITY2>") == []
    assert coordinated_groups("<CITY1> <DATE1> and <CITY2>") == []
    assert coordinated_groups("cancel <ORDER1> and track <ORDER2>") == []
    assert coordinated_groups("<AMOUNT1> and <AMOUNT2>") == []
    # cities separated by spaces alone are a list; names and dates are not
    assert coordinated_groups("查下 <CITY1> <CITY2> <CITY3> <DATE1>的天气") == [
        Group("CITY", ("<CITY1>", "<CITY2>", "<CITY3>"))
    ]
    assert coordinated_groups("find <NAME1> <NAME2>") == []


def test_every_city_of_a_list_gets_its_weather_step_with_the_shared_date() -> None:
    p = _p("weather in Paris, London and Berlin for Friday")
    plan = _plan(
        {"tool": "get_weather", "arguments": {"city": "Paris", "date": "2026-05-15"}},
        {"tool": "get_weather", "arguments": {"city": "London", "date": "2026-05-15"}},
    )
    assert _rows(fan_out(plan, p)) == [
        ("get_weather", {"city": "Paris", "date": "2026-05-15"}, []),
        ("get_weather", {"city": "London", "date": "2026-05-15"}, []),
        ("get_weather", {"city": "Berlin", "date": "2026-05-15"}, []),
    ]


def test_a_copy_keeps_list_order_and_its_dependants_follow_it() -> None:
    p = _p("帮我查下张伟和李娜的资料")
    plan = _plan(
        {"tool": "find_user", "arguments": {"name": "张伟"}},
        {"tool": "get_user_profile", "arguments": {"user_id": "${t1.user_id}"}, "dependencies": ["t1"]},
    )
    assert _rows(fan_out(plan, p)) == [
        ("find_user", {"name": "张伟"}, []),
        ("get_user_profile", {"user_id": "${t1.user_id}"}, ["t1"]),
        ("find_user", {"name": "李娜"}, []),
        ("get_user_profile", {"user_id": "${t3.user_id}"}, ["t3"]),
    ]
    p3 = _p("Check the status of expenses EXP10293847, EXP10293848 and EXP10293849")
    gap = _plan(
        {"tool": "get_expense_status", "arguments": {"expense_id": "EXP10293847"}},
        {"tool": "get_expense_status", "arguments": {"expense_id": "EXP10293849"}},
    )
    assert [s.arguments["expense_id"] for s in fan_out(gap, p3).steps] == [
        "EXP10293847",
        "EXP10293848",
        "EXP10293849",
    ]


def test_shared_arguments_are_copied_for_each_room() -> None:
    p = _p("R201 和 R202 我都要，后天上午10点各订一小时")
    start = p.slots["<DATE1>"]
    plan = _plan(
        {"tool": "book_meeting_room", "arguments": {"room_id": "R201", "start": start, "duration_min": 60}}
    )
    out = fan_out(plan, p)
    assert [
        (s.arguments["room_id"], s.arguments["start"], s.arguments["duration_min"]) for s in out.steps
    ] == [
        ("R201", start, 60),
        ("R202", start, 60),
    ]


def test_one_predicate_over_a_list_means_one_tool() -> None:
    p = _p(f"查下订单 {O1} 和 {O2} 的物流")
    plan = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O1}},
        {"tool": "get_logistics", "arguments": {"order_id": O2}},
    )
    assert [s.tool for s in fan_out(plan, p).steps] == ["get_logistics", "get_logistics"]
    p3 = _p(f"Can you get the logistics for orders {O1}, {O2} and {O3}?")
    two = _plan(
        {"tool": "get_order_status", "arguments": {"order_id": O1}},
        {"tool": "get_logistics", "arguments": {"order_id": O2}},
    )
    assert [s.tool for s in fan_out(two, p3).steps] == ["get_logistics"] * 3


def test_left_alone_when_the_list_is_an_argument_or_nothing_is_missing() -> None:
    p = _p("schedule a sync tomorrow 3pm for an hour with Alice Brown and Bob Smith")
    names = [p.slots[t] for t in sorted(p.slots) if t.startswith("<NAME")]
    event = _plan(
        {
            "tool": "create_calendar_event",
            "arguments": {"title": "sync", "start": "x", "duration_min": 60, "attendees": names[:1]},
        }
    )
    assert fan_out(event, p) is event  # a value inside a list argument: the list is the argument
    full = _plan(
        {"tool": "get_weather", "arguments": {"city": "Beijing"}},
        {"tool": "get_weather", "arguments": {"city": "Shanghai"}},
    )
    assert fan_out(full, _p("weather in Beijing and Shanghai")) is full
    unrelated = _plan({"tool": "list_orders", "arguments": {"user_id": "U12345678"}})
    assert fan_out(unrelated, _p("weather in Beijing and Shanghai")) is unrelated


def test_too_many_steps_leave_the_plan_unchanged() -> None:
    p = _p("帮我查下张伟、李娜、王芳和刘洋的资料")
    plan = _plan(
        {"tool": "find_user", "arguments": {"name": "张伟"}},
        {"tool": "get_user_profile", "arguments": {"user_id": "${t1.user_id}"}, "dependencies": ["t1"]},
    )
    assert len(coordinated_groups(p.masked)[0].tokens) == 4
    assert fan_out(plan, p) is plan  # 8 steps > MAX_STEPS


def test_build_renumbers_and_refuses_forward_references() -> None:
    plan = _plan(
        {"tool": "find_user", "arguments": {"name": "a"}},
        {"tool": "get_user_profile", "arguments": {"user_id": "${t1.user_id}"}, "dependencies": ["t1"]},
    )
    d = drafts(plan)
    extra = Draft("new", "find_user", {"name": "b"})
    out = build(plan, [extra, *d])
    assert out is not None
    assert _rows(out)[2] == ("get_user_profile", {"user_id": "${t2.user_id}"}, ["t2"])
    assert build(plan, [d[1], d[0]]) is None  # a step before the one it needs
    assert build(plan, []) is None


def test_a_name_ending_a_list_of_cities_is_a_city_when_only_a_needless_find_user_uses_it() -> None:
    # a city the gazetteer has (cue-gated) is read as one when listed after a city (perception)
    assert (
        _p("How is the weather looking in Rome, Milan and Naples tomorrow?").slots.get("<CITY3>") == "Naples"
    )
    p = _p("How is the weather looking in Rome, Milan and Zorvik tomorrow?")
    assert p.slots.get("<NAME1>") == "Zorvik"  # a place the gazetteer lacks
    plan = _plan(
        {"tool": "get_weather", "arguments": {"city": "Rome", "date": "@tomorrow"}},
        {"tool": "get_weather", "arguments": {"city": "Milan", "date": "@tomorrow"}},
        {"tool": "find_user", "arguments": {"name": "Zorvik"}},
    )
    assert [s.arguments["city"] for s in fan_out(plan, p).steps] == ["Rome", "Milan", "Zorvik"]
    q = _p("weather in Beijing and Zhang Wei's profile")
    chain = _plan(
        {"tool": "get_weather", "arguments": {"city": "Beijing"}},
        {"tool": "find_user", "arguments": {"name": "Zhang Wei"}},
        {"tool": "get_user_profile", "arguments": {"user_id": "${t2.user_id}"}, "dependencies": ["t2"]},
    )
    assert fan_out(chain, q) is chain  # the person is looked up for a reason: left alone
