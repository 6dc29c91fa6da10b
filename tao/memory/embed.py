"""A small text embedding that runs offline on CPU (numpy only, no model download).

``v = normalize([ LSA(x) ; RP(x) ])`` where ``x`` is a hashed bag of features of the text
(Latin words, word bigrams and character 3-grams of words; CJK character 1- and 2-grams), log
term frequency, L2-normalized:

* ``LSA``: a 64-dimensional projection learned by truncated SVD on the project's own data — the
  reference domain's request templates (zh and en of the same intent in one document, so the
  two languages land near each other) and tool descriptions — by
  ``python -m training.memory.train_embed`` (artifact ``tao/memory/models/embed_lsa.npz``, 1 MiB);
* ``RP``: a fixed 64-dimensional random sign projection (seeded, built at load) that keeps
  lexical specificity (ids, names) the topic space blurs.

Cosine similarity of two embeddings is their dot product. Without the artifact the embedder
falls back to the random projection alone (``Embedder.lsa is None``).
"""

from __future__ import annotations

import itertools
import re
import zlib
from functools import lru_cache
from pathlib import Path

import numpy as np

HASH_DIM = 1 << 13
LSA_DIM = 64
RP_DIM = 64
MODEL_PATH = Path(__file__).with_name("models") / "embed_lsa.npz"

_LATIN = re.compile(r"[a-z0-9][a-z0-9_.@-]*")
_CJK = re.compile(r"[\u3400-\u9fff]+")


def text_features(text: str) -> list[str]:
    t = text.lower()
    words = _LATIN.findall(t)
    feats = ["w:" + w for w in words]
    feats += ["b:" + a + " " + b for a, b in itertools.pairwise(words)]
    for w in words:
        if len(w) > 3:
            p = "<" + w + ">"
            feats += ["g:" + p[i : i + 3] for i in range(len(p) - 2)]
    for run in _CJK.findall(t):
        feats += ["c:" + ch for ch in run]
        feats += ["c:" + run[i : i + 2] for i in range(len(run) - 1)]
    return feats


def hashed(text: str, dim: int = HASH_DIM) -> tuple[np.ndarray, np.ndarray]:
    """(indices, values) of the L2-normalized log-tf hashed feature vector."""
    counts: dict[int, int] = {}
    for f in text_features(text):
        h = zlib.crc32(f.encode()) % dim
        counts[h] = counts.get(h, 0) + 1
    if not counts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    idx = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
    val = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
    return idx, val / np.linalg.norm(val)


class Embedder:
    def __init__(self, lsa: np.ndarray | None) -> None:
        self.lsa = None if lsa is None else np.asarray(lsa, dtype=np.float32)
        rng = np.random.default_rng(20261201)
        self.rp = (rng.integers(0, 2, size=(HASH_DIM, RP_DIM)) * 2 - 1).astype(np.float32) / np.sqrt(RP_DIM)
        self.dim = RP_DIM + (0 if self.lsa is None else self.lsa.shape[1])

    @classmethod
    def load(cls, path: Path | str = MODEL_PATH) -> Embedder:
        p = Path(path)
        return cls(np.load(p)["P"] if p.exists() else None)

    def embed(self, text: str) -> np.ndarray:
        """A unit vector (float32) of ``self.dim``; the zero vector for a text without features."""
        idx, val = hashed(text)
        if idx.size == 0:
            return np.zeros(self.dim, dtype=np.float32)
        parts = [val @ self.rp[idx]]
        if self.lsa is not None:
            a = val @ self.lsa[idx]
            n = float(np.linalg.norm(a))
            parts.insert(0, a / n if n > 0 else a)
            r = parts[1]
            rn = float(np.linalg.norm(r))
            parts[1] = r / rn if rn > 0 else r
        v = np.concatenate(parts).astype(np.float32)
        n = float(np.linalg.norm(v))
        return v / n if n > 0 else v


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    return Embedder.load()
