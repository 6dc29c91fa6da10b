"""The composer's passes on the final plan (round 10): fan-out, the evidence rule, and arguments the
whole-request plan borrowed from another ask replaced by the clause plans' (scripted inner engine)."""

from __future__ import annotations

from tests.thought_model.test_compose import dumped, plan, run, step

ME = "U00000001"


def test_fan_out_and_pruning_run_on_the_whole_plan() -> None:
    text = "weather in Paris, London and Berlin"
    rules = [
        (
            ["weather in <CITY1>, <CITY2> and <CITY3>"],
            plan(
                "weather_two_cities",
                step("get_weather", city="<CITY1>"),
                step("list_calendar_events", date="@today"),
            ),
        )
    ]
    res, _ = run(rules, text)
    assert [s.arguments.get("city") for s in res.output.steps] == ["Paris", "London", "Berlin"]
    assert {s.tool for s in res.output.steps} == {"get_weather"}  # the calendar nobody asked for is gone
    res_off, _ = run(rules, text, fan_out=False, prune=False)
    assert [s.tool for s in res_off.output.steps] == ["get_weather", "list_calendar_events"]


WHOLE = plan(
    "multi_task",
    step("get_weather", city="<CITY1>", date="<DATE1>"),
    step("list_calendar_events", date="<DATE1>"),
    step("list_invoices", user_id="<ME>", period="<DATE2>"),
)
CLAUSES = [
    (
        ["Check the weather in <CITY1> <DATE1>", "!calendar"],
        plan("query_weather", step("get_weather", city="<CITY1>", date="<DATE1>")),
    ),
    (
        ["list my calendar for <DATE1>"],
        plan("list_calendar_events", step("list_calendar_events", date="<DATE1>")),
    ),
    (["show my invoices"], plan("list_my_invoices", step("list_invoices", user_id="<ME>"))),
]


def test_borrowed_dates_are_replaced_by_the_clauses_own() -> None:
    text = "Check the weather in Dubai today, list my calendar for tomorrow, and show my invoices"
    rules = [(["calendar", "invoices"], WHOLE), *CLAUSES]
    res, _ = run(rules, text)
    assert (
        dumped(res)["steps"]
        == plan(
            "multi_task",
            step("get_weather", city="Dubai", date="@today"),
            step("list_calendar_events", date="@tomorrow"),
            step("list_invoices", user_id=ME),
        )["steps"]
    )
    off, _ = run(rules, text, prefer_clause_args=False, misread_asks=False)
    assert off.output.steps[2].arguments.get("period") == "@tomorrow"


def test_a_whole_plan_that_misreads_another_asks_slot_gives_way_to_the_clauses() -> None:
    """With the clause-args merge off, the period the whole plan gave the invoices (the calendar
    clause's <DATE1>, in a tool that clause does not plan) still makes the clause plans win."""
    text = "Check the weather in Dubai today, list my calendar for tomorrow, and show my invoices"
    rules = [(["calendar", "invoices"], WHOLE), *CLAUSES]
    res, _ = run(rules, text, prefer_clause_args=False)
    assert "period" not in res.output.steps[2].arguments


def test_an_ellipsis_of_the_same_tool_keeps_the_shared_date() -> None:
    text = "查重庆明天的天气，再查呼和浩特的"
    whole = plan(
        "weather_two_cities",
        step("get_weather", city="<CITY1>", date="<DATE1>"),
        step("get_weather", city="<CITY2>", date="<DATE1>"),
    )
    rules = [
        (["<CITY1><DATE1>的天气，再查<CITY2>"], whole),
        (
            ["查<CITY1><DATE1>的天气"],
            plan("query_weather", step("get_weather", city="<CITY1>", date="<DATE1>")),
        ),
        (["查<CITY1>的"], plan("query_weather", step("get_weather", city="<CITY1>"))),
    ]
    res, _ = run(rules, text)
    assert [s.arguments.get("date") for s in res.output.steps] == ["@tomorrow", "@tomorrow"]


