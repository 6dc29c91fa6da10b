"""Follow-up turns of issue #18's families D1-D4 (tao/loop/identity.py, the repeat cue and the
person's address of tao/loop/candidates.py, the title label of tao/loop/session_values.py): hand-made
snapshots, a scripted stand-in for the plan model."""

from __future__ import annotations

import asyncio
from datetime import datetime

from tao.contracts import InsufficientContext, SessionState, ThoughtPlan
from tao.domains import load_domain
from tao.loop.candidates import settle
from tao.loop.carryover import CarryConfig, CarryOver
from tao.loop.followup import CarryKind
from tao.loop.snapshot import PendingSnap, Snapshot, StepSnap
from tao.loop.turn_cues import anchor_of, repeat_of

NOW = datetime.fromisoformat("2026-06-10T10:00:00+08:00")
ME = SessionState(session_id="s1", user_id="U00000001", now=NOW)
ANON = SessionState(session_id="s2", now=NOW)
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
    def __init__(self, answers: dict[str, ThoughtPlan | InsufficientContext]) -> None:
        self.answers, self.asked = answers, []

    async def __call__(self, text: str) -> ThoughtPlan | InsufficientContext | None:
        self.asked.append(text)
        return self.answers.get(text)


def run(request: str, s: Snapshot, first, answers: dict | None = None, session: SessionState = ME):
    carry = CO.prepare(request, session, s)
    script = Script(answers or {})
    out = asyncio.run(settle(CO, carry, CO.apply(carry, first), script))
    return carry, out, script


def steps_of(out) -> list[tuple[str, dict]]:
    assert isinstance(out, ThoughtPlan), out
    return [(s.tool, dict(s.arguments)) for s in out.steps]


def pending(request: str, *fields: str, intent: str | None = None) -> Snapshot:
    return snap(
        [], request, pending=PendingSnap(request=request, intent=intent, required_fields=list(fields))
    )


def test_period_anchor_phrases() -> None:
    assert anchor_of("同期的报销也列一下") == ("period", "同期")
    assert anchor_of("and my expenses over that same stretch") == ("period", "over that same stretch")
    assert anchor_of("same month, my expenses and orders") == ("period", "same month")
    assert anchor_of("还有同一时间段的报销") == ("period", "同一时间段")
    assert anchor_of("same for last week") is None


def test_repeat_cue() -> None:
    assert repeat_of("同样的内容也发给 li@corp.com") == "同样的"
    assert repeat_of("forward the same message to a@b.com too")
    assert repeat_of("and once more to ops@corp.com") == "once more"
    assert repeat_of("send an email to a@b.com") is None


def test_email_answer_for_the_user_id_chains_the_finder() -> None:
    s = pending("查一下我上个月的已发货订单", "user_id", intent="list_orders")
    asked = "查一下我上个月的已发货订单，我的用户ID是U00000000"
    got = plan(("list_orders", {"user_id": "U00000000", "period": "2026-05", "status": "shipped"}))
    carry, out, script = run(
        "哦对，我邮箱是 ruby.c@corp.com",
        s,
        InsufficientContext(required_fields=["user_id"]),
        {asked: got},
        ANON,
    )
    assert script.asked[0] == asked
    assert steps_of(out) == [
        ("find_user", {"email": "ruby.c@corp.com"}),
        ("list_orders", {"user_id": "${t1.user_id}", "period": "2026-05", "status": "shipped"}),
    ]
    assert carry.kind is CarryKind.ANSWER and carry.candidate == "identity"


def test_id_answer_keeps_the_pending_tool() -> None:
    s = pending("list my invoices from last month", "user_id", intent="list_invoices")
    asked = "list my invoices from last month, my user id is U55501234"
    got = plan(("list_invoices", {"user_id": "U55501234", "period": "2026-05"}))
    profile = plan(("get_user_profile", {"user_id": "U55501234"}))  # "user id" read as the profile tool
    _, out, _ = run("my user id is U55501234", s, profile, {asked: got}, ANON)
    assert steps_of(out) == [("list_invoices", {"user_id": "U55501234", "period": "2026-05"})]


def test_an_id_inside_a_request_of_its_own_is_no_identity_answer() -> None:
    s = pending("list my invoices from last month", "user_id", intent="list_invoices")
    own = plan(("get_user_profile", {"user_id": "U55501234"}))
    _, out, script = run("show the profile of U55501234 and his city", s, own, {}, ANON)
    assert steps_of(out) == [("get_user_profile", {"user_id": "U55501234"})]
    assert not any("U55501234" in a and "invoices" in a for a in script.asked)


def test_repeat_sends_the_last_email_to_the_new_address() -> None:
    s = snap([("send_email", {"to": "kai@corp.com", "subject": "Hi", "body": "See you"})], "email kai")
    wrong = plan(
        ("update_user_profile", {"user_id": "U00000001", "field": "email", "value": "lena@corp.com"})
    )
    _, out, _ = run("forward the same message to lena@corp.com too", s, wrong)
    assert steps_of(out) == [("send_email", {"to": "lena@corp.com", "subject": "Hi", "body": "See you"})]


def test_a_pronoun_for_a_person_found_by_email_is_their_address() -> None:
    s = snap([("find_user", {"email": "zhou.min@corp.com"})], "查一下 zhou.min@corp.com 是哪位用户")
    rewritten = "给 zhou.min@corp.com 发封邮件"
    _, out, _ = run(
        "给她发封邮件",
        s,
        InsufficientContext(required_fields=["to", "subject", "body"]),
        {rewritten: InsufficientContext(required_fields=["subject", "body"])},
    )
    assert isinstance(out, InsufficientContext) and set(out.required_fields) == {"subject", "body"}


