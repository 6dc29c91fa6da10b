"""``tao.loop.intent.fields``: a change of a field the update tool's ``field`` enum does not list
takes the fallback branch; listed fields, the whole record, renames and tools without a field
selector are served (phrasings written for these tests, not taken from any evaluation set)."""

from __future__ import annotations

import pytest

from tao.contracts.tools import ToolSpec
from tao.loop.intent.actions import action_text, requested
from tao.loop.intent.fields import changed_object, field_enums, unlisted_change
from tao.loop.intent.router import RouteBranch


def _spec(name: str, props: dict) -> ToolSpec:
    return ToolSpec(name=name, description="t", args_schema={"type": "object", "properties": props})


PROFILE = _spec(
    "update_user_profile",
    {
        "user_id": {"type": "string"},
        "field": {"enum": ["phone", "email", "city", "name"]},
        "value": {"type": "string"},
    },
)
RESET = _spec("reset_password", {"employee_id": {"type": "string"}, "system": {"enum": ["vpn", "erp"]}})
FREE = _spec("update_note", {"note_id": {"type": "string"}, "text": {"type": "string"}})


def _unlisted(text: str, tools=(PROFILE,)) -> tuple[str, ...]:
    norm = action_text(text)
    return unlisted_change(norm, requested(norm), list(tools))


def test_the_field_selector_is_read_from_the_schema() -> None:
    assert field_enums(PROFILE) == ("phone", "email", "city", "name")
    assert field_enums(RESET) == ()  # an enum of a value (the system), not of a field
    nullable = _spec(
        "update_device", {"attribute": {"anyOf": [{"enum": ["owner", "site"]}, {"type": "null"}]}}
    )
    assert field_enums(nullable) == ("owner", "site")


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("change my date of birth to 1990-02-01", "date of birth"),
        ("把我档案里的紧急联系人改成我太太", "紧急联系人"),
        ("帮我把部门从销售部改成市场部", "部门"),
        ("更新一下U12345678的邮寄地址", "邮寄地址"),
        ("please show my orders", None),
    ],
)
def test_the_changed_object_is_found(text: str, obj: str | None) -> None:
    assert changed_object(action_text(text)) == obj


@pytest.mark.parametrize(
    "text",
    [
        "change my date of birth to 1990-02-01",
        "update the emergency contact on my profile to my sister",
        "把我档案里的紧急联系人改成我太太",
        "帮我把部门从销售部改成市场部",
        "更新一下U12345678的邮寄地址",
    ],
)
def test_a_change_of_an_unlisted_field_is_unserved(text: str) -> None:
    assert _unlisted(text) == ("update_user_profile",)


@pytest.mark.parametrize(
    "text",
    [
        "change my mobile number to 13900001111",
        "update my profile please",  # the whole record: the planner asks which field
        "I moved to Chengdu, update my location",
        "把我的邮箱改成 li@example.com",
        "我的所在地改为武汉",
        "rename me to Li Lei in the system",
        "what is my phone number on file?",  # no change asked
    ],
)
def test_a_listed_field_or_the_whole_record_is_served(text: str) -> None:
    assert _unlisted(text) == ()


def test_tools_without_a_field_selector_are_not_judged() -> None:
    assert _unlisted("change my birthday to May 1", tools=(FREE,)) == ()
    assert _unlisted("change my birthday to May 1", tools=(PROFILE, FREE)) == ()  # another changer
    assert _unlisted("reset my erp password", tools=(RESET,)) == ()


def test_the_router_sends_an_unlisted_field_to_the_fallback_branch(combined_router) -> None:
    from dataclasses import replace

    text = "please change my job title on my profile to Senior Analyst"
    d = combined_router.route(text)
    assert d.branch is RouteBranch.FALLBACK and d.rule == "unlisted_field:update_user_profile", d.record()
    saved = combined_router.config
    combined_router.config = replace(saved, field_check=False)
    try:
        assert combined_router.route(text).routed
    finally:
        combined_router.config = saved
    served = combined_router.route("please change the email on my profile to kai@example.com")
    assert served.routed and "update_user_profile" in served.tools, served.record()
