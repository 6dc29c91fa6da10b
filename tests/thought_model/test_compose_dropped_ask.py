"""Insufficiency the composer finds beside the model: a whole-request plan that leaves out the ask
of a clause lacking a value (any registry), and a user registry's plan that serves the speaker for a
colleague the request does not identify (thought_model.unnamed_person)."""

from __future__ import annotations

from tao.contracts import InsufficientContext, ThoughtPlan
from tests.thought_model.test_compose import dumped, insufficient, plan, run, step
from thought_model.sufficiency import SufficiencyConfig
from thought_model.unnamed_person import unnamed_other

OFF = SufficiencyConfig(enabled=False)
TEXT = "check the weather in Paris and then send an email"
WEATHER = plan("query_weather", step("get_weather", city="<CITY1>"))
RULES = [
    (["and then send an email"], WEATHER),  # the whole request: the email is dropped
    (["check the weather in <CITY1>"], WEATHER),
    (["send an email"], insufficient("send_email", "to", "subject", "body")),
]


def test_a_dropped_ask_that_lacks_values_is_insufficient() -> None:
    res, _ = run(RULES, TEXT, sufficiency=OFF)
    assert isinstance(res.output, InsufficientContext), dumped(res)
    assert set(res.output.required_fields) <= {"to", "subject", "body"} and res.output.required_fields
    res, _ = run(RULES, TEXT, sufficiency=OFF, dropped_asks=False, unservable_asks=False)
    assert isinstance(res.output, ThoughtPlan)  # the whole plan, as before


def test_an_unservable_write_makes_the_request_insufficient() -> None:
    # the write rule alone (the dropped-ask rule off): "send" is a word only send_email has
    res, _ = run(RULES, TEXT, sufficiency=OFF, dropped_asks=False)
    assert isinstance(res.output, InsufficientContext), dumped(res)
    assert set(res.output.required_fields) == {"to", "subject", "body"}
    # a write whose value another clause gives is not unservable ("refund 88, the order id later")
    text = "check the weather in Paris and then refund 88 yuan"
    rules = [
        (["and then refund"], WEATHER),
        (["check the weather in <CITY1>"], WEATHER),
        (["refund <AMOUNT1>"], insufficient("refund_order", "order_id", "amount")),
    ]
    res, _ = run(rules, text, sufficiency=OFF, dropped_asks=False)
    assert isinstance(res.output, InsufficientContext), dumped(res)
    assert res.output.required_fields == ["order_id"]
    # a read clause lacking its id is the dropped-ask rule's, not this one's
    rules = [
        (["and then show invoice"], WEATHER),
        (["check the weather in <CITY1>"], WEATHER),
        (["show invoice"], insufficient("query_invoice", "invoice_id")),
    ]
    res, _ = run(
        rules, "check the weather in Paris and then show invoice", sufficiency=OFF, dropped_asks=False
    )
    assert isinstance(res.output, ThoughtPlan), dumped(res)


def test_my_records_without_a_session_user_is_insufficient() -> None:
    from tao.contracts import SessionState

    rules = [
        (["and then list my orders"], WEATHER),
        (["check the weather in <CITY1>"], WEATHER),
        (["list my orders"], insufficient("list_my_orders", "user_id")),
    ]
    text = "check the weather in Paris and then list my orders"
    res, _ = run(rules, text, sufficiency=OFF, dropped_asks=False, session=SessionState(user_id=None))
    assert isinstance(res.output, InsufficientContext), dumped(res)
    assert res.output.required_fields == ["user_id"]


def test_a_planned_ask_is_not_a_dropped_one() -> None:
    email = step("send_email", to="a@b.example", subject="hi", body="x")
    both = plan("multi_task", step("get_weather", city="<CITY1>"), email)
    rules = [(["and then send an email"], both), *RULES[1:]]
    res, _ = run(rules, TEXT, sufficiency=OFF)
    assert isinstance(res.output, ThoughtPlan)


def _plan(**args: str) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "reset_password_me",
            "steps": [{"step_id": "t1", "tool": "reset_password", "arguments": args}],
        }
    )


def test_an_unidentified_colleague_is_not_the_speaker() -> None:
    me = "E100630"
    mine = _plan(employee_id=me, system="vpn")
    for text in ("reset my teammate's password for the vpn", "帮我同事重置一下VPN密码"):
        out = unnamed_other(mine, text, {}, me, "employee_id")
        assert out is not None and out.required_fields == ["employee_id"]
    assert unnamed_other(
        _plan(employee_id="<ME>", system="vpn"), "reset my coworker's vpn", {}, me, "employee_id"
    )
    assert unnamed_other(mine, "reset my vpn password", {}, me, "employee_id") is None
    named = {"<NAME1>": "Chloe Martin"}
    assert unnamed_other(mine, "reset my colleague Chloe Martin's vpn", named, me, "employee_id") is None
    theirs = _plan(employee_id="E287713", system="vpn")
    assert unnamed_other(theirs, "my teammate E287713 needs a vpn reset", {}, me, "employee_id") is None
