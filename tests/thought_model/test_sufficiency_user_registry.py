"""The sufficiency check on a user registry (the helpdesk): the composer gets the derived intents'
plans and the domain's enum words from the checkpoint (train_config.json), and a required enum
argument is grounded only when the request writes one of its words."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from tao.contracts import InsufficientContext, SessionState
from tao.domains import load_domain
from tao.domains.helpdesk.examples import VALUE_WORDS
from thought_model.checkpoint import DEFAULT_CHECKPOINT, checkpoint_intent_steps, checkpoint_value_words
from thought_model.compose import ComposingEngine, maybe_composing
from thought_model.engine.base import PlanRequest
from thought_model.entities import perceive
from thought_model.sufficiency import Decision, SufficiencyCheck
from training.derive import derive_phrasing

DOMAIN = load_domain("tao.domains.helpdesk:registry")
STEPS = {s.name: [(tool, dict(args)) for tool, args, _ in s.steps] for s in derive_phrasing(DOMAIN).intents}
CHECK = SufficiencyCheck(DOMAIN.tools, STEPS, lexicon=DOMAIN.lexicon, value_words=VALUE_WORDS)
SESSION = SessionState(user_id="E100234", now=datetime(2026, 3, 10, 10))


def _missing(text: str, intent: str, user_known: bool = True, check: SufficiencyCheck = CHECK):
    p = perceive(text, lexicon=DOMAIN.lexicon)
    return check.missing(intent, list(p.slots), user_known, (), p.masked)


@pytest.mark.parametrize(
    ("text", "intent", "user_known", "missing"),
    [
        ("reset my VPN password", "reset_password_me", True, []),
        ("帮我重置一下邮箱密码", "reset_password_me", True, []),
        ("my Outlook password expired, reset it", "reset_password_me", True, []),  # a value word
        ("reset my password", "reset_password_me", True, ["system"]),
        ("重置一下E100999的密码", "reset_password", True, ["system"]),
        ("reset my VPN password", "reset_password_me", False, ["employee_id"]),
        ("what devices does E210345 have", "list_devices", True, []),
        ("list my devices", "list_devices_me", False, ["employee_id"]),
        # a category the intent fixes (a hardware ticket) is no choice left to the request
        ("open a ticket, my laptop won't boot", "create_ticket_me", True, []),
        ("open a ticket for me", "create_ticket_me", True, ["summary"]),
        # 'slow' does not write 'low' (a priority is optional anyway); the category word must be there
        ("open a network ticket about the slow wifi", "create_ticket_me_4", True, []),
        ("open a ticket about the slow wifi", "create_ticket_me_4", True, ["category"]),
    ],
)
def test_missing_on_the_helpdesk(text: str, intent: str, user_known: bool, missing: list[str]) -> None:
    assert _missing(text, intent, user_known) == missing


def test_without_words_or_text_an_enum_stays_a_choice() -> None:
    bare = SufficiencyCheck(DOMAIN.tools, STEPS, lexicon=DOMAIN.lexicon)
    assert _missing("reset my password", "reset_password_me", check=bare) == []
    slots = list(perceive("reset my password", lexicon=DOMAIN.lexicon).slots)
    assert CHECK.missing("reset_password_me", slots, True) == []  # no text given: the old behaviour
    # the model's 'system' answer is kept; a grounded request is re-decoded as a plan
    ins = InsufficientContext(required_fields=["system"], intent="reset_password_me")
    p = perceive("reset my password", lexicon=DOMAIN.lexicon)
    assert CHECK.judge(ins, list(p.slots), True, p.masked).decision is Decision.KEEP
    assert bare.judge(ins, list(p.slots), True, p.masked).decision is Decision.REPLAN
    p = perceive("reset my VPN password", lexicon=DOMAIN.lexicon)
    assert CHECK.judge(ins, list(p.slots), True, p.masked).decision is Decision.REPLAN


class _Fixed:
    """An inner engine answering every request with one insufficiency (records what it was asked)."""

    name = "fixed"

    def __init__(self, ins: dict) -> None:
        self.ins = ins
        self.seen: list[bool] = []

    def generate(self, requests):
        from thought_model.engine.base import PlanResult

        out = []
        for r in requests:
            self.seen.append(bool(getattr(r, "plan_only", False)))
            out.append(PlanResult(output=InsufficientContext(**self.ins), text=json.dumps(self.ins)))
        return out


def test_composer_keeps_an_ungrounded_enum_insufficient() -> None:
    ins = {"error": "insufficient_context", "required_fields": ["system"], "intent": "reset_password_me"}
    for text, replanned in (("reset my password", False), ("reset my VPN password", True)):
        inner = _Fixed({k: v for k, v in ins.items() if k != "error"})
        eng = ComposingEngine(inner, DOMAIN.tools, intent_steps=STEPS, value_words=VALUE_WORDS)  # pyright: ignore[reportArgumentType]
        [res] = eng.generate([PlanRequest(text, session=SESSION)])
        assert isinstance(res.output, InsufficientContext)
        assert inner.seen == ([False, True] if replanned else [False])


def test_checkpoint_records_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert checkpoint_intent_steps(DEFAULT_CHECKPOINT) is None  # the reference plans apply there
    assert checkpoint_value_words(DEFAULT_CHECKPOINT) is None
    (tmp_path / "train_config.json").write_text(
        json.dumps(
            {"intent_steps": {k: [list(s) for s in v] for k, v in STEPS.items()}, "value_words": VALUE_WORDS}
        )
    )
    assert checkpoint_intent_steps(tmp_path) == STEPS
    assert checkpoint_value_words(tmp_path) == VALUE_WORDS
    monkeypatch.setenv("TAO_COMPOSE", "1")
    eng = maybe_composing(_Fixed({}), tools=DOMAIN.tools, intent_steps=STEPS, value_words=VALUE_WORDS)  # pyright: ignore[reportArgumentType]
    assert isinstance(eng, ComposingEngine) and eng.sufficiency.intents == STEPS
    assert eng.sufficiency.value_words == VALUE_WORDS


def test_an_unwritten_choice_is_missing_with_the_description_it_would_come_from() -> None:
    def fields(text: str, named: list[str]) -> list[str]:
        ins = InsufficientContext(required_fields=named, intent="create_ticket_me")
        return CHECK.with_unwritten_choices(
            ins, perceive(text, lexicon=DOMAIN.lexicon).masked
        ).required_fields

    assert fields("Open a ticket for me.", ["summary"]) == ["summary", "category"]
    assert fields("帮我开个工单，具体问题晚点说", ["summary"]) == ["summary", "category"]
    assert fields("open a network ticket for me", ["summary"]) == ["summary"]  # the category is written
    assert fields("reset my password", ["system"]) == ["system"]  # no description field named
    # without the domain's value words nothing is added (the check cannot tell)
    bare = SufficiencyCheck(DOMAIN.tools, STEPS, lexicon=DOMAIN.lexicon)
    ins = InsufficientContext(required_fields=["summary"], intent="create_ticket_me")
    assert bare.with_unwritten_choices(ins, "Open a ticket for me.") is ins
