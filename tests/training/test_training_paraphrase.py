"""Phrasing diversity: extra templates, synonyms and fillers, and their held-out parts."""

from __future__ import annotations

import random

import pytest

from tao.domains.reference.phrasing.intents import INTENTS
from tao.domains.reference.phrasing.intents_extra import EXTRA, HELD_MARK
from training.generate import GenConfig, iter_split, template_ids
from training.paraphrase import PREFIXES, SUFFIXES, paraphrase


def test_extras_keep_original_heldout_last_and_hold_out_marked() -> None:
    by = {i.name: i for i in INTENTS}
    for name, (zh, en) in EXTRA.items():
        spec = by[name]
        for lang, extra in (("zh", zh), ("en", en)):
            ts = spec.zh if lang == "zh" else spec.en
            train_ids, held_ids = template_ids(spec, lang)
            assert len(ts) - 1 in held_ids
            assert not any(ts[i].startswith(HELD_MARK) for i in train_ids)
            assert sum(t.startswith(HELD_MARK) for t in extra) == len(held_ids) - 1 >= 1


def test_paraphrase_is_seeded_and_keeps_placeholders() -> None:
    a = [paraphrase("check the status of order {order}", "en", random.Random(i)) for i in range(50)]
    b = [paraphrase("check the status of order {order}", "en", random.Random(i)) for i in range(50)]
    assert a == b and len(set(a)) > 10
    assert all("{order}" in t for t in a)


@pytest.mark.slow
def test_heldout_fillers_never_in_training_rows() -> None:
    held = [s.strip(" ,，") for lang in ("zh", "en") for s in PREFIXES[lang][1] + SUFFIXES[lang][1]]
    held = [h for h in held if len(h) >= 3 and h != "yo"]
    rows = list(iter_split("train", 400, GenConfig(seed=7)))
    assert not [r["request"] for r in rows if any(h in r["request"] for h in held)]
    held_rows = list(iter_split("heldout_templates", 200, GenConfig(seed=7)))
    assert any(any(h in r["request"] for h in held) for r in held_rows)
