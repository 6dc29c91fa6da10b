"""The extra training templates: known intents, training-only, and cheap to label."""

from __future__ import annotations

from importlib import import_module

import pytest

from tao.domains.reference.phrasing.intents import INTENTS
from tao.domains.reference.phrasing.intents_more import more_templates as round6
from tao.domains.reference.phrasing.templates import MODULES, more_templates
from training.generate import template_ids
from training.template_check import check_template


def test_modules_name_known_intents() -> None:
    names = {s.name for s in INTENTS}
    for mod in MODULES:
        more = import_module(f"tao.domains.reference.phrasing.templates.{mod}").MORE
        assert set(more) <= names, set(more) - names


def test_extra_templates_are_training_templates() -> None:
    for spec in INTENTS:
        for lang in ("zh", "en"):
            ts = spec.zh if lang == "zh" else spec.en
            _train_ids, held_ids = template_ids(spec, lang)
            extra = more_templates(spec.name, lang) + round6(spec.name, lang)
            assert ts[: len(extra)] == extra
            assert not set(held_ids) & set(range(len(extra)))
            assert all(not t.startswith("~") for t in extra)


@pytest.mark.slow
@pytest.mark.parametrize("mod", MODULES)
def test_sample_of_templates_labels_cleanly(mod: str) -> None:
    lang = mod.rsplit("_", 1)[1]
    more = import_module(f"tao.domains.reference.phrasing.templates.{mod}").MORE
    sample = [(i, t) for i, ts in sorted(more.items()) for t in ts[::7]]
    for intent, t in sample:
        rate, req, target = check_template(intent, lang, t, n=12)
        assert rate <= 0.5, (intent, t, rate)
        assert req and target


def test_check_template_flags_uncued_free_text() -> None:
    rate, _, _ = check_template("cancel_order", "en", "cancel order {order} {reason}", n=20)
    assert rate > 0.5
    rate, _req, target = check_template("cancel_order", "en", "cancel order {order} because {reason}", n=20)
    assert rate <= 0.3 and '"cancel_order"' in target  # a glued suffix can still spoil the free text


def test_template_check_reads_an_intents_module() -> None:
    from tao.domains.reference.phrasing.intents_chain import CHAIN_INTENTS
    from training.template_check import _templates_of

    got = {(i, lang): ts for i, lang, ts in _templates_of("tao.domains.reference.phrasing.intents_chain")}
    assert set(got) == {(s.name, lang) for s in CHAIN_INTENTS for lang in ("zh", "en")}
    for s in CHAIN_INTENTS:
        assert got[(s.name, "zh")] == s.zh and got[(s.name, "en")] == s.en
    assert dict(((i, lang), ts) for i, lang, ts in _templates_of("orders_en"))  # MORE modules still work


@pytest.mark.slow
def test_chain_intents_label_cleanly() -> None:
    """A sample of every chain intent's templates, both languages: few drops, and a plan (or an
    insufficient_context answer) that names the intent."""
    from tao.domains.reference.phrasing.intents_chain import CHAIN_INTENTS

    for spec in CHAIN_INTENTS:
        for lang, ts in (("zh", spec.zh), ("en", spec.en)):
            for t in ts[::4]:
                rate, req, target = check_template(spec.name, lang, t, n=10)
                assert rate <= 0.4, (spec.name, t, rate)
                assert req and f'"intent":"{spec.name}"' in target, (t, target)
