"""Values the request leaves open (thought_model/unstated.py)."""

from __future__ import annotations

from tao.contracts import InsufficientContext, ThoughtPlan
from thought_model.unstated import unstated_fields, unstated_in_plan


def _plan(*steps: tuple[str, dict]) -> ThoughtPlan:
    return ThoughtPlan.model_validate(
        {
            "intent": "x_y",
            "steps": [
                {"step_id": f"t{i + 1}", "tool": t, "arguments": a, "dependencies": [f"t{i}"] if i else []}
                for i, (t, a) in enumerate(steps)
            ],
        }
    )


def test_partial_refund_without_an_amount() -> None:
    plan = _plan(
        ("get_order_status", {"order_id": "<o>"}),
        ("refund_payment", {"order_id": "o", "amount": "${t1.amount}"}),
    )
    out = unstated_in_plan(plan, "订单 <ORDER1> 退一部分钱就行")
    assert out is not None and out.required_fields == ["amount"]
    assert unstated_in_plan(plan, "订单 <ORDER1> 全额退款") is None


def test_address_given_later() -> None:
    plan = _plan(
        ("get_user_profile", {"user_id": "U10000001"}),
        ("send_email", {"to": "${t1.email}", "subject": "s", "body": "b"}),
    )
    out = unstated_in_plan(plan, "给客户发个邮件，他的邮箱我稍后发你，主题：<TEXT1>，正文：<TEXT2>")
    assert out is not None and out.required_fields == ["to"]
    assert unstated_in_plan(plan, "给我自己发个邮件，主题：<TEXT1>，正文：<TEXT2>") is None


def test_profile_change_without_a_field() -> None:
    ic = InsufficientContext(required_fields=["value"], intent="update_my_phone")
    assert unstated_fields(ic, "帮我改一下个人资料").required_fields == ["field", "value"]
    assert unstated_fields(ic, "帮我改一下手机号").required_fields == ["value"]


def test_said_text_is_the_body() -> None:
    ic = InsufficientContext(required_fields=["body"], intent="send_email")
    assert unstated_fields(ic, "给 <EMAIL1> 发个邮件，就说<TEXT1>").required_fields == ["subject"]
    assert unstated_fields(ic, "给 <EMAIL1> 发个邮件，主题<TEXT1>").required_fields == ["body"]
    both = InsufficientContext(required_fields=["subject", "body"], intent="send_email")
    assert unstated_fields(both, "给 <EMAIL1> 发封邮件，就说<TEXT1>").required_fields == ["subject"]
