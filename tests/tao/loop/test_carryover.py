"""The carry-over step (tao/loop/carryover.py) and the snapshot (tao/loop/snapshot.py).

Unit tests on hand-made snapshots, then whole conversations through the real loop with the
default plan model (CPU engine) and the reference domain's mock service in-process."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.domains import load_domain
from tao.loop.carryover import CarryConfig, CarryOver, CarryStrategy
from tao.loop.followup import CarryKind
from tao.loop.snapshot import MEMORY_KEY, Snapshot, StepSnap, list_items, load_snapshot

NOW = datetime.fromisoformat("2026-06-10T10:00:00+08:00")
SESSION = SessionState(session_id="s1", user_id="U00000001", now=NOW)
SCHEMAS = {t.name: t.args_schema for t in load_domain(None).tools}


def snap(tool: str, args: dict, request: str, **kw) -> Snapshot:
    return Snapshot(
        turn=1,
        request=request,
        effective_request=request,
        steps=[StepSnap(step_id="t1", tool=tool, arguments=args, **kw)],
        entities=dict(args),
    )


def carry_over(strategy: CarryStrategy = CarryStrategy.REWRITE) -> CarryOver:
    return CarryOver(SCHEMAS, CarryConfig(strategy=strategy))


def test_swap_month_rewrites_and_edits_the_previous_plan() -> None:
    s = snap("list_orders", {"user_id": "U00000001", "period": "2026-05-01/2026-05-31"}, "查询我上个月的订单")
    c = carry_over().prepare("那3月呢？", SESSION, s)
    assert c.kind is CarryKind.SWAP
    assert c.request == "查询我2026年3月的订单"
    assert c.base_steps == [
        {
            "step_id": "t1",
            "tool": "list_orders",
            "arguments": {"user_id": "U00000001", "period": "2026-03"},
            "dependencies": [],
        }
    ]
    # fill strategy: the model sees the user's words; the same edited plan backs it
    f = carry_over(CarryStrategy.FILL).prepare("那3月呢？", SESSION, s)
    assert f.request == "那3月呢？" and f.base_steps == c.base_steps


def test_swap_keeps_the_carried_day_or_clock() -> None:
    s = snap(
        "find_meeting_room",
        {"start": "2026-06-11 14:00", "duration_min": 30, "capacity": 6},
        "find a room for 6 people tomorrow at 2pm for 30 minutes",
    )
    clock = carry_over().prepare("make it 4pm instead", SESSION, s)
    assert clock.base_steps is not None
    assert clock.base_steps[0]["arguments"]["start"] == "2026-06-11 16:00"
    day = carry_over().prepare("改成后天", SESSION, s)
    assert day.base_steps is not None
    assert day.base_steps[0]["arguments"]["start"] == "2026-06-12 14:00"
    people = carry_over().prepare("换成12个人", SESSION, s)
    assert people.base_steps is not None
    assert people.base_steps[0]["arguments"] == {
        "start": "2026-06-11 14:00",
        "duration_min": 30,
        "capacity": 12,
    }


def test_guard_and_anchor() -> None:
    s = snap("get_weather", {"city": "北京", "date": "2026-06-11"}, "北京明天天气怎么样")
    co = carry_over()
    c = co.prepare("那上海呢", SESSION, s)
    # the model planned another tool: the edited snapshot plan is used
    wrong = ThoughtPlan.model_validate(
        {
            "intent": "calendar",
            "steps": [{"step_id": "t1", "tool": "list_calendar_events", "arguments": {"date": "@today"}}],
        }
    )
    out = co.apply(c, wrong)
    assert isinstance(out, ThoughtPlan)
    assert [(s.tool, s.arguments) for s in out.steps] == [
        ("get_weather", {"city": "上海", "date": "2026-06-11"})
    ]
    assert any(n.startswith("guard:") for n in c.notes)
    # same tool, but the rewritten "明天" read against a later clock: the anchor wins
    later = co.prepare(
        "那上海呢", SESSION.model_copy(update={"now": datetime.fromisoformat("2026-06-12T09:00:00+08:00")}), s
    )
    model = ThoughtPlan.model_validate(
        {
            "intent": "weather",
            "steps": [
                {"step_id": "t1", "tool": "get_weather", "arguments": {"city": "上海", "date": "@tomorrow"}}
            ],
        }
    )
    out = co.apply(later, model)
    assert isinstance(out, ThoughtPlan) and out.steps[0].arguments["date"] == "2026-06-11"
    # an insufficient-context answer on a swap: the edited plan
    out = co.apply(co.prepare("那上海呢", SESSION, s), InsufficientContext(required_fields=["city"]))
    assert isinstance(out, ThoughtPlan) and out.steps[0].arguments["city"] == "上海"


def test_refer_ordinal_and_completion() -> None:
    s = snap(
        "find_meeting_room",
        {"start": "2026-06-11 15:00", "duration_min": 60, "capacity": 6},
        "find a room for 6 people tomorrow at 3pm for 1 hour",
        extracted={"room_id": "R101"},
        items={"room_id": ["R101", "R102", "R103"]},
    )
    s.entities["room_id"] = "R101"
    co = carry_over()
    c = co.prepare("book the second one", SESSION, s)
    assert c.kind is CarryKind.REFER and c.request == "book room R102"
    assert c.ref == {"text": "the second one", "name": "room_id", "value": "R102"}
    out = co.apply(
        c, InsufficientContext(required_fields=["start", "duration_min"], intent="book_room_by_id")
    )
    assert isinstance(out, ThoughtPlan)
    assert [(s.tool, s.arguments) for s in out.steps] == [
        ("book_meeting_room", {"room_id": "R102", "start": "2026-06-11 15:00", "duration_min": 60})
    ]


def test_refer_pronoun_and_implicit_reference() -> None:
    oid = "202605121234567890"
    s = snap(
        "get_order_status",
        {"order_id": oid},
        f"查询订单{oid}的状态",
        extracted={"order_id": oid, "status": "shipped"},
    )
    co = carry_over()
    c = co.prepare("它的物流呢", SESSION, s)
    assert c.request == f"订单{oid}的物流呢"
    # no cue at all, but the request only lacks the conversation's order id
    n = co.prepare("物流到哪了", SESSION, s)
    assert n.kind is CarryKind.NEW
    out = co.apply(n, InsufficientContext(required_fields=["order_id"], intent="track_logistics"))
    assert isinstance(out, ThoughtPlan) and [(x.tool, x.arguments) for x in out.steps] == [
        ("get_logistics", {"order_id": oid})
    ]
    # a missing free-text field is never invented from the conversation
    ins = InsufficientContext(required_fields=["reason"], intent="cancel_order")
    assert co.apply(n, ins) is ins


def test_new_requests_and_off() -> None:
    s = snap("get_weather", {"city": "北京", "date": "2026-06-11"}, "北京明天天气怎么样")
    c = carry_over().prepare("查询我上个月的订单", SESSION, s)
    assert c.kind is CarryKind.NEW and c.request == "查询我上个月的订单"
    off = carry_over(CarryStrategy.OFF).prepare("那上海呢", SESSION, s)
    assert off.kind is CarryKind.NEW


def test_snapshot_helpers() -> None:
    assert list_items({"rooms": [{"room_id": "R1", "capacity": 4}, {"room_id": "R2"}], "count": 2}) == {
        "room_id": ["R1", "R2"]
    }
    assert load_snapshot({}) is None
    assert load_snapshot({MEMORY_KEY: {"turn": "not a number"}}) is None


# --------------------------------------------------------------------------- with the model
@pytest.fixture(scope="module")
def engine():
    from tao.loop.runtime import load_plan_engine
    from thought_model.checkpoint import DEFAULT_CHECKPOINT

    e = load_plan_engine(DEFAULT_CHECKPOINT, "cpu")
    yield e
    e.close()


def converse(engine, turns, store=None, sessions=None):
    """Play turns through one Runtime (mock service in-process); returns the reports."""
    from tao.action.permissions import approve_tools
    from tao.loop.planner import EnginePlanner
    from tao.loop.runtime import Runtime
    from tao.loop.session import MemorySessionStore
    from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_domain

    async def go():
        rt = Runtime(
            domain=checkpoint_domain(DEFAULT_CHECKPOINT, None, full=True),
            session_store=store or MemorySessionStore(),
        )
        try:
            loop = rt.loop(EnginePlanner(engine))
            out = []
            for i, text in enumerate(turns):
                sess = sessions[i] if sessions else SESSION
                out.append(await loop.run(text, sess, approver=approve_tools(sorted(SCHEMAS))))
            return out
        finally:
            await rt.aclose()

    return asyncio.run(go())


def args_of(report) -> list[tuple[str, dict]]:
    return [(s["tool"], s["arguments"]) for s in (report.plan or {}).get("steps", [])]


@pytest.mark.slow
def test_conversation_months_and_trajectory(engine) -> None:
    r = converse(engine, ["查询我上个月的订单", "那3月呢？", "换成上周"])
    assert args_of(r[0]) == [("list_orders", {"user_id": "U00000001", "period": "2026-05-01/2026-05-31"})]
    assert args_of(r[1]) == [("list_orders", {"user_id": "U00000001", "period": "2026-03"})]
    assert args_of(r[2]) == [("list_orders", {"user_id": "U00000001", "period": "2026-06-01/2026-06-07"})]
    ctx = next(e for e in r[1].events if e.kind == "context_built").payload
    assert ctx["snapshot"]["steps"][0]["arguments"]["period"] == "2026-05-01/2026-05-31"
    assert ctx["carry_over"]["kind"] == "swap" and ctx["carry_over"]["request"] == "查询我2026年3月的订单"
    final = next(e for e in r[1].events if e.kind == "final").payload
    assert final["snapshot"]["turn"] == 2 and final["snapshot"]["intent"]
    assert final["snapshot"]["steps"][0]["extracted"]  # the result's extracted values (count, order_id)


@pytest.mark.slow
def test_conversation_book_the_first_one(engine) -> None:
    r = converse(
        engine, ["find a meeting room for 6 people tomorrow at 3pm for 1 hour", "book the first one"]
    )
    assert args_of(r[0]) == [
        ("find_meeting_room", {"start": "2026-06-11 15:00", "duration_min": 60, "capacity": 6})
    ]
    assert args_of(r[1]) == [
        ("book_meeting_room", {"room_id": "R101", "start": "2026-06-11 15:00", "duration_min": 60})
    ]
    assert r[1].status == "success"


@pytest.mark.slow
def test_time_anchor_survives_a_later_clock(engine) -> None:
    """Turn 1 on June 10 asks for tomorrow (June 11); turn 2 on June 12 changes the city only: the
    day stays June 11 (the anchor), it is not "tomorrow" again."""
    later = SESSION.model_copy(update={"now": datetime.fromisoformat("2026-06-12T09:00:00+08:00")})
    r = converse(engine, ["北京明天天气怎么样", "那上海呢"], sessions=[SESSION, later])
    assert args_of(r[0]) == [("get_weather", {"city": "北京", "date": "2026-06-11"})]
    assert args_of(r[1]) == [("get_weather", {"city": "上海", "date": "2026-06-11"})]


@pytest.mark.slow
def test_replayed_plans_are_never_carried() -> None:
    from tao.loop.planner import ReplayPlanner
    from tao.loop.runtime import Runtime
    from tao.loop.session import MemorySessionStore

    plan = {
        "intent": "weather",
        "steps": [{"step_id": "t1", "tool": "get_weather", "arguments": {"city": "北京"}}],
    }

    async def go():
        rt = Runtime(session_store=MemorySessionStore())
        try:
            loop = rt.loop(ReplayPlanner(plan))
            await loop.run("北京明天天气怎么样", SESSION)
            return await loop.run("那上海呢", SESSION)
        finally:
            await rt.aclose()

    rep = asyncio.run(go())
    assert rep.plan is not None and rep.plan["steps"][0]["arguments"]["city"] == "北京"
    ctx = next(e for e in rep.events if e.kind == "context_built").payload
    assert ctx["carry_over"] is None and ctx["snapshot"]["turn"] == 1


@pytest.mark.slow
def test_redis_sessions_keep_tenants_apart(engine, redis_server) -> None:
    from tao.loop.session import RedisSessionStore

    store = RedisSessionStore.from_url(redis_server.url, prefix="tao:test-carry")
    a = SESSION.model_copy(update={"tenant": "acme"})
    b = SESSION.model_copy(update={"tenant": "globex"})
    r = converse(engine, ["北京明天天气怎么样", "那上海呢"], store=store, sessions=[a, b])
    # tenant globex, same session id: it never sees acme's snapshot, so nothing is carried
    ctx = next(e for e in r[1].events if e.kind == "context_built").payload
    assert ctx["snapshot"] is None and ctx["carry_over"]["kind"] == "new"
    got = store.get("acme", "s1")
    assert got is not None and got.memory[MEMORY_KEY]["steps"][0]["arguments"]["city"] == "北京"
    r2 = converse(engine, ["那上海呢"], store=store, sessions=[a])
    assert args_of(r2[0]) == [("get_weather", {"city": "上海", "date": "2026-06-11"})]


def test_refer_its_noun_becomes_the_noun_of_the_entity() -> None:
    s = snap("get_order_status", {"order_id": "202605121234567890"}, "check order 202605121234567890")
    c = carry_over().prepare("and its invoice?", SESSION, s)
    assert c.kind is CarryKind.REFER
    assert c.request == "and the invoice of order 202605121234567890?"