def test_a_bare_title_answer_is_labelled_without_its_naming_words() -> None:
    s = pending("后天上午九点建个日程，半小时", "title", intent="create_calendar_event")
    carry = CO.prepare("就叫站会", ME, s)
    assert carry.kind is CarryKind.ANSWER
    assert carry.request == "后天上午九点建个日程，半小时，标题：站会"
    carry = CO.prepare("call it Design sync", ME, pending("a meeting at 3pm for 30 minutes", "title"))
    assert carry.request.endswith("title: Design sync")
    carry = CO.prepare("标题就叫周会", ME, pending("明天上午10点建个日程，一个小时", "title"))
    assert carry.request == "明天上午10点建个日程，一个小时，标题：周会"
    two = pending("a meeting with a@b.com on Friday at 11", "title", "duration_min")
    carry = CO.prepare("call it Budget check, 30 minutes", ME, two)
    assert carry.kind is CarryKind.ANSWER
    assert carry.request == "a meeting with a@b.com on Friday at 11, title: Budget check, 30 minutes"


def test_a_room_the_turn_names_drops_the_step_that_found_one() -> None:
    args = {"start": "2026-06-16 14:00", "duration_min": 60}
    s = snap(
        [
            ("find_meeting_room", {**args, "capacity": 6}),
            ("book_meeting_room", {"room_id": "${t1.room_id}", **args}),
        ],
        "下周二下午两点要个6人会议室，开一小时",
    )
    s.steps[1].dependencies = ["t1"]
    asked_alone = InsufficientContext(required_fields=["start", "duration_min"])
    carry, out, _ = run("订 R305", s, asked_alone)
    assert steps_of(out) == [("book_meeting_room", {"room_id": "R305", **args})]
    assert out.steps[0].dependencies == [] and carry.kind is CarryKind.SWAP


def test_make_it_after_a_filler_is_no_reference_and_it_is_a_whole_word() -> None:
    s = snap(
        [("book_meeting_room", {"room_id": "R102", "start": "2026-06-11 14:00", "duration_min": 90})], "book"
    )
    carry = CO.prepare("no wait, make it Friday", ME, s)
    assert carry.kind is not CarryKind.REFER
    carry = CO.prepare("wait, cancel it", ME, snap([("get_order_status", {"order_id": "1" * 18})], "status"))
    assert carry.kind is CarryKind.REFER and carry.request.startswith("wait, cancel order")


def test_those_two_days_are_the_last_two_days_named() -> None:
    s = snap([("list_calendar_events", {"date": "2026-06-15"})], "下周一我有啥安排")
    s.days = ["2026-06-12", "2026-06-15"]
    both = "把2026-06-12和2026-06-15的日程都给我看看"
    got = plan(
        ("list_calendar_events", {"date": "2026-06-12"}), ("list_calendar_events", {"date": "2026-06-15"})
    )
    _, out, script = run(
        "把那两天的日程都给我看看", s, InsufficientContext(required_fields=["date"]), {both: got}
    )
    assert both in script.asked
    assert steps_of(out) == [
        ("list_calendar_events", {"date": "2026-06-12"}),
        ("list_calendar_events", {"date": "2026-06-15"}),
    ]
    assert anchor_of("show my calendar for both days") == ("days", "for both days")


def test_the_snapshot_keeps_the_distinct_days_of_the_conversation() -> None:
    from tao.loop.snapshot import build_snapshot

    def turn(prev, tool: str, args: dict) -> Snapshot:
        p = {"intent": tool, "steps": [{"step_id": "t1", "tool": tool, "arguments": args}]}
        return build_snapshot(
            prev,
            request="r",
            effective_request="r",
            now=None,
            plan=p,
            steps=[],
            outputs={},
            status="ok",
            required_fields=[],
            pending_intent=None,
            carry={},
        )

    a = turn(None, "get_weather", {"city": "深圳", "date": "2026-06-12"})
    b = turn(a, "list_calendar_events", {"date": "2026-06-15"})
    c = turn(b, "find_meeting_room", {"start": "2026-06-12 10:00", "duration_min": 30, "capacity": 4})
    assert b.days == ["2026-06-12", "2026-06-15"] and c.days == ["2026-06-15", "2026-06-12"]


def test_an_answer_naming_the_day_replaces_the_open_requests_week() -> None:
    carry = CO.prepare("下周二上午十点", ME, pending("下周要个会议室，5个人，一小时", "start"))
    assert carry.kind is CarryKind.ANSWER
    assert carry.request == "要个会议室，5个人，一小时，下周二上午十点"
    carry = CO.prepare("10个人", ME, pending("下周二上午十点要个会议室，一小时", "capacity"))
    assert carry.request.startswith("下周二上午十点要个会议室")


def test_a_city_alone_swaps_into_the_plan_before_the_last_one() -> None:
    s = snap([("list_calendar_events", {"date": "2026-06-11"})], "那天我有什么安排")
    s.earlier_steps = [
        StepSnap(step_id="t1", tool="get_weather", arguments={"city": "杭州", "date": "2026-06-11"})
    ]
    today = plan(("get_weather", {"city": "苏州", "date": "2026-06-10"}))
    carry, out, _ = run("苏州呢", s, today)
    assert steps_of(out) == [("get_weather", {"city": "苏州", "date": "2026-06-11"})]
    assert carry.candidate == "earlier swap"
