"""Insufficiency decided by code (thought_model/sufficiency.py) and its use in the composer: a model
``insufficient_context`` whose intent the request grounds fully is re-decoded as a plan with the
insufficient branch masked; one naming the wrong fields gets the fields nothing grounds."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, SessionState, ThoughtPlan
from tao.domains.reference.registry import reference_tools
from thought_model.compose import (
    PLAN_ONLY_MARK,
    ClauseCodec,
    ClauseRequest,
    ComposerConfig,
    ComposingEngine,
    plan_only_schema,
)
from thought_model.engine.base import PlanEngine, PlanResult
from thought_model.entities import perceive
from thought_model.grammar import field_tokens
from thought_model.output_parse import parse_output
from thought_model.sufficiency import (
    Decision,
    SufficiencyCheck,
    SufficiencyConfig,
    reference_intent_steps,
)

TOOLS = reference_tools()
BY_NAME = {t.name: t for t in TOOLS}
CHECK = SufficiencyCheck(TOOLS, reference_intent_steps())
SESSION = SessionState(user_id="U00000001", now=datetime(2026, 5, 4, 9))


def _slots(text: str) -> list[str]:
    return list(perceive(text).slots)


@pytest.mark.parametrize(
    ("text", "intent", "user_known", "missing"),
    [
        # every required argument has a slot of its kind
        (
            "put a 45 min retro in my calendar on Thursday 3pm, title: Sprint retro",
            "create_calendar_event",
            True,
            [],
        ),
        # a name slot is an attendee, not the event's title; the duration is absent
        (
            "schedule something on Friday 10am with Maria",
            "create_calendar_event",
            True,
            ["title", "duration_min"],
        ),
        # one duration slot cannot be both the duration and the head count
        ("need a room at 2pm tomorrow for 30 minutes", "find_meeting_room", True, ["capacity"]),
        ("email ops@example.com subject: Outage", "send_email", True, ["body"]),
        # the recipient comes from the profile step (a reference), the user from the session
        ("给我自己的邮箱发封信，主题是周报，正文是本周已完成", "email_myself", True, []),
        ("给我自己的邮箱发封信，主题是周报，正文是本周已完成", "email_myself", False, ["user_id"]),
        # a numeric argument filled by an earlier step's extract (refund the full amount)
        ("订单123456789012345678全额退掉", "refund_full_amount", False, []),
        ("把那笔订单全额退掉", "refund_full_amount", False, ["order_id"]),
        # an enum argument is the model's choice, never "missing"
        ("报销88元，日期昨天，说明是打车", "submit_expense", True, []),
    ],
)
def test_missing_required_arguments(text: str, intent: str, user_known: bool, missing: list[str]) -> None:
    assert CHECK.missing(intent, _slots(text), user_known) == missing


def test_unknown_intent_or_tool_is_not_judged() -> None:
    assert CHECK.missing("multi_task", _slots("查一下北京明天天气"), True) is None
    odd = SufficiencyCheck(TOOLS, {"x_y": [("no_such_tool", {})]})
    assert odd.missing("x_y", [], True) is None
    out = InsufficientContext(required_fields=["city"], intent="multi_task")
    assert CHECK.judge(out, [], True).decision is Decision.KEEP


def test_judge_decisions_and_config() -> None:
    text = "put a 45 min retro in my calendar on Thursday 3pm, title: Sprint retro"
    said = InsufficientContext(required_fields=["start"], intent="create_calendar_event")
    j = CHECK.judge(said, _slots(text), True)
    assert j.decision is Decision.REPLAN and j.tools == ("create_calendar_event",)
    wrong = InsufficientContext(required_fields=["title"], intent="send_email")
    j = CHECK.judge(wrong, _slots("email ops@example.com subject: Outage"), True)
    assert j.decision is Decision.FIELDS and j.missing == ("body",)
    assert CHECK.corrected(wrong, j) == InsufficientContext(required_fields=["body"], intent="send_email")
    right = InsufficientContext(required_fields=["body"], intent="send_email")
    assert CHECK.judge(right, _slots("email ops@example.com subject: Outage"), True).decision is Decision.KEEP
    for cfg in (SufficiencyConfig(enabled=False), SufficiencyConfig(replan=False)):
        off = SufficiencyCheck(TOOLS, reference_intent_steps(), config=cfg)
        assert off.judge(said, _slots(text), True).decision is Decision.KEEP
    nofix = SufficiencyCheck(TOOLS, reference_intent_steps(), config=SufficiencyConfig(fix_fields=False))
    assert nofix.judge(wrong, _slots("email ops@example.com subject: Outage"), True).decision is Decision.KEEP


def test_field_tokens_follow_the_grammar() -> None:
    avail = ["<ORDER1>", "<DUR1>", "<TEXT1>", "<NAME1>"]
    order = BY_NAME["get_order_status"].args_schema["properties"]["order_id"]
    assert field_tokens("order_id", order, TOOLS, avail) == ["<ORDER1>"]
    field_prop = BY_NAME["update_user_profile"].args_schema["properties"]["field"]
    assert field_tokens("field", field_prop, TOOLS, avail) is None  # an enum: the model's choice
    title = BY_NAME["create_calendar_event"].args_schema["properties"]["title"]
    assert field_tokens("title", title, TOOLS, avail) == ["<TEXT1>", "<NAME1>"]
    assert field_tokens("order_id", order, TOOLS, ["<DUR1>"]) == []


def test_plan_only_schema_masks_the_insufficient_branch() -> None:
    from thought_model.engine.codec import default_codec

    codec = ClauseCodec(default_codec())
    slots = frozenset({"<ORDER1>"})
    full = codec.schema(["get_order_status"], slots)
    masked = codec.schema(["get_order_status"], slots | {PLAN_ONLY_MARK})
    assert len(full["anyOf"]) == 2 and len(masked["anyOf"]) == 1
    assert "error" not in masked["anyOf"][0]["properties"]
    only_ins = {"anyOf": [{"type": "object", "properties": {"error": {"const": "insufficient_context"}}}]}
    assert plan_only_schema(only_ins) == only_ins  # nothing to plan with: unchanged


class PlanOnlyEngine(PlanEngine):
    """Answers ``insufficient_context`` unless the request is plan-only; records each request."""

    name = "plan-only-fake"

    def __init__(self, ins: dict, plan: dict | None) -> None:
        self.ins, self.plan = ins, plan
        self.codec = object()
        self.seen: list[tuple[str, bool, list[str] | None]] = []

    def generate(self, requests: list[ClauseRequest]) -> list[PlanResult]:  # type: ignore[override]
        out = []
        for r in requests:
            p = r.perception
            assert p is not None
            self.seen.append((p.masked, bool(getattr(r, "plan_only", False)), r.tools))
            if getattr(r, "plan_only", False) and self.plan is not None:
                obj = self.plan
            else:
                obj = self.ins
            if obj is None:
                out.append(
                    PlanResult(error=ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message="x"))
                )
                continue
            text = json.dumps(obj, ensure_ascii=False)
            out.append(PlanResult(output=parse_output(text, p, r.session, TOOLS), text=text))
        return out


def _event_plan() -> dict:
    return {
        "version": "1.0",
        "intent": "create_calendar_event",
        "steps": [
            {
                "step_id": "t1",
                "tool": "create_calendar_event",
                "arguments": {"title": "<TEXT1>", "start": "<DATE1>", "duration_min": "<DUR1>"},
                "dependencies": [],
            }
        ],
    }


def _run(inner: PlanEngine, text: str, **cfg):
    from thought_model.engine.base import PlanRequest

    eng = ComposingEngine(inner, TOOLS, ComposerConfig(**cfg))
    [res] = eng.generate([PlanRequest(text, session=SESSION)])
    return res


def test_composer_replans_a_fully_grounded_insufficiency() -> None:
    text = "put a 45 min retro in my calendar on Thursday 3pm, title: Sprint retro"
    ins = {"error": "insufficient_context", "required_fields": ["start"], "intent": "create_calendar_event"}
    inner = PlanOnlyEngine(ins, _event_plan())
    res = _run(inner, text)
    assert isinstance(res.output, ThoughtPlan)
    assert res.output.steps[0].arguments == {
        "title": "Sprint retro",
        "start": "2026-05-07 15:00",
        "duration_min": 45,
    }
    assert [(p, t) for _, p, t in inner.seen] == [(False, None), (True, ["create_calendar_event"])]
    # the re-decode that still fails leaves the model's answer
    inner = PlanOnlyEngine(ins, None)
    assert _run(inner, text).output == InsufficientContext(
        required_fields=["start"], intent="create_calendar_event"
    )
    # switched off: one call, the model's answer
    inner = PlanOnlyEngine(ins, _event_plan())
    res = _run(inner, text, sufficiency=SufficiencyConfig(enabled=False))
    assert isinstance(res.output, InsufficientContext) and len(inner.seen) == 1


def test_composer_corrects_the_named_fields() -> None:
    ins = {"error": "insufficient_context", "required_fields": ["to"], "intent": "send_email"}
    res = _run(PlanOnlyEngine(ins, None), "email ops@example.com subject: Outage")
    assert res.output == InsufficientContext(required_fields=["body"], intent="send_email")


def test_competing_fields_leave_the_one_the_model_named_missing() -> None:
    # one text slot for a subject and a body: which one it is, the model says
    slots = _slots("mail ops@example.com saying the build is green")
    assert CHECK.missing("send_email", slots, True, ["subject"]) == ["subject"]
    assert CHECK.missing("send_email", slots, True, ["body"]) == ["body"]
    # integers: a head count is not a duration
    assert CHECK.missing("book_meeting_room", _slots("明天下午三点订个会议室，我们十个人"), True) == [
        "duration_min"
    ]
