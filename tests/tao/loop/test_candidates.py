"""Session candidates of the carry-over step (tao/loop/candidates.py) and the turn cues
(tao/loop/turn_cues.py): hand-made snapshots, a scripted stand-in for the plan model."""

from __future__ import annotations

import asyncio
from datetime import date, datetime

import pytest

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.domains import load_domain
from tao.loop.candidates import settle
from tao.loop.carryover import CarryConfig, CarryOver
from tao.loop.followup import CarryKind, perceive_deltas
from tao.loop.session_values import own_cues
from tao.loop.snapshot import PendingSnap, Snapshot, StepSnap
from tao.loop.turn_cues import anchor_of, correction_of, extra_deltas, person_of

NOW = datetime.fromisoformat("2026-06-10T10:00:00+08:00")
SESSION = SessionState(session_id="s1", user_id="U00000001", now=NOW)
DOMAIN = load_domain(None)
SCHEMAS = {t.name: t.args_schema for t in DOMAIN.tools}
CO = CarryOver(SCHEMAS, CarryConfig(lexicon=DOMAIN.lexicon))


def snap(steps: list[tuple[str, dict]], request: str, **kw) -> Snapshot:
    rows = [StepSnap(step_id=f"t{i + 1}", tool=t, arguments=a) for i, (t, a) in enumerate(steps)]
    ents = {k: v for _, a in steps for k, v in a.items()}
    return Snapshot(turn=1, request=request, effective_request=request, steps=rows, entities=ents, **kw)


def plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": steps[0][0],
            "steps": [{"step_id": f"t{i + 1}", "tool": t, "arguments": a} for i, (t, a) in enumerate(steps)],
        }
    )


class Script:
    """The plan model's stand-in: request -> output, and the requests it was asked."""

    def __init__(self, answers: dict[str, ThoughtPlan | InsufficientContext]) -> None:
        self.answers, self.asked = answers, []

    async def __call__(self, text: str) -> ThoughtPlan | InsufficientContext | None:
        self.asked.append(text)
        return self.answers.get(text)


def run(request: str, s: Snapshot, first, answers: dict | None = None):
    carry = CO.prepare(request, SESSION, s)
    script = Script(answers or {})
    out = asyncio.run(settle(CO, carry, CO.apply(carry, first), script))
    return carry, out, script


def steps_of(out) -> list[tuple[str, dict]]:
    assert isinstance(out, ThoughtPlan), out
    return [(s.tool, dict(s.arguments)) for s in out.steps]


# --------------------------------------------------------------------------- turn cues
def test_turn_cues() -> None:
    assert anchor_of("also put it on my calendar at the same time") == ("time", "at the same time")
    assert anchor_of("同一时间再建个日程") == ("time", "同一时间")
    assert anchor_of("what's on my calendar the same day?") == ("day", "the same day")
    assert anchor_of("那天我有什么日程") == ("day", "那天")
    assert anchor_of("what's the weather tomorrow") is None
    assert person_of("他的详细资料呢") == "他" and person_of("其他订单") is None
    assert person_of("their profile pls") == "their" and person_of("my profile") is None
    assert correction_of("sorry, I meant Sunday") and correction_of("哎不对，人数是12个")
    assert correction_of("what about Friday") is None


def test_extra_deltas_headcount_currency_typo_and_coordinated_city() -> None:
    lex = DOMAIN.lexicon
    assert [(d.type, d.value) for d in extra_deltas("人数是12个", [], lex)] == [("NUM", 12)]
    assert [(d.type, d.value) for d in extra_deltas("refund £24.99 please", [], lex)] == [("AMOUNT", 24.99)]
    assert [(d.type, d.value) for d in extra_deltas("and shenzen", [], lex)] == [("CITY", "Shenzhen")]
    got = perceive_deltas("what about Milan and Venice?", date(2026, 6, 10), lex)
    assert [(d.type, d.value) for d in got] == [("CITY", "Milan"), ("CITY", "Venice")]
    assert extra_deltas("and the weather", [], lex) == []  # 'weather' is no city one letter off


