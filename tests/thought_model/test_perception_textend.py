"""Where a cued free-text value ends (thought_model/perception/textend.py): past a comma inside the
value, before a clear next clause, never with a trailing sign-off (issue #14, round 11)."""

from __future__ import annotations

from datetime import date

import pytest

from thought_model.entities import perceive
from thought_model.perception.textend import cued_text_end, is_sign_off

TODAY = date(2026, 6, 10)


def _texts(request: str) -> list[str]:
    p = perceive(request, today=TODAY)
    return [str(v) for k, v in p.slots.items() if k.startswith("<TEXT")]


@pytest.mark.parametrize(
    "request_, text",
    [
        (
            "给 a@b.cn 发邮件，主题：资料，正文：王芳你好，材料已经发你了，请查收。",
            "王芳你好，材料已经发你了，请查收",
        ),
        (
            "email a@b.com, subject: Notes, body: Hi Tom, thanks for the notes, see you Monday",
            "Hi Tom, thanks for the notes, see you Monday",
        ),
        ("取消订单 912345678012345678，原因：尺码不对，想换个颜色", "尺码不对，想换个颜色"),
        (
            "cancel order 412345678012345673, reason: wrong size, I want a bigger one",
            "wrong size, I want a bigger one",
        ),
    ],
)
def test_a_cued_value_runs_past_its_commas(request_: str, text: str) -> None:
    assert text in _texts(request_)


@pytest.mark.parametrize(
    "request_, text",
    [
        ("给 a@b.cn 发邮件，主题：周报，正文：本周进度正常，辛苦啦😊", "本周进度正常"),
        (
            "send an email to a@b.org, subject: Report, body: The report is ready, thanks!!",
            "The report is ready",
        ),
        ("给 a@b.cn 发封邮件，主题是周会，正文写“周会改到三点”，谢谢", "周会"),
        ("取消订单 912345678012345678，原因是买错了，另外查下订单 812345678012345678 的物流", "买错了"),
        ("建个日程，标题：周会，明天下午3点，一小时", "周会"),
    ],
)
def test_a_cued_value_stops_before_a_sign_off_or_the_next_clause(request_: str, text: str) -> None:
    assert text in _texts(request_)
    assert all("，" not in t and "," not in t for t in _texts(request_))


def test_an_invoice_header_keeps_a_city_at_its_start() -> None:
    assert "成都锦江贸易有限公司" in _texts("订单 512345678012345672 开票，抬头写成都锦江贸易有限公司")


@pytest.mark.parametrize("piece", ["辛苦啦😊", "thanks!!", " 谢谢 ", "Thank you so much", "cheers"])
def test_sign_offs(piece: str) -> None:
    assert is_sign_off(piece)


@pytest.mark.parametrize("piece", ["thanks for the notes", "谢谢你的材料已收到", ""])
def test_not_sign_offs(piece: str) -> None:
    assert not is_sign_off(piece)


def test_end_never_passes_the_limit() -> None:
    text = "正文：你好，材料已发"
    assert cued_text_end(text, 3, 5) == 5


def test_a_field_word_and_its_verb_cue_the_value_not_a_text() -> None:
    """说明写“X” / 描述写：X / 主题写成X: the value is X, not 写 or 成X (issue #14)."""
    assert perceive("报销50元餐费，说明写“客户午餐”", user_known=True).slots == {
        "<AMOUNT1>": 50.0,
        "<TEXT1>": "客户午餐",
    }
    p = perceive("发邮件给a@b.com，主题写成周会取消，正文写下周再议", user_known=True)
    assert [p.slots["<TEXT1>"], p.slots["<TEXT2>"]] == ["周会取消", "下周再议"]
    assert perceive("提个工单，描述写：打印机卡纸", user_known=True).slots == {"<TEXT1>": "打印机卡纸"}


def test_a_next_ask_after_a_comma_and_or_a_spaced_connective_ends_the_text() -> None:
    """ ", and open / reset / track …" and "… 再帮我…" start the next ask, even after a colon."""
    p = perceive(
        "request a refund for order 123456789012345678 because it arrived late, and track order 223456789012345678"
    )
    assert p.slots["<TEXT1>"] == "it arrived late"
    assert perceive("退款原因是买错了 再帮我查一下订单123456789012345678的物流").slots["<TEXT1>"] == "买错了"
    assert perceive("reason: wrong size, and reset my password").slots["<TEXT1>"] == "wrong size"


def test_free_text_keeps_the_users_characters_other_values_are_normalized() -> None:
    """A subject in traditional characters is bound as written; the email beside it is read as usual."""
    p = perceive("寄信給 a@b.com，主旨：會議改期，內容：下週再開", user_known=True)
    assert p.slots == {"<EMAIL1>": "a@b.com", "<TEXT1>": "會議改期", "<TEXT2>": "下週再開"}
    assert "会议改期" not in p.slots.values()


def test_a_cancellation_reason_after_the_ask_without_a_cue() -> None:
    """The reference lexicon's cues: "…给我撤了，地址填错了", "cancel it — changed my mind"; a sign-off or
    a label before an id is no reason."""
    p = perceive("那个 915263748190273645 的单给我撤了，地址填错了")
    assert p.slots["<TEXT1>"] == "地址填错了"
    assert perceive("grab my newest pending order and cancel it — changed my mind").slots == {
        "<TEXT1>": "changed my mind"
    }
    assert "<TEXT1>" not in perceive("把订单 915263748190273645 取消了吧，谢谢").slots
    assert "<TEXT1>" not in perceive("帮我取消，订单号是915263748190273645").slots
    assert perceive("那个 912345678012345670 的单子给我撤了，原因买错了").slots["<TEXT1>"] == "买错了"
    p = perceive("Cancel orders 260302000000000001 and 260302000000000002, reason for both: wrong size.")
    assert p.slots["<TEXT1>"] == "wrong size"
