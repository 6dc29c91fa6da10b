"""Enum arguments of a user registry from the request's words, referents and first-person
grounding on the helpdesk (issue #15)."""

from __future__ import annotations

from tao.contracts import ThoughtPlan
from tao.domains import load_domain
from tao.domains.helpdesk.examples import VALUE_WORDS
from thought_model.entities import perceive
from thought_model.enum_words import EnumWords, fix_enums
from thought_model.referents import person_lookup, third_person_user
from thought_model.sufficiency import SufficiencyCheck
from training.derive import derive_phrasing

DOMAIN = load_domain("tao.domains.helpdesk:registry")
WORDS = EnumWords(DOMAIN.tools, VALUE_WORDS)
ME = "E100777"


def _plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "helpdesk",
            "steps": [
                {"step_id": f"t{i + 1}", "tool": t, "arguments": a, "dependencies": [f"t{i}"] if i else []}
                for i, (t, a) in enumerate(steps)
            ],
        }
    )


def _fix(text: str, plan: ThoughtPlan) -> list[dict]:
    masked = perceive(text, lexicon=DOMAIN.lexicon, user_known=True).masked
    return [dict(s.arguments) for s in fix_enums(plan, masked, WORDS).steps]


def test_the_written_value_wins() -> None:
    plan = _plan(("reset_password", {"employee_id": ME, "system": "email"}))
    assert _fix("我的VPN密码过期了，帮我重置", plan) == [{"employee_id": ME, "system": "vpn"}]


def test_an_optional_value_is_added_or_dropped() -> None:
    plan = _plan(("list_tickets", {"employee_id": ME}))
    assert _fix("list my open tickets", plan) == [{"employee_id": ME, "status": "open"}]
    plan = _plan(("list_tickets", {"employee_id": ME, "status": "in_progress"}))
    assert _fix("list my tickets", plan) == [{"employee_id": ME}]


def test_words_in_the_summary_and_verbs_are_no_values() -> None:
    args = {"employee_id": ME, "category": "network", "summary": "<TEXT1>"}
    plan = _plan(("create_ticket", args))
    # "hardware" inside the summary names no category; "open a" is the verb
    assert _fix("open a ticket: the hardware keyboard is fine but VPN drops", plan) == [args]
    hi = _fix("open a ticket: VPN drops, high priority", plan)
    assert hi == [{**args, "priority": "high"}]


def test_a_list_a_later_step_reads_is_left_alone() -> None:
    plan = _plan(("list_tickets", {"employee_id": ME}), ("get_ticket", {"ticket_id": "${t1.ticket_id}"}))
    assert _fix("is my open ticket resolved yet", plan)[0] == {"employee_id": ME}


def test_her_is_the_found_employee() -> None:
    me_field, finder = person_lookup(DOMAIN.tools, DOMAIN.lexicon.me_kind) or ("", "")
    assert (me_field, finder) == ("employee_id", "find_employee")
    plan = _plan(("find_employee", {"name": "Olivia Park"}), ("list_devices", {"employee_id": ME}))
    out = third_person_user(plan, "find Olivia Park and list her devices", ME, {}, me_field, finder)
    assert out.steps[1].arguments == {"employee_id": "${t1.employee_id}"}
    assert third_person_user(plan, "find Olivia Park and list my devices", ME, {}, me_field, finder) is plan


def test_a_first_person_request_grounds_the_session_user() -> None:
    steps = {s.name: [(t, dict(a)) for t, a, _ in s.steps] for s in derive_phrasing(DOMAIN).intents}
    check = SufficiencyCheck(DOMAIN.tools, steps, lexicon=DOMAIN.lexicon, first_person_me=True)
    off = SufficiencyCheck(DOMAIN.tools, steps, lexicon=DOMAIN.lexicon)
    p = perceive("我有没有正在处理的工单", lexicon=DOMAIN.lexicon)
    assert check.missing("list_tickets", list(p.slots), True, (), p.masked) == []
    assert off.missing("list_tickets", list(p.slots), True, (), p.masked) == ["employee_id"]
    assert check.missing("list_tickets", list(p.slots), False, (), p.masked) == ["employee_id"]
    q = perceive("看看他的工单", lexicon=DOMAIN.lexicon)
    assert check.missing("list_tickets", list(q.slots), True, (), q.masked) == ["employee_id"]


def test_a_typo_of_one_english_value_word_still_writes_it() -> None:
    from thought_model.enum_words import near_typo

    assert WORDS.written("system", "reset my emial password") == {"email"}
    assert WORDS.written("system", "my outlok password expired") == {"email"}
    assert WORDS.written("system", "reset my password") == set()
    assert WORDS.written("system", "reset my email password") == {"email"}
    assert (
        not near_typo("main", "mail")
        and not near_typo("close", "closed")
        and not near_typo("others", "other")
    )
    assert near_typo("wiif", "wifi") and not near_typo("wifi", "wifi")
