"""A user registry's own key words (Lexicon.keywords, derived from its contracts and value words):
their typos are fixed before perception reads a request, only for a dropped or swapped letter."""

from __future__ import annotations

from tao.contracts.domain import Lexicon
from tao.domains import load_domain
from tao.domains.contract import domain_keywords
from thought_model.entities import perceive
from thought_model.perception.normalize import correct_keywords

HELPDESK = load_domain("tao.domains.helpdesk:registry")


def test_keywords_come_from_the_contracts_and_value_words() -> None:
    kw = HELPDESK.lexicon.keywords
    assert {"password", "passwords", "ticket", "tickets", "closed", "progress", "email"} <= set(kw)
    assert all(len(w) >= 5 and w.isalpha() and w.islower() for w in kw)
    assert domain_keywords(HELPDESK.tools, HELPDESK.value_words) == kw
    # the reference domain keeps its hand-kept list (no keywords of its own)
    assert load_domain("tao.domains.reference:domain").lexicon.keywords == ()


def test_typos_of_the_domains_words_are_fixed_in_perception() -> None:
    masked = perceive("list my closd tikcets and reset my emial pasword", lexicon=HELPDESK.lexicon).masked
    assert masked == "list my closed tickets and reset my email password"


def test_real_words_near_a_keyword_are_left_alone() -> None:
    extra = ("closed", "tickets", "progress")
    # another letter (closes), a base form (ticket, close) and a longer word are no typos
    assert (
        correct_keywords("payroll closes today, close my ticket", extra)
        == "payroll closes today, close my ticket"
    )
    assert (
        correct_keywords("the ones in progres", extra) == "the ones in progress"
    )  # 'progres' is no base form
    assert correct_keywords("closd", ()) == "closd"  # without the domain's words: unchanged


def test_keywords_round_trip_in_the_lexicon_json() -> None:
    lex = Lexicon(keywords=("closed", "ticket"))
    assert Lexicon.from_json(lex.to_json()).keywords == ("closed", "ticket")
