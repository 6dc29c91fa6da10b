"""English names in free text (thought_model/perception/names_en.py): a single capitalised word that
opens a sentence is no name unless a possessive follows; company names are no person (issue #15)."""

from __future__ import annotations

from datetime import date

from thought_model.entities import perceive
from thought_model.perception.names_en import company_spans, not_a_name, opens_sentence

TODAY = date(2026, 5, 11)


def names(text: str) -> list[str]:
    slots = perceive(text, today=TODAY).slots
    return [v for k, v in slots.items() if k.startswith("<NAME")]


def test_a_sentence_opening_word_is_no_name() -> None:
    assert names("Hope your day is going well. Appreciate it! Show my orders") == []
    assert names("Travelling on Sunday, what is the weather in Berlin") == []


def test_a_possessive_or_a_second_word_keeps_the_name() -> None:
    assert names("Anna's calendar for tomorrow") == ["Anna"]
    assert names("Oliver Brown starts today, create his account") == ["Oliver Brown"]
    assert names("please check the calendar of Anna tomorrow") == ["Anna"]


def test_a_company_is_no_person() -> None:
    text = "send the invoice to Maple & Co and to Acme Ltd"
    spans = company_spans(text)
    assert [text[a:b] for a, b in spans] == ["Maple & Co", "Acme Ltd"]
    i = text.index("Maple")
    assert not_a_name(text, i, i + 5, ["Maple"], spans)
    assert names(text) == []


def test_opens_sentence_skips_emoji_and_spaces() -> None:
    text = "ok. 🙂 Priority high"
    assert opens_sentence(text, text.index("Priority"))
    assert not opens_sentence("ask Priority", 4)


def test_a_lower_case_person_a_later_pronoun_refers_to() -> None:
    """ "find carlos ruiz and update his city": a person; "find my orders and cancel them" is none."""
    assert names("find carlos ruiz and update his city to quito") == ["Carlos Ruiz"]
    assert names("look up anna lee and show her profile") == ["Anna Lee"]
    assert names("find my orders and cancel them") == []
    assert names("find the room and book it for him") == []


def test_irish_scottish_and_double_names_are_one_name() -> None:
    assert names("change my name to Margaret O'Neill") == ["Margaret O'Neill"]
    assert names("find Sean McDonald and show his orders") == ["Sean McDonald"]
    assert names("email Jean-Luc Picard about the launch") == ["Jean-Luc Picard"]
    assert names("what's on Anna's calendar") == ["Anna"]  # a possessive is no part of the name


def test_the_speaker_introducing_themself_is_no_name_to_look_up() -> None:
    assert names("Hi, it's Wei from finance. Please refund 12 on order 319283746501928374") == []
    assert names("Hello, this is Tom Baker, show my orders") == []
    assert names("find Wei Zhang, it's for the audit") == ["Wei Zhang"]


def test_product_words_stay_out_of_names() -> None:
    got = names("my PowerPoint crashes and the Wi-Fi is down")
    assert "PowerPoint" not in got and "Wi-Fi" not in got  # no camel-case or short-hyphen name words
