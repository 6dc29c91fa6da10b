"""Filler insertion: training rows only, placeholders intact, labels still consistent."""

from __future__ import annotations

import random
import re

import pytest

from training.fillers import EN_CLAUSES, ZH_CLAUSES, add_fillers
from training.generate import GenConfig, iter_split

_PH = re.compile(r"\{[a-z0-9]+\}")


def test_fillers_keep_placeholders_and_cue_slots_together() -> None:
    rng = random.Random(0)
    for tmpl, lang in [
        ("cancel order {order} because {reason}", "en"),
        ("给{name}发邮件，主题是{subject}", "zh"),
        ("email {name} subject: {subject} body: {body}", "en"),
    ]:
        for _ in range(200):
            out = add_fillers(tmpl, lang, rng, prob=1.0)
            assert _PH.findall(out) == _PH.findall(tmpl)
            # cue word and free-text slot stay adjacent (nothing inserted between them)
            for cue in ("because {reason}", "主题是{subject}", "subject: {subject}", "body: {body}"):
                if cue in tmpl:
                    assert cue in out, out
            assert out != tmpl


@pytest.mark.slow
def test_fillers_only_in_training_split() -> None:
    """Evaluation splits are byte-identical with and without fillers; the training split is not."""
    with_f, without = (
        GenConfig(n_train=200, n_eval=200, seed=7),
        GenConfig(n_train=200, n_eval=200, seed=7, filler_prob=0.0),
    )
    for split in ("test", "heldout_templates", "heldout_values", "heldout_combos"):
        assert list(iter_split(split, 200, with_f)) == list(iter_split(split, 200, without))
    assert list(iter_split("train", 200, with_f)) != list(iter_split("train", 200, without))
    clauses = [c for c in EN_CLAUSES + ZH_CLAUSES if len(c) > 6]
    assert sum(any(c in r["request"] for c in clauses) for r in iter_split("train", 200, with_f)) > 10


def test_training_rows_with_fillers_keep_literal_values() -> None:
    """Every literal id/email in the expected plan still appears verbatim in the request."""
    cfg = GenConfig(n_train=300, n_eval=10, seed=11, filler_prob=1.0)
    for row in iter_split("train", 300, cfg):
        for step in row["expected"].get("steps", []):
            for v in step["arguments"].values():
                if isinstance(v, str) and re.fullmatch(r"[0-9]{18}|INV[0-9]{10}|EXP[0-9]{8}|\S+@\S+", v):
                    assert v in row["request"], (v, row["request"])
