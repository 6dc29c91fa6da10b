"""One update_user_profile per profile field the request sets (thought_model.updates)."""

from __future__ import annotations

from datetime import date

from tao.contracts import ThoughtPlan
from thought_model.entities import perceive
from thought_model.updates import field_pairs, profile_updates

ME = "U55102938"


def _plan(*steps: dict) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {"intent": "multi_task", "steps": [{"step_id": f"t{i}", **s} for i, s in enumerate(steps, 1)]}
    )


def _upd(user: str, field: str, value: str, deps: list[str] | None = None) -> dict:
    return {
        "tool": "update_user_profile",
        "arguments": {"user_id": user, "field": field, "value": value},
        "dependencies": deps or [],
    }


def _rows(p: ThoughtPlan) -> list[tuple]:
    return [(s.tool, s.arguments, s.dependencies) for s in p.steps]


def test_field_pairs_need_a_set_verb() -> None:
    p = perceive("Set my phone to 13800001111 and my email to me@newmail.com", today=date(2026, 5, 11))
    assert field_pairs(p.masked, p.slots) == [("phone", "13800001111"), ("email", "me@newmail.com")]
    q = perceive(
        "查一下手机号18251760916对应的用户资料，然后把用户U87369067手机号变更为13169630546",
        today=date(2026, 5, 11),
    )
    assert field_pairs(q.masked, q.slots) == [("phone", "13169630546")]  # the first number is a lookup


def test_a_second_field_gets_its_own_update() -> None:
    p = perceive("Set my phone to 13800001111 and my email to me@newmail.com", today=date(2026, 5, 11))
    plan = _plan(_upd(ME, "email", "me@newmail.com"))
    assert _rows(profile_updates(plan, p.masked, p.slots, ME)) == [
        ("update_user_profile", {"user_id": ME, "field": "phone", "value": "13800001111"}, []),
        ("update_user_profile", {"user_id": ME, "field": "email", "value": "me@newmail.com"}, []),
    ]
    both = _plan(_upd(ME, "phone", "13800001111"), _upd(ME, "email", "me@newmail.com"))
    assert profile_updates(both, p.masked, p.slots, ME) is both


def test_a_new_name_is_no_person_to_look_up() -> None:
    p = perceive("Change my city to Shenzhen and my name to Lily Zhang", today=date(2026, 5, 11))
    plan = _plan(
        {"tool": "find_user", "arguments": {"name": "Lily Zhang"}},
        _upd("${t1.user_id}", "city", "Shenzhen", ["t1"]),
    )
    assert _rows(profile_updates(plan, p.masked, p.slots, ME)) == [
        ("update_user_profile", {"user_id": ME, "field": "city", "value": "Shenzhen"}, []),
        ("update_user_profile", {"user_id": ME, "field": "name", "value": "Lily Zhang"}, []),
    ]


def test_an_update_of_a_lookup_key_or_a_recipient_is_dropped() -> None:
    p = perceive(
        "The customer on 13760018823 just moved. Could you find them and change their city to Chengdu?",
        today=date(2026, 5, 11),
    )
    plan = _plan(
        {"tool": "find_user", "arguments": {"phone": "13760018823"}},
        _upd("${t1.user_id}", "phone", "13760018823", ["t1"]),
        _upd("${t1.user_id}", "city", "Chengdu", ["t1"]),
    )
    assert _rows(profile_updates(plan, p.masked, p.slots, ME)) == [
        ("find_user", {"phone": "13760018823"}, []),
        ("update_user_profile", {"user_id": "${t1.user_id}", "field": "city", "value": "Chengdu"}, ["t1"]),
    ]
    q = perceive(
        "Send an email to anna@vistula.pl, then update my phone number to 13301928374.",
        today=date(2026, 5, 11),
    )
    mail = {"tool": "send_email", "arguments": {"to": "anna@vistula.pl", "subject": "s", "body": "b"}}
    plan = _plan(mail, _upd(ME, "email", "anna@vistula.pl"), _upd(ME, "phone", "13301928374"))
    assert [r[0] for r in _rows(profile_updates(plan, q.masked, q.slots, ME))] == [
        "send_email",
        "update_user_profile",
    ]
    only = _plan(
        {"tool": "find_user", "arguments": {"phone": "13760018823"}}, _upd(ME, "phone", "13760018823")
    )
    assert profile_updates(only, p.masked, p.slots, ME) is only  # the only update: left to the model


def test_a_new_name_planned_only_as_a_lookup_becomes_the_update() -> None:
    p = perceive("幫我把我的名字改成林志明。", today=date(2026, 5, 11))
    plan = _plan({"tool": "find_user", "arguments": {"name": "林志明"}})
    assert _rows(profile_updates(plan, p.masked, p.slots, ME)) == [
        ("update_user_profile", {"user_id": ME, "field": "name", "value": "林志明"}, []),
    ]
    q = perceive("帮我找一下林志明", today=date(2026, 5, 11))
    assert profile_updates(plan, q.masked, q.slots, ME) is plan  # no field is set: a lookup