def test_a_trailing_ask_the_whole_plan_dropped_is_added_when_a_clause_failed() -> None:
    text = "Find a room tomorrow at 2pm for 5 people for an hour, book it, and check the weather in Paris"
    find = step("find_meeting_room", start="<DATE1>", duration_min="<DUR1>", capacity="<NUM1>")
    book = step("book_meeting_room", room_id="${t1.room_id}", start="<DATE1>", duration_min="<DUR1>")
    rules = [
        (["book it, and check"], plan("book_meeting_room", find, book, deps={2: ["t1"]})),
        (["Find a room"], plan("find_meeting_room", find)),
        (["book it"], {"error": "insufficient_context", "required_fields": ["room_id"], "intent": "x_y"}),
        (
            ["weather in <CITY1>"],
            {"error": "insufficient_context", "required_fields": ["city"], "intent": "x_y"},
        ),
    ]
    res, _ = run(rules, text, refill=False)
    assert [s.tool for s in res.output.steps] == ["find_meeting_room", "book_meeting_room"]  # no plan to add
    rules[3] = (["weather in <CITY1>"], plan("query_weather", step("get_weather", city="<CITY1>")))
    res, _ = run(rules, text, refill=False)
    assert [s.tool for s in res.output.steps] == ["find_meeting_room", "book_meeting_room", "get_weather"]
    assert res.output.steps[2].arguments == {"city": "Paris"} and res.output.intent == "multi_task"
    off, _ = run(rules, text, refill=False, trailing_asks=False)
    assert [s.tool for s in off.output.steps] == ["find_meeting_room", "book_meeting_room"]


def test_a_step_repeating_an_earlier_one_is_dropped_at_the_end() -> None:
    """The last pass, for any registry: the same tool with the same arguments twice is one step, and
    what referred to the copy refers to the first."""
    text = "weather in Paris today and the weather in Paris today again"
    rules = [
        (
            ["weather in <CITY1>"],
            plan(
                "weather_twice",
                step("get_weather", city="<CITY1>", date="@today"),
                step("get_weather", city="<CITY1>", date="@today"),
            ),
        )
    ]
    res, _ = run(rules, text)
    assert [(s.tool, s.arguments.get("city")) for s in res.output.steps] == [("get_weather", "Paris")]


def test_clause_plans_win_at_equal_size_when_only_their_tools_are_worded() -> None:
    """ "pick my newest order and cancel it": the clause plans (list + cancel) replace the whole plan
    (list + logistics) of the same size, since only cancel has a word of its own in the request."""
    from tao.contracts import ThoughtPlan
    from tests.thought_model.test_compose import TOOLS, FakeEngine
    from thought_model.compose import ComposerConfig, ComposingEngine

    eng = ComposingEngine(FakeEngine([]), TOOLS, ComposerConfig())

    def p(*tools: str) -> ThoughtPlan:
        return ThoughtPlan.model_validate(
            plan("x_plan", *(step(t, order_id="123456789012345678") for t in tools))
        )

    masked = "pick my newest shipped order and cancel it, <TEXT1>"
    assert eng._better_worded(p("list_orders", "cancel_order"), p("list_orders", "get_logistics"), masked)
    assert not eng._better_worded(p("list_orders", "get_logistics"), p("list_orders", "cancel_order"), masked)
    tracked = "pick my newest order, cancel it and check the tracking"  # both worded: no swap
    assert not eng._better_worded(
        p("list_orders", "cancel_order"), p("list_orders", "get_logistics"), tracked
    )


def test_status_words_and_evidence_read_the_normalized_request() -> None:
    """ "shw me my pendng orders": the status filter from the corrected word; "trak it": the tracking
    step is evidenced by the corrected word and kept."""
    res, _ = run(
        [(["show me my pending orders"], plan("list_my_orders", step("list_orders", user_id="<ME>")))],
        "shw me my pendng orders",
    )
    assert [dict(s.arguments) for s in res.output.steps] == [{"user_id": ME, "status": "pending"}]


def test_a_whole_plan_with_a_misread_extra_step_gives_way_to_fewer_clause_steps() -> None:
    """ "帮我办三件事：A、B、C" splits at every 、 after the colon; the whole plan read the weather's
    <DATE1> as a calendar day too and the tracking ask as a status read: four steps where the three
    clause plans have three, and the misread steps account for the difference."""
    text = "帮我办三件事：北京今天多少度、订单 334455667788990011 到哪了、我明天有啥会"
    whole = plan(
        "multi_task",
        step("get_weather", city="<CITY1>", date="<DATE1>"),
        step("list_calendar_events", date="<DATE1>"),
        step("get_order_status", order_id="<ORDER1>"),
        step("list_calendar_events", date="<DATE2>"),
    )
    rules = [
        (["三件事", "有啥会"], whole),
        (["多少度"], plan("query_weather", step("get_weather", city="<CITY1>", date="<DATE1>"))),
        (["到哪了"], plan("track", step("get_logistics", order_id="<ORDER1>"))),
        (["有啥会"], plan("list_calendar_events", step("list_calendar_events", date="<DATE1>"))),
    ]
    res, _ = run(rules, text)
    assert [s.tool for s in res.output.steps] == ["get_weather", "get_logistics", "list_calendar_events"]
    off, _ = run(rules, text, misread_asks=False)
    assert len(off.output.steps) == 4
