"""Request text -> a sparse feature row for the intent classifier.

The text is first normalized as perception normalizes it (:func:`thought_model.perception.normalize.
normalize_request`: full-width letters and digits to ASCII, traditional to simplified Chinese with
OpenCC ``t2s``, misspelled key words fixed), lower-cased. Values that say nothing about the intent
but everything about its arguments are then masked: each id kind of the registry's lexicon becomes a
word naming its slot (``TRP-582210`` -> ``slot_trip``, so an id of a kind seen in training counts
whatever its digits), then emails, dates, clock times, phones, other numbers, and the cities the
perception's gazetteer finds (``slot_city``). The features are :func:`tao.memory.embed.text_features`
(Latin words, word bigrams, character 3-grams of words, which survive typos; CJK 1- and 2-grams)
plus CJK 3-grams, plus one ``k:<concept>`` per concept of the bilingual lexicon
(:mod:`.lexicon`) the request mentions (id slot words included), hashed into ``dim`` buckets, log
term frequency, L2-normalized (a scipy CSR matrix).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from tao.contracts.domain import Lexicon
from tao.loop.intent.lexicon import concepts_of
from tao.memory.embed import text_features

DEFAULT_DIM = 1 << 15
FEATURES_VERSION = 3
"""Part of a fitted router's fingerprint: a model fit on other features is refit."""
CONCEPT_WEIGHT = 4
"""Each concept feature counts as this many occurrences (before log-tf)."""
_GENERIC = (
    (re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"), " slot_email "),
    (re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}月\d{1,2}[日号]|\d{4}年"), " slot_date "),
    (re.compile(r"\d{1,2}[:：]\d{2}"), " slot_time "),
    (re.compile(r"(?<![A-Za-z])1[3-9]\d{9}(?!\d)"), " slot_phone "),
    (re.compile(r"\d+(?:\.\d+)?"), " slot_num "),
)
_CJK = re.compile(r"[\u3400-\u9fff]+")


class Masker:
    """Masks the id kinds of one lexicon (longest patterns first) and the generic values."""

    def __init__(self, lexicon: Lexicon | None) -> None:
        kinds = sorted(lexicon.id_kinds if lexicon else (), key=lambda k: -len(k.sample))
        self.kinds = [
            (re.compile(k.pattern, re.IGNORECASE if k.ignore_case else 0), f" slot_{k.slot.lower()} ")
            for k in kinds
        ]

    def __call__(self, text: str) -> str:
        text = normalize(text)
        for rx, rep in self.kinds:
            text = rx.sub(rep, text)
        for rx, rep in _GENERIC:
            text = rx.sub(rep, text)
        return _mask_cities(text).lower()


def normalize(text: str) -> str:
    """Perception's normalization (width, traditional -> simplified, key-word typos)."""
    from thought_model.perception.normalize import normalize_request

    return normalize_request(text)


def _mask_cities(text: str) -> str:
    from thought_model.perception.gazetteer import find_cities

    try:
        found = find_cities(text)
    except Exception:  # the gazetteer is evidence, never a failure of routing
        return text
    for m in sorted(found, key=lambda c: -c.start):
        text = text[: m.start] + " slot_city " + text[m.end :]
    return text


def features(masked: str) -> list[str]:
    feats = text_features(masked)
    for run in _CJK.findall(masked):
        feats += ["t:" + run[i : i + 3] for i in range(len(run) - 2)]
    for c in concepts_of(masked):
        feats += ["k:" + c] * CONCEPT_WEIGHT
    return feats


def featurize(texts: Sequence[str], masker: Masker, dim: int = DEFAULT_DIM) -> sparse.csr_matrix:
    """One L2-normalized hashed row per text."""
    indptr, indices, data = [0], [], []
    for text in texts:
        counts: dict[int, int] = {}
        for f in features(masker(text)):
            h = zlib.crc32(f.encode()) % dim
            counts[h] = counts.get(h, 0) + 1
        vals = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)))
        norm = float(np.linalg.norm(vals)) or 1.0
        indices.extend(counts.keys())
        data.extend((vals / norm).tolist())
        indptr.append(len(indices))
    return sparse.csr_matrix(
        (np.asarray(data, dtype=np.float32), np.asarray(indices, dtype=np.int32), np.asarray(indptr)),
        shape=(len(texts), dim),
    )
