"""What the generated helpdesk rows show (issue #15): augmentation never adds a word that sets an
argument (``asap`` is ``priority=urgent``), an optional enum argument with a default gets phrasings
of its own, two-clause examples come in both orders, response samples feed the value pools and are
checked against the arguments their ``extract`` outputs feed, and every expansion kind (word order,
fillers, politeness, typos, traditional characters, connectors, chains) appears in the rows."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

import training.derive as derive
import training.generate as generate
import training.noise as noise
from tao.contracts import ToolSpec
from tao.domains import load_domain
from tao.domains.contract import ContractError, contract_domain
from tao.domains.helpdesk.examples import VALUE_WORDS
from training.derive import (
    _Kinds,
    _Template,
    check_sample_outputs,
    derive_phrasing,
    optional_enum_templates,
    sample_values,
    swapped_template,
)
from training.generate import GenConfig, adds_reserved, iter_split

HELPDESK = "tao.domains.helpdesk:registry"
PRIORITY_WORDS = {w for ws in VALUE_WORDS["priority"].values() for w in ws}


def _fresh() -> Any:
    """A new helpdesk domain object (the generator caches the derived phrasing per object)."""
    return replace(load_domain(HELPDESK))


def _rows(n: int, dom: Any = None, split: str = "train", **cfg: Any) -> list[dict]:
    opts: dict[str, Any] = {"seed": 7, "compose_prob": 0.25, "user_known_prob": 0.8, **cfg}
    gen = GenConfig(n_train=n, n_eval=n, **opts)
    return list(iter_split(split, n, gen, domain=dom or _fresh()))


def _outside_text(prompt: str) -> str:
    """The prompt without the free-text values perception shows (``<TEXT1>「…」``)."""
    return re.sub(r"<TEXT[0-9]>「[^」]*」", " ", prompt)


def _writes(words: set[str], text: str) -> set[str]:
    return {w for w in words if generate._count(w, text)}


def test_adds_reserved() -> None:
    words = frozenset({"ASAP", "urgent", "高"})
    assert adds_reserved("open a ticket: {textsummary}", "open a ticket: {textsummary} asap", words)
    assert adds_reserved("open a ticket", "urgently open a ticket", words)
    assert not adds_reserved("file an urgent ticket", "pls file an urgent ticket, thx", words)
    assert not adds_reserved("开个工单，{priority}", "你好，开个工单，{priority}", words)
    assert adds_reserved("开个工单", "开个工单，高", words)


def test_phrasing_reserves_the_enum_words() -> None:
    ph = derive_phrasing(load_domain(HELPDESK))
    assert {"ASAP", "高", "low priority", "vpn", "已解决"} <= ph.reserved_words
    assert ph.traditional_prob > 0


def test_augmentation_never_adds_a_priority_word_and_priority_is_never_implied() -> None:
    """Before: 195 of 24,000 training rows said ``asap`` / ``urgently`` / ``kind of urgent`` (suffix
    and filler words) while the target had no priority, and ``ASAP`` elsewhere meant urgent."""
    rows = _rows(700)
    with_priority = 0
    for r in rows:
        t = json.loads(r["target"])
        steps = [s for s in t.get("steps", []) if s["tool"] == "create_ticket"]
        if len(steps) != 1:
            continue
        written = _writes(PRIORITY_WORDS, _outside_text(r["prompt"]))
        prio = steps[0]["arguments"].get("priority")
        if prio is None:
            assert not written, (r["request"], written)
        else:
            with_priority += 1
            assert written & set(VALUE_WORDS["priority"][prio]) | {prio}, r["request"]
    assert with_priority >= 30


def test_an_optional_enum_with_a_default_gets_its_own_phrasings() -> None:
    dom = load_domain(HELPDESK)
    kinds = _Kinds(dom)
    reg = dom.registry()
    t = _Template(
        "en", "raise a ticket about {textsummary}", (("create_ticket", {"summary": "{textsummary}"}, ()),)
    )
    (v,) = optional_enum_templates(t, kinds, reg)
    assert v.text == "raise a ticket about {textsummary}, {priority}"
    assert v.steps[0][1] == {"summary": "{textsummary}", "priority": "{priority}"}
    cue = re.compile(r"(?:工单[:：，,])\s*$")
    zh = _Template(
        "zh", "问题是{textsummary}，开个工单", (("create_ticket", {"summary": "{textsummary}"}, ()),)
    )
    assert optional_enum_templates(zh, kinds, reg, cue) == []  # "工单，高" would read 高 as free text
    written = _Template(
        "en", "file an {priority} ticket", (("create_ticket", {"priority": "{priority}"}, ()),)
    )
    assert optional_enum_templates(written, kinds, reg) == []
    status = _Template("en", "list my tickets", (("list_tickets", {"employee_id": "<ME>"}, ()),))
    assert optional_enum_templates(status, kinds, reg) == []  # no default: not a modifier


def test_priority_rows_are_frequent_enough_to_learn() -> None:
    """Before: 4.9% of the training rows wrote a priority and the quick model never learned it."""
    rows = _rows(600)
    n = sum(
        any(s["arguments"].get("priority") for s in json.loads(r["target"]).get("steps", [])) for r in rows
    )
    assert n / len(rows) >= 0.07


def test_two_clause_examples_come_in_both_orders() -> None:
    dom = load_domain(HELPDESK)
    kinds = _Kinds(dom)
    steps = (("reset_password", {"employee_id": "<ME>", "system": "{system}"}, ()),)
    t = _Template("en", "I forgot my {system} password, please reset it", steps)
    s = swapped_template(t, kinds)
    assert s is not None and s.text == "please reset it, I forgot my {system} password"
    zh = _Template("zh", "我的{system}密码忘了，帮我重置一下", steps)
    s = swapped_template(zh, kinds)
    assert s is not None and s.text == "帮我重置一下，我的{system}密码忘了"
    free = _Template(
        "en", "open a ticket, {textsummary}", (("create_ticket", {"summary": "{textsummary}"}, ()),)
    )
    assert swapped_template(free, kinds) is None  # free text first: no cue before it
    then = _Template("en", "open a ticket, then check it", steps)
    assert swapped_template(then, kinds) is None


def test_response_samples_feed_the_pools() -> None:
    dom = load_domain(HELPDESK)
    kinds = _Kinds(dom)
    assert sample_values(dom, kinds) > 0
    summary = kinds.kind("create_ticket", "summary")
    assert "VPN disconnects" in summary.pool["en"]
    assert "laptop battery drains fast" in summary.pool["en"]
    name = kinds.kind("find_employee", "name")
    assert {"Li Ming", "Sam Turner", "Alice Chen"} <= set(name.pool["en"])
    assert "张伟" in name.pool["zh"]
    rows = _rows(900)
    assert any("VPN disconnects" in r["request"] or "battery drains fast" in r["request"] for r in rows)


def _lookup_domain(sample: dict, extract: dict[str, str]) -> Any:
    emp = {"type": "string", "pattern": "^E[0-9]{6}$"}
    find = ToolSpec(
        name="find_person",
        description="find a person",
        args_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        response_schema={"type": "object", "properties": {"employee_id": {"type": "string"}}},
        extract=extract,
    )
    get = ToolSpec(
        name="get_person",
        description="read a person",
        args_schema={"type": "object", "properties": {"employee_id": emp}, "required": ["employee_id"]},
    )
    return replace(contract_domain("people", [find, get]), response_samples={"find_person": [sample]})


def test_a_sample_that_contradicts_the_argument_it_feeds_is_a_clear_error() -> None:
    dom = _lookup_domain({"employee_id": "emp-42"}, {"employee_id": "/employee_id"})
    with pytest.raises(ContractError, match=r"find_person.*sample 0.*employee_id.*emp-42.*get_person"):
        check_sample_outputs(dom)
    ok = _lookup_domain({"employee_id": "E123456"}, {"employee_id": "/employee_id"})
    assert check_sample_outputs(ok) == set()
    absent = _lookup_domain({"id": "E123456"}, {"employee_id": "/employee_id"})
    assert check_sample_outputs(absent) == {("find_person", "employee_id")}


def test_helpdesk_samples_agree_with_the_chains() -> None:
    assert check_sample_outputs(load_domain(HELPDESK)) == set()


def test_every_expansion_kind_appears_in_the_rows(monkeypatch) -> None:
    """Counted in 1,200 training rows: word order, fillers, politeness, typos, traditional
    characters, connectors (compositions) and chains from ``extract``."""
    counts: Counter[str] = Counter()
    swapped: set[str] = set()

    def spy(name: str, fn: Any) -> Any:
        def wrapped(text: str, *a: Any, **k: Any) -> Any:
            out = fn(text, *a, **k)
            if out != text:
                counts[name] += 1
            return out

        return wrapped

    real_swap = derive.swapped_template

    def swap(t: Any, kinds: Any) -> Any:
        s = real_swap(t, kinds)
        if s is not None:
            swapped.add(s.text)
        return s

    monkeypatch.setattr(derive, "swapped_template", swap)
    monkeypatch.setattr(generate, "add_fillers", spy("fillers", generate.add_fillers))
    monkeypatch.setattr(generate, "paraphrase", spy("paraphrase", generate.paraphrase))
    monkeypatch.setattr(noise, "_en_typo", spy("typos", noise._en_typo))
    dom = _fresh()
    rows = _rows(1200, dom, compose_prob=0.3)
    _, ph = generate._domain(dom)
    texts = {
        (i.name, lang, k): t
        for i in ph.intents
        for lang in ("zh", "en")
        for k, t in enumerate(getattr(i, lang))
    }
    conns = [c for lang in ("zh", "en") for c in [*ph.connectors[lang], *ph.train_connectors[lang]]]
    from thought_model.perception.normalize import to_simplified

    for r in rows:
        parts = [p.split(":") for p in r["template"].split("+")]
        if any(texts[(n, lang, int(k))] in swapped for n, lang, k in parts):
            counts["word_order"] += 1
        if r["lang"] == "zh" and to_simplified(r["request"]) != r["request"]:
            counts["traditional"] += 1
        if r["intent"] == "multi_task" and any(c in r["request"] for c in conns):
            counts["connectors"] += 1
        if "_then_" in r["intent"] and "steps" in r["expected"]:
            counts["chains"] += 1
    print(dict(counts))
    for kind, least in {
        "word_order": 40,
        "fillers": 100,
        "paraphrase": 200,
        "typos": 40,
        "traditional": 10,
        "connectors": 100,
        "chains": 60,
    }.items():
        assert counts[kind] >= least, (kind, dict(counts))


def test_helpdesk_summary_boundaries() -> None:
    """The colon of an opening "quick question:" starts no summary; a colon after an id does."""
    from datetime import datetime

    from tao.contracts import SessionState
    from thought_model.prompt import prepare_prompt

    lex = load_domain(HELPDESK).lexicon
    s = SessionState(user_id="E100001", now=datetime(2026, 3, 1, 9))

    def texts(req: str) -> list[str]:
        p = prepare_prompt(req, s, lexicon=lex).perception
        return [str(v) for k, v in p.slots.items() if k.startswith("<TEXT")]

    assert texts("quick question: i need a ticket about Outlook not syncing my calendar, pls") == [
        "Outlook not syncing my calendar"
    ]
    assert texts("quick one: open a ticket for me: laptop screen flickers") == ["laptop screen flickers"]
    assert texts("open a hardware ticket for E315502: monitor has dead pixels, low priority") == [
        "monitor has dead pixels"
    ]
    assert texts("open a ticket about my headset not working and then check its status") == [
        "my headset not working"
    ]


def test_no_derived_phrasing_is_always_dropped() -> None:
    """Every phrasing yields rows: a value perception can never find again (``给{name}重置…``, a
    summary after ``E315502:``) made the generator drop every row of it, silently."""
    import random

    from training.generate import _Drop, make_example

    dom, ph = generate._domain(_fresh())
    reg = {t.name: t for t in dom.tools}
    cfg = GenConfig(user_known_prob=1.0)
    dead = []
    for spec in ph.intents:
        for lang in ("zh", "en"):
            for k, text in enumerate(getattr(spec, lang)):
                rng = random.Random(k)
                ok = 0
                for _ in range(10):
                    sampler = ph.value_sampler(lang=lang, heldout=False, rng=rng)
                    try:
                        make_example([(spec, k)], lang, sampler, rng, cfg, reg, domain=dom)
                        ok += 1
                    except _Drop:
                        pass
                if not ok:
                    dead.append((spec.name, lang, text))
    assert dead == []


def test_value_words_never_start_a_name() -> None:
    """``Wi-Fi`` (a surface of ``system=wifi``) was read as the names ``Wi`` and ``Fi``."""
    from thought_model.entities import perceive

    lex = load_domain(HELPDESK).lexicon
    assert {"Wi", "Fi", "Outlook"} <= lex.name_stop_en
    assert perceive("E732699 is locked out of Wi-Fi, reset the password", lexicon=lex).slots == {
        "<EMPLOYEE1>": "E732699"
    }
    assert perceive("reset the Wi-Fi password for Grace Kim", lexicon=lex).slots == {"<NAME1>": "Grace Kim"}


def test_an_id_of_the_users_kind_also_becomes_the_requester() -> None:
    from training.derive import me_templates

    dom = load_domain(HELPDESK)
    kinds = _Kinds(dom)
    steps = (("reset_password", {"employee_id": "{employee}", "system": "{system}"}, ()),)
    (zh,) = me_templates(_Template("zh", "给{employee}重置{system}密码", steps), kinds, "EMPLOYEE")
    assert zh.text == "给我重置{system}密码"
    assert zh.steps[0][1] == {"employee_id": "<ME>", "system": "{system}"}
    (en,) = me_templates(
        _Template("en", "reset the {system} password for {employee}", steps), kinds, "EMPLOYEE"
    )
    assert en.text == "reset the {system} password for me"
    get = (("get_employee", {"employee_id": "{employee}"}, ()),)
    (rec,) = me_templates(_Template("zh", "查一下员工{employee}的信息", get), kinds, "EMPLOYEE")
    assert rec.text == "查一下我的信息"
    assert me_templates(_Template("en", "who is the manager of {employee}", get), kinds, "EMPLOYEE") == []
    ticket = (("get_ticket", {"ticket_id": "{ticket}"}, ()),)
    assert me_templates(_Template("zh", "给{ticket}的状态", ticket), kinds, "EMPLOYEE") == []


def test_a_lookup_path_an_example_teaches_serves_every_phrasing_of_its_last_tool() -> None:
    """``Find Olivia Brown, pull up her profile and email her: …`` teaches find_user ->
    get_user_profile -> send_email(to=${t2.email}); every send_email phrasing writing an address
    is also said with a name there."""
    dom = load_domain("tao.domains.reference.from_contracts:registry")
    ph = derive_phrasing(dom)
    chain = [
        i for i in ph.intents if [s[0] for s in i.steps] == ["find_user", "get_user_profile", "send_email"]
    ]
    assert len(chain) == 1
    (intent,) = chain
    assert intent.steps[2][1]["to"] == "${t2.email}"
    for lang, texts in (("zh", intent.zh), ("en", intent.en)):
        assert len(set(texts)) >= 5, lang  # one example per language before
        assert all("{email" not in t for t in texts)
    singles = {t for i in ph.intents if [s[0] for s in i.steps] == ["send_email"] for t in i.en}
    assert any(t.replace("{email}", "{name}") in intent.en for t in singles)


def test_a_chain_examples_second_clause_follows_the_other_phrasings_of_its_first_tool() -> None:
    reg = load_domain("tao.domains.reference.from_contracts:registry").registry()
    chain = _Template(
        "zh",
        "列出我已发货的订单，然后查一下最新那单的物流",
        (
            ("list_orders", {"user_id": "<ME>", "status": "shipped"}, ()),
            ("get_logistics", {"order_id": "${t1.order_id}"}, ("t1",)),
        ),
    )
    single = _Template(
        "zh", "查一下我{period}的订单", (("list_orders", {"user_id": "<ME>", "period": "{period}"}, ()),)
    )
    got = derive.reattached_templates([chain, single], reg)
    assert [(t.text, t.steps) for t in got] == [
        ("查一下我{period}的订单，然后查一下最新那单的物流", (single.steps[0], chain.steps[1]))
    ]


def test_a_clause_that_only_cues_a_value_is_not_reattached() -> None:
    """``我最新的待付款订单取消掉，原因是{textreason}``: ``原因是…`` says nothing to do."""
    reg = load_domain("tao.domains.reference.from_contracts:registry").registry()
    chain = _Template(
        "zh",
        "我最新的一笔待付款订单帮我取消掉，原因是{textreason}",
        (
            ("list_orders", {"user_id": "<ME>", "status": "pending"}, ()),
            ("cancel_order", {"order_id": "${t1.order_id}", "reason": "{textreason}"}, ("t1",)),
        ),
    )
    single = _Template("zh", "看看我的订单", (("list_orders", {"user_id": "<ME>"}, ()),))
    assert derive.reattached_templates([chain, single], reg) == []


def test_the_speakers_newest_item_chains_a_list_tool_into_the_tool_its_id_feeds() -> None:
    """No example asks for "my latest invoice", yet list_invoices extracts invoice_id, get_invoice
    requires it, and get_invoice's phrasings write "invoice {invoice}" / "发票{invoice}"."""
    ph = derive_phrasing(load_domain("tao.domains.reference.from_contracts:registry"))
    (intent,) = [
        i
        for i in ph.intents
        if [s[0] for s in i.steps] == ["list_invoices", "get_invoice"]
        and i.steps[0][1] == {"user_id": "<ME>"}
    ]
    assert intent.steps[1][1]["invoice_id"] == "${t1.invoice_id}"
    assert any("my latest invoice" in t or "my most recent invoice" in t for t in intent.en)
    assert any("我最新的发票" in t or "我最近的发票" in t for t in intent.zh)
    every = [t for i in ph.intents for t in (*i.zh, *i.en)]
    assert not [t for t in every if "my my " in t or "我的我" in t]


def test_an_english_verb_before_an_id_is_no_noun_of_a_newest_item() -> None:
    """The helpdesk's "replace {asset}": "my latest replace" is no request."""
    ph = derive_phrasing(_fresh())
    every = [t for i in ph.intents for t in i.en]
    assert not [t for t in every if re.search(r"my (latest|most recent|last|newest) replace", t)]
