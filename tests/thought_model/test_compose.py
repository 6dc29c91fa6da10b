"""Composition of clause plans: 2 and 3 intents, references through the registry's extract graph,
insufficient clauses filled from other clauses or earlier steps, acceptance against the
whole-request plan, and the engine interface (typed errors pass through)."""

from datetime import datetime

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, SessionState, ThoughtPlan
from thought_model.compose import ComposerConfig, ComposingEngine, RegistryGraph, _reference_tools
from thought_model.engine.base import PlanEngine, PlanRequest, PlanResult
from thought_model.output_parse import parse_output
from thought_model.sufficiency import SufficiencyConfig

TOOLS = _reference_tools()


def step(tool, **args):
    return {"tool": tool, "arguments": args}


def plan(intent, *steps, deps=None):
    deps = deps or {}
    return {
        "version": "1.0",
        "intent": intent,
        "steps": [{"step_id": f"t{i}", **s, "dependencies": deps.get(i, [])} for i, s in enumerate(steps, 1)],
    }


def insufficient(intent, *fields):
    return {"error": "insufficient_context", "required_fields": list(fields), "intent": intent}


class FakeEngine(PlanEngine):
    """Answers from rules (substrings of the masked prompt text -> output with slot tokens), parsed
    with the real parser against the request's perception; no rule -> LLM_OUTPUT_MALFORMED."""

    name = "fake"

    def __init__(self, rules):
        self.rules = rules
        self.codec = object()  # ComposingEngine wraps any codec it finds
        self.calls: list[list[str]] = []

    def generate(self, requests):
        import json

        out = []
        self.calls.append([r.perception.masked for r in requests])
        for r in requests:
            masked = r.perception.masked
            for needles, obj in self.rules:
                if all(n in masked for n in needles if not n.startswith("!")) and not any(
                    n[1:] in masked for n in needles if n.startswith("!")
                ):
                    text = json.dumps(obj, ensure_ascii=False)
                    out.append(
                        PlanResult(output=parse_output(text, r.perception, r.session, TOOLS), text=text)
                    )
                    break
            else:
                out.append(
                    PlanResult(error=ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message=masked))
                )
        return out


def rule(masked_exact, obj):
    """A rule matching one exact masked text."""
    return ([masked_exact], obj)


SESSION = SessionState(user_id="U00000001", now=datetime(2026, 5, 4, 9))
NO_USER = SessionState(now=datetime(2026, 5, 4, 9))


def run(rules, text, session=SESSION, **cfg):
    eng = ComposingEngine(FakeEngine(rules), TOOLS, ComposerConfig(**cfg))
    [res] = eng.generate([PlanRequest(text, session=session)])
    return res, eng


def exact(rules):
    """Rules that match only the exact masked text (the fake checks substrings)."""
    return [([k], v) for k, v in rules.items()]


def dumped(res):
    return res.output.model_dump(mode="json", exclude_none=True)


def test_two_intents_without_references():
    text = "Check status of order 112233445566778899 and also track order 998877665544332211"
    rules = [
        (
            ["Check status of order <ORDER1> and also track"],
            plan("query_order_status", step("get_order_status", order_id="<ORDER1>")),
        ),
        (
            ["Check status of order <ORDER1>"],
            plan("query_order_status", step("get_order_status", order_id="<ORDER1>")),
        ),
        (["track order <ORDER1>"], plan("track_logistics", step("get_logistics", order_id="<ORDER1>"))),
    ]
    res, _ = run(rules, text)
    assert res.ok
    assert dumped(res) == plan(
        "multi_task",
        step("get_order_status", order_id="112233445566778899"),
        step("get_logistics", order_id="998877665544332211"),
    )


