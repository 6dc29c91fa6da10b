"""Enum value words learned from a domain's examples (``tao.domains.learned_words``)."""

from __future__ import annotations

from tao.contracts.domain import RequestExample
from tao.contracts.tools import ToolSpec
from tao.domains.contract import contract_domain
from tao.domains.learned_words import learn_value_words, with_learned

_UPDATE = ToolSpec(
    name="update_profile",
    description="Update one field of a user's profile.",
    args_schema={
        "type": "object",
        "properties": {
            "user_id": {"type": "string", "pattern": "^U[0-9]{8}$"},
            "field": {"type": "string", "enum": ["phone", "email", "city", "name"]},
            "value": {"type": "string"},
        },
        "required": ["user_id", "field", "value"],
    },
)


def _ex(text: str, field: str, value: str, user: str = "U12345678") -> RequestExample:
    return RequestExample.of(text, "zh", "update_profile", user_id=user, field=field, value=value)


EXAMPLES = (
    _ex("把U12345678的手机号改成13912345678", "phone", "13912345678"),
    _ex("用户U12345678手机号变更：15011112222", "phone", "15011112222"),
    _ex("帮U12345678把所在城市改为温哥华", "city", "温哥华"),
    _ex("U12345678的城市写错了，应该是杭州", "city", "杭州"),
    _ex("请将用户U12345678的邮箱更新为 a@b.com", "email", "a@b.com"),
    _ex("U12345678的邮箱换了，现在用 c@d.com", "email", "c@d.com"),
    _ex("U12345678 的名字改成 李小龙", "name", "李小龙"),
    _ex("更新U12345678的姓名为陈静", "name", "陈静"),
    RequestExample.of(
        "change the phone of U12345678 to 13600001111",
        "en",
        "update_profile",
        user_id="U12345678",
        field="phone",
        value="13600001111",
    ),
)


def test_words_every_example_of_a_value_writes_and_no_other_value_does() -> None:
    got = learn_value_words([_UPDATE], EXAMPLES)
    assert got == {"field": {"city": ["城市"], "email": ["邮箱"], "phone": ["手机号"]}}


def test_a_value_written_once_or_in_two_words_learns_nothing() -> None:
    got = learn_value_words([_UPDATE], EXAMPLES)["field"]
    assert "name" not in got  # 名字 / 姓名: no word both examples write


def test_a_word_another_value_writes_is_not_learned() -> None:
    clash = (*EXAMPLES, _ex("U12345678换了手机号，把邮箱改成 e@f.com", "email", "e@f.com"))
    got = learn_value_words([_UPDATE], clash)["field"]
    assert "phone" not in got  # 手机号 is written by an email example too
    assert got["email"] == ["邮箱"]  # still in every email example and in no other


def test_an_example_of_two_values_contrasts_neither() -> None:
    both = RequestExample(
        text="把U12345678的手机号改成13912345678，邮箱改成 a@b.com",
        lang="zh",
        steps=(
            ("update_profile", {"user_id": "U12345678", "field": "phone", "value": "13912345678"}),
            ("update_profile", {"user_id": "U12345678", "field": "email", "value": "a@b.com"}),
        ),
    )
    got = learn_value_words([_UPDATE], (*EXAMPLES, both))["field"]
    assert got["phone"] == ["手机号"] and got["email"] == ["邮箱"]


def test_given_words_win_and_their_argument_learns_nothing() -> None:
    given = {"field": {"phone": ["电话"]}}
    assert learn_value_words([_UPDATE], EXAMPLES, given) == {}
    assert with_learned([_UPDATE], EXAMPLES, given) == given


def test_a_contract_domain_carries_the_learned_words() -> None:
    dom = contract_domain("profiles", [_UPDATE], EXAMPLES)
    assert dom.value_words["field"]["phone"] == ["手机号"]
    assert "手机号" in dom.lexicon.field_words
