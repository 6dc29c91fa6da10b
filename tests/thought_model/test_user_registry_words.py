"""A user registry's own words around the model (issue #15, helper h): the clause splitter's verbs,
nouns and id kinds from the registry, a required enum value the request never writes, no date
slots in a registry without time arguments, Chinese names before 现在 / after 找出."""

from __future__ import annotations

from datetime import date

import pytest

from tao.contracts import InsufficientContext, PlanStep, ThoughtPlan
from tao.contracts.domain import Domain, uses_time_slots
from tao.domains import load_domain
from tao.domains.helpdesk.examples import VALUE_WORDS
from thought_model.clauses import split_masked
from thought_model.entities import default_lexicon, perceive
from thought_model.enum_required import must_write, unwritten_required
from thought_model.enum_words import EnumWords
from thought_model.split_vocab import registry_split_vocab
from training.derive import derive_phrasing

DOMAIN = load_domain("tao.domains.helpdesk:registry")
VOCAB = registry_split_vocab(DOMAIN.tools, DOMAIN.lexicon)
TODAY = date(2026, 4, 14)


@pytest.mark.parametrize(
    ("masked", "clauses"),
    [
        (
            "reset my wifi password and list my open tickets",
            ["reset my wifi password", "list my open tickets"],
        ),
        ("帮我重置ERP密码，再查一下<TICKET1>的状态", ["帮我重置ERP密码", "查一下<TICKET1>的状态"]),
        ("show <TICKET1> plus my devices", ["show <TICKET1>", "my devices"]),
        # two ids of one registry kind are one ask's list, never two asks
        (
            "list the devices of <EMPLOYEE1> and <EMPLOYEE2>",
            ["list the devices of <EMPLOYEE1> and <EMPLOYEE2>"],
        ),
        # a clause that needs the one before it stays whole
        (
            "my laptop is broken, please request a replacement",
            ["my laptop is broken, please request a replacement"],
        ),
    ],
)
def test_registry_words_split_the_asks(masked: str, clauses: list[str]) -> None:
    assert split_masked(masked, VOCAB) == clauses


def test_registry_vocab_comes_from_the_tool_names() -> None:
    assert {"reset", "list", "request"} <= VOCAB.en_verbs
    assert {"password", "devices", "ticket"} <= VOCAB.en_nouns
    assert {"EMPLOYEE", "TICKET", "ASSET"} <= set(VOCAB.id_kinds)
    # the reference splitter is unchanged without the vocabulary
    assert split_masked("reset my wifi password and list my open tickets") == [
        "reset my wifi password and list my open tickets"
    ]


STEPS = {s.name: [(t, dict(a)) for t, a, _ in s.steps] for s in derive_phrasing(DOMAIN).intents}
WORDS = EnumWords(DOMAIN.tools, VALUE_WORDS)


def _reset(system: str, employee: str = "E100234") -> ThoughtPlan:
    step = PlanStep(
        step_id="t1", tool="reset_password", arguments={"employee_id": employee, "system": system}
    )
    return ThoughtPlan(intent="reset_password", steps=[step])


def test_must_write_is_the_required_enum_every_intent_leaves_to_the_request() -> None:
    required = must_write(DOMAIN.tools, STEPS)
    assert required.get("reset_password") == frozenset({"system"})
    # a ticket's category is a constant of some phrasings (it follows from the summary)
    assert "category" not in required.get("create_ticket", frozenset())


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("can you send me a password reset link", ["system"]),
        ("重置一下E100999的密码", ["system"]),
        ("send me a reset link for my VPN", None),
        ("我的邮箱密码忘了", None),
    ],
)
def test_an_unwritten_required_enum_is_insufficient(text: str, missing: list[str] | None) -> None:
    masked = perceive(text, TODAY, True, DOMAIN.lexicon).masked
    out = unwritten_required(_reset("email"), masked, WORDS, must_write(DOMAIN.tools, STEPS))
    if missing is None:
        assert out is None
    else:
        assert isinstance(out, InsufficientContext) and out.required_fields == missing


def test_a_registry_without_time_arguments_binds_no_date_slots() -> None:
    assert DOMAIN.lexicon.time_slots is False and not uses_time_slots(DOMAIN.tools)
    p = perceive("TCK-482913现在是什么状态", TODAY, True, DOMAIN.lexicon)
    assert p.masked == "<TICKET1>现在是什么状态"
    # the reference domain keeps its dates
    assert default_lexicon().time_slots is True
    assert "<DATE1>" in perceive("明天北京天气怎么样", TODAY).slots
    # a snapshot written before the field existed gets it from its tools
    snap = DOMAIN.snapshot()
    snap["lexicon"].pop("time_slots")
    assert Domain.from_snapshot(snap).lexicon.time_slots is False


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("何磊现在有哪些已解决的工单", "何磊"),
        ("麻烦找出郑海涛的员工编号", "郑海涛"),
        ("吴芳目前有哪些工单", "吴芳"),
    ],
)
def test_chinese_names_before_now_and_after_find(text: str, name: str) -> None:
    assert perceive(text, TODAY, True, DOMAIN.lexicon).slots.get("<NAME1>") == name
