"""Learn the LSA projection of :mod:`tao.memory.embed` from the project's own data.

    python -m training.memory.train_embed [--docs-per-intent 24] [--out tao/memory/models/embed_lsa.npz]

Documents: for each intent of the reference domain, a few renderings of its zh and en request
templates (alternatives picked at random, slots left as their kind names) together with the
descriptions of the tools its plan uses — so words of one intent in both languages co-occur.
The projection is the top-64 right singular vectors of the hashed, tf-idf weighted
document-feature matrix (scipy ``svds``). No eval set is read.
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from tao.domains.reference.phrasing.intents import INTENTS
from tao.domains.reference.registry import reference_registry
from tao.memory.embed import HASH_DIM, LSA_DIM, MODEL_PATH, hashed

_ALT = re.compile(r"\[([^\[\]]*)\]")
_SLOT = re.compile(r"\{([a-z_]+?)[0-9]?\}")


def render(template: str, r: random.Random) -> str:
    s = _ALT.sub(lambda m: r.choice(m.group(1).split("|")), template)
    return _SLOT.sub(lambda m: " " + m.group(1) + " ", s).replace("~", "")


def documents(per_intent: int, seed: int = 0) -> list[str]:
    r = random.Random(seed)
    reg = reference_registry()
    docs = []
    for spec in INTENTS:
        tools = [reg[t].description for t, _, _ in spec.steps if t in reg]
        names = " ".join(t.replace("_", " ") for t, _, _ in spec.steps)
        for _ in range(per_intent):
            parts = [render(r.choice(spec.zh), r) for _ in range(3) if spec.zh]
            parts += [render(r.choice(spec.en), r) for _ in range(3) if spec.en]
            docs.append(" ".join([*parts, names, spec.name.replace("_", " "), *tools]))
    for t in reg.values():
        docs.append(t.name.replace("_", " ") + " " + t.description)
    return docs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--docs-per-intent", type=int, default=24)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    a = ap.parse_args(argv)
    docs = documents(a.docs_per_intent)
    rows, cols, vals = [], [], []
    for i, d in enumerate(docs):
        idx, val = hashed(d)
        rows += [i] * len(idx)
        cols += idx.tolist()
        vals += val.tolist()
    X = sp.csr_matrix((vals, (rows, cols)), shape=(len(docs), HASH_DIM), dtype=np.float64)
    X.sum_duplicates()
    df = np.bincount(X.indices, minlength=HASH_DIM)
    idf = np.log((1 + len(docs)) / (1 + df)) + 1.0
    X = X @ sp.diags(idf)
    _, s, vt = svds(X, k=LSA_DIM, rng=np.random.default_rng(0))
    assert s is not None and vt is not None
    order = np.argsort(-s)
    P = (vt[order].T * idf[:, None]).astype(np.float16)  # idf folded in: x @ P == (x·idf) @ V
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, P=P)
    print(f"{len(docs)} documents, {len(INTENTS)} intents; top singular values {np.round(s[order][:5], 2)}")
    print(f"saved {a.out} ({a.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
