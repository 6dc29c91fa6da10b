"""The generator: reproducible, enough variety, and splits that really hold things out."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tao.domains.reference.phrasing.intents import INTENTS
from tao.domains.reference.phrasing.values import ValueSampler
from training.generate import GenConfig, heldout_pairs, iter_split, template_ids


def test_reproducible_from_seed() -> None:
    a = list(iter_split("train", 50, GenConfig(seed=11)))
    b = list(iter_split("train", 50, GenConfig(seed=11)))
    c = list(iter_split("train", 50, GenConfig(seed=12)))
    assert a == b and a != c


@pytest.mark.slow
def test_mix_of_languages_intents_steps_and_insufficient() -> None:
    rows = list(iter_split("train", 400, GenConfig(seed=5)))
    langs = Counter(r["lang"] for r in rows)
    assert langs["zh"] > 100 and langs["en"] > 100
    assert len({r["intent"] for r in rows}) >= 25
    ins = [r for r in rows if r["expected"].get("error") == "insufficient_context"]
    assert 0.05 < len(ins) / len(rows) < 0.4
    multi = [r for r in rows if len(r["expected"].get("steps", [])) >= 3]
    assert multi and any(s["dependencies"] for r in multi for s in r["expected"]["steps"])
    assert any("${t" in json.dumps(r["expected"]) for r in rows)  # step references
    assert any('"@' in json.dumps(r["expected"]) for r in rows)  # relative time symbols


@pytest.mark.slow
def test_heldout_splits_hold_things_out() -> None:
    cfg = GenConfig(seed=5)
    train = list(iter_split("train", 600, cfg))
    train_templates = {t for r in train for t in r["template"].split("+")}
    held_t = list(iter_split("heldout_templates", 60, cfg))
    assert all(r["template"] not in train_templates for r in held_t)
    for spec in INTENTS:
        for lang in ("zh", "en"):
            tr, ho = template_ids(spec, lang)
            assert tr and ho and not set(tr) & set(ho)
    pairs = heldout_pairs(INTENTS)
    combos = list(iter_split("heldout_combos", 30, cfg))
    for r in combos:
        a, b = (t.split(":")[0] for t in r["template"].split("+"))
        assert (a, b) in pairs
    for r in train:
        parts = [t.split(":")[0] for t in r["template"].split("+")]
        if len(parts) == 2:
            assert tuple(parts) not in pairs


def test_heldout_values_never_in_training_pools() -> None:
    import random

    rng = random.Random(0)
    for lang in ("zh", "en"):
        tr = ValueSampler(lang, False, rng)
        ho = ValueSampler(lang, True, rng)
        for kind in ("city", "name", "reason", "title", "subject"):
            train_vals = {tr.sample(kind)[1] for _ in range(300)}
            held_vals = {ho.sample(kind)[1] for _ in range(100)}
            assert not train_vals & held_vals, kind
        assert tr.sample("order")[1][0] in "1234" and ho.sample("order")[1][0] in "56789"
