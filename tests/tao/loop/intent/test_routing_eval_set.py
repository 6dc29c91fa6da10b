"""The writer's held-out routing set (``data/routing_eval.jsonl``): well-formed, labelled with tools
that exist, and kept out of the router's training corpus.

The set was written by a writer who saw only each tool's name, description and argument schema
(``python -m bench routing`` scores it). Leakage check: no request equals (case- and
whitespace-folded) a training row of the router's corpus (short asks of under 6 words / 12 characters
aside: one, "Any update on TCK-118320?", equals a derived example row), and no long request (12+ n-grams) has
80% or more of its n-grams in that corpus (zh: character 6-grams, en: word 4-grams; digits
ids and numbers folded to one symbol so resampled ids neither hide a copy nor make one).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tao.contracts.domain import Domain

DATA = Path(__file__).with_name("data") / "routing_eval.jsonl"
DATA2 = Path(__file__).with_name("data") / "routing_eval2.jsonl"
"""The second writer's set (another writer, next stop; same rules: tool contracts only)."""
DEV3 = Path(__file__).with_name("data") / "routing_dev3.jsonl"
"""A dev set (stop 37: 219 requests, 120 out of scope, most next to a tool), written by a helper
from the tool contracts only; the unserved-action check was tuned on it, so it is not held out —
but it must be well-formed and out of the corpus like the others (its row d045, "has EXP20240518
been paid out yet?", equalled a derived example row once ids were folded and was dropped)."""
DEV4 = Path(__file__).with_name("data") / "routing_dev4.jsonl"
DEV5 = Path(__file__).with_name("data") / "routing_dev5.jsonl"
"""Two more dev sets (stop 38: 240 and 200 requests, 100 and 80 out of scope), each written by its
own helper from the tool contracts only. Round 4 of the action check was tuned on dev4; dev5 was
scored blind once (after the first rules were written from dev3 and dev4), then tuned on too."""
MIN_ROWS = {DATA: 240, DATA2: 240, DEV3: 200, DEV4: 240, DEV5: 200}
SETS = pytest.mark.parametrize(
    "path", [DATA, DATA2, DEV3, DEV4, DEV5], ids=["writer1", "writer2", "dev3", "dev4", "dev5"]
)
ZH_N, EN_N = 6, 4
KINDS = {"single", "multi", "out_of_scope"}


def _rows(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _fold(text: str) -> str:
    ids = re.sub(r"[A-Za-z-]*\d[A-Za-z0-9_-]*", "§", text.lower())  # ids and numbers: one symbol
    return re.sub(r"\s+", " ", ids).strip()


def _is_zh(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", text) is not None


def _grams(text: str) -> set[str]:
    f = _fold(text)
    if _is_zh(text):
        s = f.replace(" ", "")
        return {s[i : i + ZH_N] for i in range(len(s) - ZH_N + 1)}
    w = re.findall(r"[^\W_]+", f)
    return {" ".join(w[i : i + EN_N]) for i in range(len(w) - EN_N + 1)}


def _long(text: str) -> bool:
    """Long enough that an equal string is a copy, not a short generic ask: the writer's
    "Any update on TCK-118320?" equals a derived example row once digits are folded."""
    f = _fold(text)
    return len(f.replace(" ", "")) >= 12 if _is_zh(text) else len(f.split()) >= 6


@SETS
def test_set_is_well_formed(combined: Domain, path: Path) -> None:
    rows = _rows(path)
    names = set(combined.tool_names())
    assert len(rows) >= MIN_ROWS[path]
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["kind"] in KINDS, r
        assert r["lang"] in {"zh", "en"}, r
        assert isinstance(r["request"], str) and r["request"].strip(), r
        assert set(r["tools"]) <= names, (r["id"], set(r["tools"]) - names)
        assert (r["kind"] == "out_of_scope") == (not r["tools"]), r
        assert r["kind"] != "multi" or len(set(r["tools"])) >= 2, r
    assert sum(r["kind"] == "out_of_scope" for r in rows) >= 30


@SETS
def test_set_is_not_in_the_router_corpus(combined: Domain, path: Path) -> None:
    from tao.domains.combined import parts
    from tao.loop.intent.corpus import Split, domain_rows

    corpus = domain_rows(parts(), Split.TRAIN)
    assert len(corpus) > 1000
    exact = {_fold(r.text) for r in corpus}
    zh: set[str] = set()
    en: set[str] = set()
    for r in corpus:
        (zh if _is_zh(r.text) else en).update(_grams(r.text))
    copied, covered = [], []
    for row in _rows(path):
        if _fold(row["request"]) in exact and _long(row["request"]):
            copied.append(row["id"])
        g = _grams(row["request"])
        pool = zh if _is_zh(row["request"]) else en
        if len(g) >= 12 and len(g & pool) / len(g) >= 0.8:
            covered.append(row["id"])
    assert copied == [], f"writer requests found verbatim in the router corpus: {copied}"
    assert covered == [], f"long writer requests 80%+ covered by the router corpus: {covered}"


@SETS
@pytest.mark.parametrize("field", ["request", "tools", "kind"])
def test_every_row_has(field: str, path: Path) -> None:
    assert all(field in r for r in _rows(path))