def test_own_cues_name_tools_once_values_are_out() -> None:
    tools = tuple(sorted(SCHEMAS))
    assert own_cues("sorry, I meant Sunday", [], tools) == set()
    assert "calendar" in own_cues("what's on my calendar the same day?", [], tools)
    assert own_cues("last month", [], tools) == set()  # 'list' words are time words, not a tool


# --------------------------------------------------------------------------- swap candidates
def test_correction_swaps_the_previous_plan_when_planned_alone_is_wrong() -> None:
    s = snap([("get_weather", {"city": "Paris", "date": "2026-06-13"})], "weather in Paris on Saturday")
    carry, out, _ = run(
        "sorry, I meant Sunday", s, plan(("list_calendar_events", {"date": "@day_after_tomorrow"}))
    )
    assert steps_of(out) == [("get_weather", {"city": "Paris", "date": "2026-06-14"})]
    assert carry.candidate == "swap" and carry.kind is CarryKind.SWAP
    assert any("candidate swap kept" in n for n in carry.notes)


def test_the_value_being_corrected_is_dropped() -> None:
    s = snap(
        [("get_weather", {"city": "Chengdu", "date": "2026-06-11"})], "what's the weather in chengdu tomorrow"
    )
    _, out, _ = run("oops i meant lanzhou not chengdu", s, InsufficientContext(required_fields=["city"]))
    assert steps_of(out) == [("get_weather", {"city": "Lanzhou", "date": "2026-06-11"})]


def test_two_values_of_one_kind_fan_out() -> None:
    s = snap([("get_weather", {"city": "Rome", "date": "2026-06-11"})], "weather in Rome tomorrow?")
    carry = CO.prepare("what about Milan and Venice?", SESSION, s)
    assert carry.kind is CarryKind.SWAP and carry.base_steps is not None
    assert [b["arguments"] for b in carry.base_steps] == [
        {"city": "Milan", "date": "2026-06-11"},
        {"city": "Venice", "date": "2026-06-11"},
    ]


def test_filter_value_swap_keeps_the_rest() -> None:
    s = snap([("list_orders", {"user_id": "U00000001", "period": "2026-06"})], "list my orders this month")
    _, out, _ = run("what about refunded?", s, InsufficientContext(required_fields=["order_id", "amount"]))
    assert steps_of(out) == [
        ("list_orders", {"user_id": "U00000001", "period": "2026-06", "status": "refunded"})
    ]
    s2 = snap(
        [("list_orders", {"user_id": "U00000001", "period": "2026-06", "status": "shipped"})],
        "查下我这个月已发货的订单",
    )
    _, out2, _ = run("那已取消的呢", s2, InsufficientContext(required_fields=["reason"]))
    assert steps_of(out2)[0][1]["status"] == "cancelled"


def test_a_new_id_without_a_tool_cue_swaps_into_the_previous_plan() -> None:
    s = snap(
        [("list_user_calendar_events", {"user_id": "U30182245", "date": "2026-06-11"})],
        "U30182245 明天的日程",
    )
    carry, out, _ = run("再看看 U30182246", s, plan(("get_user_profile", {"user_id": "U30182246"})))
    assert steps_of(out) == [("list_user_calendar_events", {"user_id": "U30182246", "date": "2026-06-11"})]
    assert carry.candidate == "swap"


def test_a_turn_naming_its_own_tool_keeps_its_plan() -> None:
    s = snap([("get_weather", {"city": "北京", "date": "2026-06-11"})], "北京明天天气")
    first = plan(("list_expenses", {"user_id": "U00000001", "period": "2026-05"}))
    carry, out, script = run("我上个月的报销单", s, first)
    assert out is first and carry.candidate is None and script.asked == []


# --------------------------------------------------------------------------- referents, anchors
def test_person_pronoun_chains_the_finding_step() -> None:
    s = snap([("find_user", {"email": "chen.li@corp.com"})], "who has the email chen.li@corp.com")
    carry, out, _ = run("their profile pls", s, plan(("get_user_profile", {"user_id": "U00000001"})))
    assert steps_of(out) == [
        ("find_user", {"email": "chen.li@corp.com"}),
        ("get_user_profile", {"user_id": "${t1.user_id}"}),
    ]
    assert carry.candidate == "referent" and carry.kind is CarryKind.REFER


