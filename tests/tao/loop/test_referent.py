"""The person a pronoun points at (tao/loop/referent.py)."""

from __future__ import annotations

from datetime import datetime

from tao.contracts import SessionState, ThoughtPlan
from tao.domains import load_domain
from tao.loop.referent import asked_person, person_referent, person_request, substitute_person
from tao.loop.snapshot import PendingSnap, Snapshot, StepSnap

SESSION = SessionState(user_id="U00000001", now=datetime.fromisoformat("2026-06-10T10:00:00+08:00"))
SCHEMAS = {t.name: t.args_schema for t in load_domain(None).tools}


def test_the_person_of_the_previous_turn() -> None:
    found = Snapshot(steps=[StepSnap(step_id="t1", tool="find_user", arguments={"phone": "13812345678"})])
    assert person_referent(found, SESSION) == (
        {"tool": "find_user", "arguments": {"phone": "13812345678"}},
        None,
    )
    other = Snapshot(steps=[StepSnap(tool="list_user_calendar_events", arguments={"user_id": "U30182245"})])
    assert person_referent(other, SESSION) == (None, "U30182245")
    mine = Snapshot(steps=[StepSnap(tool="list_orders", arguments={"user_id": "U00000001"})])
    assert person_referent(mine, SESSION) == (None, None)  # the speaker is no referent


def test_a_person_named_by_a_request_that_made_no_plan() -> None:
    req = "找一下叫李娜的同事"
    s = Snapshot(
        request=req,
        effective_request=req,
        status="needs_user",
        pending=PendingSnap(request=req, required_fields=["user_id"]),
    )
    assert asked_person(s, SCHEMAS) == {"tool": "find_user", "arguments": {"name": "李娜"}}
    assert asked_person(s.model_copy(update={"pending": None, "status": "success"}), SCHEMAS) is None


def test_the_person_written_into_the_turn() -> None:
    phone = {"tool": "find_user", "arguments": {"phone": "13812345678"}}
    assert person_request("他的详细资料呢", "他", phone, None) == "手机号13812345678的用户的详细资料呢"
    name = {"tool": "find_user", "arguments": {"name": "王芳"}}
    assert person_request("再看下她下周一的安排", "她", name, None) == "再看下用户王芳下周一的安排"
    assert (
        person_request("what's on their calendar tomorrow?", "their", phone, None)
        == "what's on the calendar of the user with phone 13812345678 tomorrow?"
    )
    assert person_request("show him the plan", "him", None, "U30182245") == "show user U30182245 the plan"


def test_the_speakers_id_replaced_by_the_person() -> None:
    p = ThoughtPlan.model_validate(
        {
            "intent": "update_city",
            "steps": [
                {
                    "step_id": "t1",
                    "tool": "update_user_profile",
                    "arguments": {"user_id": "U00000001", "field": "city", "value": "Chengdu"},
                }
            ],
        }
    )
    email = {"tool": "find_user", "arguments": {"email": "mike.z@corp.com"}}
    sub = substitute_person(p, email, None, SESSION)
    assert sub is not None
    assert [(s.step_id, s.tool, s.arguments, s.dependencies) for s in sub.steps] == [
        ("t1", "find_user", {"email": "mike.z@corp.com"}, []),
        (
            "t2",
            "update_user_profile",
            {"user_id": "${t1.user_id}", "field": "city", "value": "Chengdu"},
            ["t1"],
        ),
    ]
    direct = substitute_person(p, None, "U30182245", SESSION)
    assert direct is not None and direct.steps[0].arguments["user_id"] == "U30182245"
    other = p.model_copy(
        update={
            "steps": [
                p.steps[0].model_copy(
                    update={"arguments": {"user_id": "U00000002", "field": "city", "value": "x"}}
                )
            ]
        }
    )
    assert substitute_person(other, email, None, SESSION) is None  # nothing of the speaker's to replace
