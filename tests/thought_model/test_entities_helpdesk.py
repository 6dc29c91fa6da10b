"""Helpdesk perception (issue #15): a comma piece of the domain's enum words ends a cued free text,
Chinese names before the helpdesk's verbs and status words."""

from __future__ import annotations

from datetime import date

import pytest

from tao.domains import load_domain
from thought_model.entities import perceive

TODAY = date(2026, 4, 14)


@pytest.fixture(scope="module")
def lex():
    return load_domain("tao.domains.helpdesk:registry").lexicon


def test_enum_words_after_a_comma_end_the_summary(lex) -> None:
    assert lex.field_words  # from the domain's value_words
    p = perceive(
        "open a hardware ticket for E315502: monitor has dead pixels, low priority", TODAY, True, lex
    )
    assert p.slots["<TEXT1>"] == "monitor has dead pixels"
    assert perceive("我要报修，问题是电脑坏了，紧急", TODAY, True, lex).slots["<TEXT1>"] == "电脑坏了"
    # a comma piece that is not only enum words stays text
    assert perceive("open a ticket: wifi is slow, printer too", TODAY, True, lex).slots["<TEXT1>"] == (
        "wifi is slow, printer too"
    )
    # the reference domain has no field words: its comma rule is unchanged
    assert perceive("原因：尺码不对，想换个颜色", TODAY).slots["<TEXT1>"] == "尺码不对，想换个颜色"


@pytest.mark.parametrize(
    "text, name",
    [
        ("列出石桂英处理中的工单", "石桂英"),
        ("欧阳涛都有什么设备", "欧阳涛"),
        ("郭涛领用了哪些电脑", "郭涛"),
        ("看看王芳已关闭的工单", "王芳"),
    ],
)
def test_names_before_helpdesk_words(lex, text: str, name: str) -> None:
    assert perceive(text, TODAY, True, lex).slots.get("<NAME1>") == name


def test_an_ask_after_the_summary_is_no_part_of_it(lex) -> None:
    """描述：X，帮王洁开个硬件工单: the summary is X, 王洁 a name."""
    p = perceive("描述：屏幕闪，帮王洁开个硬件工单", TODAY, True, lex)
    assert p.slots == {"<TEXT1>": "屏幕闪", "<NAME1>": "王洁"}


def test_a_connector_after_a_word_cue_starts_the_next_ask_not_free_text(lex) -> None:
    p = perceive("which is my newest waiting ticket, and who's handling it?", lexicon=lex)
    assert not any(t.startswith("<TEXT") for t in p.slots), p.masked
    p = perceive("open a ticket, my laptop won't boot", lexicon=lex)
    assert list(p.slots.values()) == ["my laptop won't boot"]


def test_an_enum_piece_after_its_field_name_ends_the_summary(lex) -> None:
    p = perceive(
        "open a software ticket: Excel crashes whenever I open big files, priority urgent", lexicon=lex
    )
    assert list(p.slots.values()) == ["Excel crashes whenever I open big files"]


def test_a_name_after_a_department_after_zhi_dao_and_before_a_pinyin_de(lex) -> None:
    """人事部的王建国 / 销售部周婷婷 / 我想知道马东的 / 周文斌de员工号 / 陈明he王丽: names (issue #15);
    a room's or a whole's 的 before an ordinary word is none."""

    def names(text: str) -> list[str]:
        return [v for k, v in perceive(text, TODAY, True, lex).slots.items() if k.startswith("<NAME")]

    assert names("帮我查下人事部的王建国的员工号") == ["王建国"]
    assert names("帮我查查销售部周婷婷") == ["周婷婷"]
    assert names("请找到技术部的欧阳明") == ["欧阳明"]
    assert names("我想知道马东的邮箱") == ["马东"]
    assert names("周文斌de员工号是多少") == ["周文斌"]
    assert names("陈明he王丽的工号") == ["陈明", "王丽"]
    assert names("把会议室的容量告诉我") == []
    assert names("全部的工单") == []
    assert names("E290017有哪些处于等待状态的工单") == []  # 处于: no department


def test_a_quoted_enum_word_is_a_value_not_free_text(lex) -> None:
    p = perceive(
        "log a ticket under the 'other' category: the lab door needs a badge reader", TODAY, True, lex
    )
    assert list(p.slots.values()) == ["the lab door needs a badge reader"]
    assert "'other'" in p.masked  # left for the enum rules to read
    p = perceive('open a ticket saying "VPN drops every hour"', TODAY, True, lex)
    assert list(p.slots.values()) == ["VPN drops every hour"]
    # cued text that is only an enum word is that value too ("for me, high priority")
    p = perceive("Could you open a hardware ticket for me, high priority? Details later.", TODAY, True, lex)
    assert not any(k.startswith("<TEXT") for k in p.slots) and "high priority" in p.masked