def test_person_pronoun_rewrite_is_planned_and_must_use_the_person() -> None:
    s = snap([("find_user", {"phone": "13812345678"})], "帮我查一下手机号13812345678是谁")
    chain = plan(("find_user", {"phone": "13812345678"}), ("get_user_profile", {"user_id": "${t1.user_id}"}))
    carry, out, script = run(
        "他的详细资料呢",
        s,
        InsufficientContext(required_fields=["user_id"]),
        {"手机号13812345678的用户的详细资料呢": chain},
    )
    assert script.asked[0] == "手机号13812345678的用户的详细资料呢"
    assert steps_of(out) == steps_of(chain) and carry.request == "手机号13812345678的用户的详细资料呢"
    # a plan that ignores the person is not kept
    _, out2, _ = run(
        "他的详细资料呢",
        s,
        InsufficientContext(required_fields=["user_id"]),
        {"手机号13812345678的用户的详细资料呢": plan(("get_user_profile", {"user_id": "U00000001"}))},
    )
    assert isinstance(out2, InsufficientContext)


def test_same_time_is_the_previous_turns_resolved_time() -> None:
    s = snap(
        [("book_meeting_room", {"room_id": "R102", "start": "2026-06-11 15:00", "duration_min": 60})],
        "book R102 tomorrow at 3pm for an hour",
    )
    want = "also put 'design review' on my calendar on 2026-06-11 at 15:00 for 60 minutes"
    ev = plan(
        ("create_calendar_event", {"title": "design review", "start": "2026-06-11 15:00", "duration_min": 60})
    )
    carry, out, script = run(
        "also put 'design review' on my calendar at the same time",
        s,
        InsufficientContext(required_fields=["start", "duration_min"]),
        {want: ev},
    )
    assert script.asked[0] == want and steps_of(out) == steps_of(ev) and carry.candidate == "anchor"


def test_missing_fields_come_from_the_snapshot_and_a_day_keeps_the_clock() -> None:
    s = snap(
        [("find_meeting_room", {"start": "2026-06-11 14:00", "duration_min": 90, "capacity": 6})],
        "find a room for 6 people on Thursday at 2pm for 90 minutes",
    )
    want = "book R105 for on 2026-06-19 at 14:00 then for 90 minutes"
    bk = plan(("book_meeting_room", {"room_id": "R105", "start": "2026-06-19 14:00", "duration_min": 90}))
    carry, out, script = run(
        "book R105 for next Friday then", s, InsufficientContext(required_fields=["duration_min"]), {want: bk}
    )
    assert script.asked == [want] and steps_of(out) == steps_of(bk) and carry.candidate == "missing"


def test_no_candidate_plans_completely_keeps_the_insufficient_answer() -> None:
    s = snap(
        [
            (
                "submit_expense",
                {"amount": 45, "category": "meal", "date": "2026-06-09", "description": "team lunch"},
            )
        ],
        "submit a meal expense",
    )
    ins = InsufficientContext(required_fields=["amount", "description"])
    carry, out, _ = run("还有一顿晚饭也要报，同一天", s, ins)
    assert out == ins and carry.candidate is None
    assert any(n.startswith("candidate anchor") for n in carry.notes)


def test_an_open_question_answered_with_an_unread_value_uses_the_previous_request() -> None:
    s = Snapshot(turn=1, request="幫我找間會議室", effective_request="幫我找間會議室", status="failed")
    want = "幫我找間會議室，15人"
    fr = plan(("find_meeting_room", {"start": "2026-06-15 10:00", "duration_min": 60, "capacity": 15}))
    carry, out, _ = run("15人", s, InsufficientContext(required_fields=["start", "duration_min"]), {want: fr})
    assert steps_of(out) == steps_of(fr) and carry.candidate == "previous" and carry.kind is CarryKind.ANSWER