def test_insufficient_clause_filled_by_a_reference_through_extract():
    text = "用户 U12345678 在哪个城市？顺便看看那里明天天气"
    rules = [
        (["在哪个城市？顺便"], plan("get_user_profile", step("get_user_profile", user_id="<USER1>"))),
        (["用户 <USER1> 在哪个城市"], plan("get_user_profile", step("get_user_profile", user_id="<USER1>"))),
        (
            ["看看<CITY1><DATE1>天气"],
            plan("query_weather", step("get_weather", city="<CITY1>", date="<DATE1>")),
        ),
        (["看看那里<DATE1>天气"], insufficient("query_weather", "city")),
    ]
    res, eng = run(rules, text)
    assert dumped(res) == plan(
        "multi_task",
        step("get_user_profile", user_id="U12345678"),
        step("get_weather", city="${t1.city}", date="@tomorrow"),
        deps={2: ["t1"]},
    )
    assert len(eng.inner.calls) == 2  # one batch for whole + clauses, one for the re-planned clause


def test_find_then_book_shares_slots_and_references_the_room():
    text = "look for a room for 5 people Friday 9am and reserve it for an hour"
    room = step("find_meeting_room", start="<DATE1>", duration_min="<DUR1>", capacity="<NUM1>")
    rules = [
        (["and reserve it"], plan("find_meeting_room", room)),
        (["look for a room for <NUM1> <DATE1> <DUR1>"], plan("find_meeting_room", room)),
        (["look for a room for <NUM1> <DATE1>"], insufficient("find_meeting_room", "duration_min")),
        (
            ["reserve <ROOM1> for <DUR1> <DATE1>"],
            plan(
                "book_room_by_id",
                step("book_meeting_room", room_id="<ROOM1>", start="<DATE1>", duration_min="<DUR1>"),
            ),
        ),
        (["reserve it for <DUR1>"], insufficient("book_room_by_id", "room_id", "start")),
    ]
    res, _ = run(rules, text)
    out = dumped(res)
    assert out["intent"] == "book_meeting_room"  # the reference domain's name for this plan shape
    assert [s["tool"] for s in out["steps"]] == ["find_meeting_room", "book_meeting_room"]
    assert out["steps"][1]["arguments"] == {
        "room_id": "${t1.room_id}",
        "start": "2026-05-08 09:00",
        "duration_min": 60,
    }
    assert out["steps"][1]["dependencies"] == ["t1"]


def test_three_intents_and_internal_dependencies_are_renumbered():
    text = "check the weather in Paris, list my calendar for tomorrow and email Tom Baker subject: x, body: y"
    rules = [
        (["check the weather in <CITY1>, list"], plan("query_weather", step("get_weather", city="<CITY1>"))),
        (["check the weather in <CITY1>"], plan("query_weather", step("get_weather", city="<CITY1>"))),
        (
            ["list my calendar for <DATE1>"],
            plan("list_calendar_events", step("list_calendar_events", date="<DATE1>")),
        ),
        (
            ["email <NAME1>"],
            plan(
                "email_user_by_name",
                step("find_user", name="<NAME1>"),
                step("get_user_profile", user_id="${t1.user_id}"),
                step("send_email", to="${t2.email}", subject="<TEXT1>", body="<TEXT2>"),
                deps={2: ["t1"], 3: ["t2"]},
            ),
        ),
    ]
    res, _ = run(rules, text)
    out = dumped(res)
    assert out["intent"] == "multi_task"
    assert [s["step_id"] for s in out["steps"]] == ["t1", "t2", "t3", "t4", "t5"]
    assert out["steps"][3]["arguments"] == {"user_id": "${t3.user_id}"}
    assert out["steps"][4]["arguments"] == {"to": "${t4.email}", "subject": "x", "body": "y"}
    assert [s["dependencies"] for s in out["steps"]] == [[], [], [], ["t3"], ["t4"]]


def test_repeated_ask_is_dropped_and_then_whole_plan_kept():
    text = "订单293847561029384756的状态和物流"
    status = plan("query_order_status", step("get_order_status", order_id="<ORDER1>"))
    rules = [(["的状态和物流"], status), (["订单<ORDER1>的状态"], status), (["订单<ORDER1>的物流"], status)]
    res, _ = run(rules, text)
    assert dumped(res)["intent"] == "query_order_status"  # composed = 1 distinct call: not more than whole


