"""One HNSW vector index per tenant (usearch), mapping record ids to the index's integer keys.

Why usearch: the Redis the project runs (7.x, no RediSearch / Query Engine module) has no vector
search, and brute force in numpy over 100k × 128 float32 took ~8 ms per query on the 2-core VM —
four times the 2 ms P99 target. sqlite-vec is brute force too. usearch is a single small wheel
(Apache-2.0, no service), HNSW with float16 storage, removals, and sub-millisecond queries at
100k on one thread. The index is a cache: the records (and their vectors) live in the store
(in-process dicts or Redis); any replica rebuilds its index from there.
"""

from __future__ import annotations

import numpy as np
from usearch.index import Index


class VectorIndex:
    def __init__(
        self, ndim: int, *, connectivity: int = 16, expansion_add: int = 64, expansion_search: int = 32
    ) -> None:
        self.ndim = ndim
        self._ix = Index(
            ndim=ndim,
            metric="cos",
            dtype="f16",
            connectivity=connectivity,
            expansion_add=expansion_add,
            expansion_search=expansion_search,
        )
        self._key: dict[str, int] = {}
        self._id: dict[int, str] = {}
        self._next = 0

    def __len__(self) -> int:
        return len(self._key)

    def __contains__(self, rid: str) -> bool:
        return rid in self._key

    def add(self, rid: str, vec: np.ndarray) -> None:
        if rid in self._key:
            self.remove(rid)
        k = self._next
        self._next += 1
        self._ix.add(k, np.asarray(vec, dtype=np.float32), threads=1)
        self._key[rid], self._id[k] = k, rid

    def add_many(self, rids: list[str], vecs: np.ndarray, threads: int = 0) -> None:
        """Bulk insert (``threads=0``: all cores; used when (re)building an index)."""
        for rid in rids:
            if rid in self._key:
                self.remove(rid)
        keys = np.arange(self._next, self._next + len(rids), dtype=np.uint64)
        self._next += len(rids)
        if len(rids):
            self._ix.add(keys, np.asarray(vecs, dtype=np.float32), threads=threads)
        for rid, k in zip(rids, keys.tolist(), strict=True):
            self._key[rid], self._id[k] = k, rid

    def remove(self, rid: str) -> None:
        k = self._key.pop(rid, None)
        if k is not None:
            self._id.pop(k, None)
            self._ix.remove(k)

    def search(self, vec: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Up to ``k`` (record id, cosine similarity), best first."""
        if not self._key or k <= 0:
            return []
        m = self._ix.search(np.asarray(vec, dtype=np.float32), min(k, len(self._key)), threads=1)
        out = []
        for key, dist in zip(m.keys.tolist(), m.distances.tolist(), strict=True):
            rid = self._id.get(int(key))
            if rid is not None:
                out.append((rid, 1.0 - float(dist)))
        return out