def test_an_answer_naming_another_task_is_planned_alone() -> None:
    s = Snapshot(
        turn=1,
        request="帮我建个日程",
        effective_request="帮我建个日程",
        pending=PendingSnap(
            request="帮我建个日程", intent="create_calendar_event", required_fields=["title"]
        ),
    )
    first = plan(
        ("create_calendar_event", {"title": "深圳", "start": "@tomorrow T16:00", "duration_min": 60})
    )
    w = plan(("get_weather", {"city": "深圳", "date": "@today"}))
    carry, out, script = run("深圳天气怎么样", s, first, {"深圳天气怎么样": w})
    assert carry.kind is CarryKind.NEW and script.asked == ["深圳天气怎么样"] and out == w
    # planned alone it is no better (insufficient): the answer's reading stands
    _, out2, _ = run(
        "深圳天气怎么样", s, first, {"深圳天气怎么样": InsufficientContext(required_fields=["date"])}
    )
    assert out2 == first


def test_anchor_takes_an_open_questions_own_time() -> None:
    then = "2026-03-03T09:00:00+08:00"
    req = "帮我建个日程，明天下午4点，项目周会，1小时"
    s = Snapshot(
        turn=1,
        request=req,
        effective_request=req,
        now=then,
        status="needs_user",
        pending=PendingSnap(request=req, intent="create_calendar_event", required_fields=["title"]),
    )
    session = SESSION.model_copy(update={"now": datetime.fromisoformat(then)})
    carry = CO.prepare("那天深圳天气怎么样", session, s)
    w = plan(("get_weather", {"city": "深圳", "date": "2026-03-04"}))
    script = Script({"2026-03-04深圳天气怎么样": w})
    first = plan(("get_weather", {"city": "深圳", "date": "@today"}))
    out = asyncio.run(settle(CO, carry, CO.apply(carry, first), script))
    assert script.asked[0] == "2026-03-04深圳天气怎么样" and steps_of(out) == steps_of(w)


def test_an_anchored_rewrite_still_insufficient_is_the_better_question() -> None:
    s = snap(
        [
            (
                "submit_expense",
                {"amount": 56, "category": "transport", "date": "2026-06-09", "description": "去机场"},
            )
        ],
        "报销昨天的打车费",
    )
    better = InsufficientContext(required_fields=["amount", "description"], intent="submit_expense")
    carry, out, _ = run(
        "还有一顿晚饭也要报，同一天",
        s,
        InsufficientContext(required_fields=["city"]),
        {"还有一顿晚饭也要报，2026-06-09": better},
    )
    assert out == better and carry.candidate == "anchor"
    # asking for the speaker's own id, or for the anchored time again, is no better
    for worse in (["user_id"], ["date"]):
        _, out2, _ = run(
            "还有一顿晚饭也要报，同一天",
            s,
            InsufficientContext(required_fields=["city"]),
            {"还有一顿晚饭也要报，2026-06-09": InsufficientContext(required_fields=worse)},
        )
        assert isinstance(out2, InsufficientContext) and out2.required_fields == ["city"], worse


def test_correction_names_a_place_perception_does_not_know() -> None:
    lex = DOMAIN.lexicon
    assert [(d.type, d.value) for d in extra_deltas("my bad, Marseille", [], lex)] == [("CITY", "Marseille")]
    assert extra_deltas("Marseille", [], lex) == []  # no correction, no guess


def test_the_day_after_is_the_earlier_day_plus_one_and_the_weekend_is_a_value() -> None:
    assert anchor_of("and the day after?") == ("day+1", "the day after")
    assert anchor_of("前一天呢") == ("day-1", "前一天")
    assert [(d.type, d.value) for d in extra_deltas("那周末呢", [], DOMAIN.lexicon)] == [
        ("DATE", "@this_weekend")
    ]
    assert extra_deltas("下周末呢", [], DOMAIN.lexicon) == []  # not this weekend
    s = snap(
        [("get_weather", {"city": "Paris", "date": "2026-06-11"})], "what's the weather in Paris tomorrow"
    )
    carry, out, script = run("and the day after?", s, plan(("list_calendar_events", {"date": "@today"})))
    assert steps_of(out) == [("get_weather", {"city": "Paris", "date": "2026-06-12"})]
    assert carry.candidate == "swap" and script.asked == []  # no tool cue: the swap is tried first