def test_whole_plan_kept_when_a_clause_cannot_be_filled():
    text = "cancel order 181625349708162534 and give me a refund"
    whole = insufficient("cancel_and_refund", "reason")
    rules = [
        (["and give me a refund"], whole),
        (["cancel order <ORDER1>"], insufficient("cancel_order", "reason")),
        (["give me a refund"], insufficient("refund_order", "order_id", "amount")),
    ]
    res, _ = run(rules, text, sufficiency=SufficiencyConfig(enabled=False))
    assert dumped(res) == whole
    res, _ = run(rules, text)  # the code's check: the intent's refund step lacks its amount too
    assert dumped(res) == insufficient("cancel_and_refund", "reason", "amount")
    res, _ = run(rules, text, union_insufficient=True)  # order_id is fillable from clause 1; the rest not
    assert isinstance(res.output, InsufficientContext)
    assert sorted(res.output.required_fields) == ["amount", "reason"]
    assert res.output.intent == "cancel_and_refund"


def test_fragment_of_the_same_ask_merges_into_one_step():
    text = "Create an event called 'Design Review' tomorrow at 2pm for 1 hour, invite Alice and Bob"
    ev = step(
        "create_calendar_event",
        title="<TEXT1>",
        start="<DATE1>",
        duration_min="<DUR1>",
        attendees=["<NAME1>", "<NAME2>"],
    )
    rules = [
        (["for <DUR1>, invite"], plan("create_calendar_event", ev)),
        (["invite <NAME1> and <NAME2>，"], plan("create_calendar_event", ev)),
        (["invite <NAME1> and <NAME2> "], plan("create_calendar_event", ev)),
        (
            ["invite <NAME1> and <NAME2>"],
            insufficient("create_calendar_event", "title", "start", "duration_min"),
        ),
        (
            ["Create an event called <TEXT1> <DATE1> for <DUR1>"],
            plan(
                "create_calendar_event",
                step("create_calendar_event", title="<TEXT1>", start="<DATE1>", duration_min="<DUR1>"),
            ),
        ),
    ]
    res, _ = run(rules, text)
    out = dumped(res)
    assert len(out["steps"]) == 1 and out["steps"][0]["arguments"]["attendees"] == ["Alice", "Bob"]


def test_errors_pass_through_and_unsplit_requests_make_one_call():
    res, eng = run([], "查询上个月的订单状态")
    assert not res.ok and res.error.error_type == ErrorType.LLM_OUTPUT_MALFORMED
    assert len(eng.inner.calls) == 1 and len(eng.inner.calls[0]) == 1


def test_malformed_whole_is_replaced_by_a_valid_composition():
    text = "Find user Nathan Ross and also tell me the weather in Seoul tomorrow"
    rules = [
        (["Find user <NAME1>", "!also"], plan("find_user", step("find_user", name="<NAME1>"))),
        (
            ["tell me the weather in <CITY1> <DATE1>", "!Find"],
            plan("query_weather", step("get_weather", city="<CITY1>", date="<DATE1>")),
        ),
    ]
    res, _ = run(rules, text, session=NO_USER)
    assert res.ok and [s.tool for s in res.output.steps] == ["find_user", "get_weather"]