def test_a_capitalized_word_before_and_a_city_is_a_city() -> None:
    got = perceive_deltas("and Helsinki and Stockholm?", date(2026, 6, 10), DOMAIN.lexicon)
    assert sorted((d.type, d.value) for d in got) == [("CITY", "Helsinki"), ("CITY", "Stockholm")]


def test_a_better_question_is_about_a_task_that_needs_the_anchored_time() -> None:
    s = snap(
        [
            (
                "submit_expense",
                {"amount": 88, "category": "transport", "date": "2026-06-08", "description": "见客户"},
            )
        ],
        "报销出租车费",
    )
    _, out, _ = run(
        "同一天还有一笔餐费",
        s,
        InsufficientContext(required_fields=["amount", "description"]),
        {"2026-06-08还有一笔餐费": InsufficientContext(required_fields=["city"])},
    )
    assert isinstance(out, InsufficientContext) and out.required_fields == ["amount", "description"]


# --------------------------------------------------------------------------- with the model
@pytest.fixture(scope="module")
def engine():
    from tao.loop.runtime import load_plan_engine
    from thought_model.checkpoint import DEFAULT_CHECKPOINT

    e = load_plan_engine(DEFAULT_CHECKPOINT, "cpu")
    yield e
    e.close()


@pytest.mark.slow
def test_through_the_loop_a_correction_and_a_person(engine) -> None:
    """The real loop (default model, mock service): the candidate's plan is what runs, and the
    final event's carry_over says which candidate was kept."""
    from tao.action.permissions import approve_tools
    from tao.loop.planner import EnginePlanner
    from tao.loop.runtime import Runtime
    from tao.loop.session import MemorySessionStore
    from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain

    async def go(turns: list[str]) -> list:
        rt = Runtime(
            domain=checkpoint_domain(DEFAULT_CHECKPOINT, None, full=True), session_store=MemorySessionStore()
        )
        try:
            loop = rt.loop(EnginePlanner(engine))
            return [await loop.run(t, SESSION, approver=approve_tools(sorted(SCHEMAS))) for t in turns]
        finally:
            await rt.aclose()

    r = asyncio.run(go(["weather in Paris on Saturday", "sorry, I meant Sunday"]))
    assert [(s["tool"], s["arguments"]) for s in r[1].plan["steps"]] == [
        ("get_weather", {"city": "Paris", "date": "2026-06-14"})
    ]
    final = next(e for e in r[1].events if e.kind == "final").payload["carry_over"]
    assert final["candidate"] == "swap" and final["kind"] == "swap"
    assert any(n.startswith("candidate swap kept") for n in final["notes"])
    r2 = asyncio.run(go(["who has the email chen.li@corp.com", "their profile pls"]))
    assert [s["tool"] for s in r2[1].plan["steps"]] == ["find_user", "get_user_profile"]
    assert r2[1].plan["steps"][1]["arguments"] == {"user_id": "${t1.user_id}"}


def test_a_bare_answer_is_labelled_with_the_field_the_question_asked() -> None:
    def pending(req: str, missing: list[str]) -> Snapshot:
        return Snapshot(
            turn=1,
            request=req,
            effective_request=req,
            status="needs_user",
            pending=PendingSnap(request=req, required_fields=missing),
        )

    room = pending("find me a room tomorrow 3pm for an hour", ["capacity"])
    c = CO.prepare("we're 11", SESSION, room)
    assert (
        c.kind is CarryKind.ANSWER and c.request == "find me a room tomorrow 3pm for an hour, for 11 people"
    )
    cancel = pending("帮我取消订单202605121234567890", ["reason"])
    c2 = CO.prepare("买重复了", SESSION, cancel)
    assert c2.kind is CarryKind.ANSWER and c2.request == "帮我取消订单202605121234567890，原因是买重复了"
    # a turn naming another task is no labelled answer
    assert CO.prepare("list my orders", SESSION, room).kind is CarryKind.NEW
    # a number without a unit is the head count, not the duration
    two = pending("帮我找个明天下午两点的会议室", ["duration_min", "capacity"])
    c3 = CO.prepare("8个", SESSION, two)
    assert c3.kind is CarryKind.ANSWER and c3.request == "帮我找个明天下午两点的会议室，8个人"