def test_max_steps_bound():
    text = "check invoice INV1234567890 and expense EXP12345678"
    whole = plan("query_invoice", step("get_invoice", invoice_id="<INV1>"))
    periods = ("@today", "@yesterday", "@this_week", "@last_week", "@this_month", "@last_month")
    big = plan("list_my_orders", *[step("list_orders", user_id="<ME>", period=p) for p in periods])
    rules = [
        (["and expense"], whole),
        (["check invoice <INV1>"], big),
        (["check expense <EXP1>"], plan("query_expense", step("get_expense_status", expense_id="<EXP1>"))),
    ]
    # prune=False: the scripted list steps have no order word, and the evidence rule is not under test
    res, _ = run(rules, text, prune=False)  # 6 + 1 = 7 steps: within MAX_STEPS
    assert len(res.output.steps) == 7
    res, _ = run(rules, text, max_steps=6, prune=False)  # over the bound: the whole-request plan is kept
    assert dumped(res)["intent"] == "query_invoice" and len(res.output.steps) == 1


def test_registry_graph():
    g = RegistryGraph(TOOLS)
    assert g.provider("get_user_profile", "city") == "city"
    assert g.provider("find_meeting_room", "room_id") == "room_id"
    assert g.provider("list_orders", "order_id") == "order_id"
    assert g.provider("get_user_profile", "to") == "email"
    assert g.provider("get_weather", "room_id") is None
    assert g.slot_kinds("room_id") == ["ROOM"] and g.slot_kinds("duration_min") == ["DUR"]
    assert g.slot_kinds("city") == ["CITY"] and "DATE" in g.slot_kinds("start")


def test_disabled_composer_is_the_inner_engine():
    text = "check invoice INV1234567890 and expense EXP12345678"
    rules = [
        (
            ["check invoice <INV1> and expense <EXP1>"],
            plan("query_invoice", step("get_invoice", invoice_id="<INV1>")),
        )
    ]
    res, eng = run(rules, text, enabled=False)
    assert isinstance(res.output, ThoughtPlan) and len(res.output.steps) == 1
    assert eng.inner.calls == [["check invoice <INV1> and expense <EXP1>"]]


def test_selection_flag(monkeypatch):
    from thought_model import compose
    from thought_model.compose import maybe_composing

    inner = FakeEngine([])
    monkeypatch.delenv("TAO_COMPOSE", raising=False)
    monkeypatch.setattr(compose, "COMPOSE_DEFAULT", False)
    assert maybe_composing(inner) is inner
    monkeypatch.setattr(compose, "COMPOSE_DEFAULT", True)
    assert isinstance(maybe_composing(inner), ComposingEngine)
    monkeypatch.setenv("TAO_COMPOSE", "0")
    assert maybe_composing(inner) is inner
    monkeypatch.setenv("TAO_COMPOSE", "1")
    assert isinstance(maybe_composing(inner), ComposingEngine)
    assert maybe_composing(inner, enabled=False) is inner


def test_a_borrowing_clause_with_its_own_value_is_a_second_call():
    from datetime import date

    from thought_model.clauses import Clause
    from thought_model.compose_job import ComposeJob
    from thought_model.entities import perceive
    from thought_model.plan_concat import _own_value_call

    p = perceive("dublin weather tomorrow at 9am and at 6pm?", today=date(2026, 3, 1), user_known=True)
    job = ComposeJob(req=PlanRequest("x", session=SESSION), perception=p)
    c0 = {"<CITY1>": "Dublin", "<DATE1>": "@tomorrow T09:00"}
    c1 = {"<DATE2>": "@tomorrow T18:00", "<CITY1>": "Dublin"}
    job.clauses = [Clause("<CITY1> weather <DATE1>", c0), Clause("at <DATE2>? <CITY1>", c1)]
    job.borrowed = {1: {0}}

    def weather(day: str) -> ThoughtPlan:
        return ThoughtPlan.model_validate(
            {
                "intent": "query_weather",
                "steps": [
                    {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "Dublin", "date": day}}
                ],
            }
        )

    plans = [weather("@tomorrow T09:00"), weather("@tomorrow T18:00")]
    assert _own_value_call(job, 1, plans[1], plans)  # its own day: a second call
    plans = [weather("@tomorrow T09:00"), weather("@tomorrow T09:00")]
    assert not _own_value_call(job, 1, plans[1], plans)  # the lender's values only: a fragment
