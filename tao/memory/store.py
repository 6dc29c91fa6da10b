"""The three memory tiers behind one interface, in-process or Redis-backed.

* short-term: one :class:`RollingSummary` per (tenant, session), hot TTL, replaced each turn;
* episodic: :class:`Episode` records of finished tasks, warm TTL, retrieved by similarity;
* long-term facts: :class:`Fact` records, cold TTL, written only by :meth:`confirm_fact` on a
  proposal made by :meth:`propose_fact` (proposals expire after ``pending_s``).

Every tenant is its own namespace (own records, own vector index); every text is redacted
(:func:`tao.trace.redact.redact`) before it is stored or embedded. Retrieval: the tenant's index
gives candidates, expired or deleted ones are dropped, the rest filtered by tier and score
threshold and ordered by (score desc, id).

Redis layout (one hash tag per tenant, so a tenant's keys share a Cluster slot):
``{P:T}:rec:<id>`` hash {json, vec} with PEXPIRE; ``{P:T}:log`` zset id → insertion sequence;
``{P:T}:seq`` counter; ``{P:T}:sum:<session>`` summary JSON; ``{P:T}:pend:<id>`` proposal JSON.
Each replica keeps a local index per tenant and, before a search, pulls the ids logged since
its last sync (one ZRANGEBYSCORE); a hit whose record has expired is removed from the index.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import numpy as np

from tao.memory.embed import Embedder, default_embedder
from tao.memory.index import VectorIndex
from tao.memory.records import (
    Episode,
    Fact,
    Hit,
    Lifetimes,
    MemoryRecord,
    Proposal,
    RollingSummary,
    Tier,
    check_key,
)
from tao.trace.redact import redact, redact_text

DEFAULT_MIN_SCORE = 0.6
DEFAULT_TOP_K = 2


class ConfirmationError(LookupError):
    """A fact confirmation without a live proposal (unknown, expired or another tenant's)."""


class Memory(Protocol):
    def get_summary(self, tenant: str, session_id: str) -> RollingSummary | None: ...
    def put_summary(self, tenant: str, summary: RollingSummary) -> None: ...
    def add_episode(self, tenant: str, episode: Episode) -> str: ...
    def propose_fact(self, tenant: str, fact: Fact) -> Proposal: ...
    def confirm_fact(self, tenant: str, proposal_id: str, *, confirmed: bool = True) -> str | None: ...
    def search(
        self,
        tenant: str,
        query: str,
        *,
        k: int = DEFAULT_TOP_K,
        min_score: float = DEFAULT_MIN_SCORE,
        tiers: Iterable[Tier] = (Tier.EPISODIC, Tier.FACT),
    ) -> list[Hit]: ...
    def forget(self, tenant: str, record_id: str) -> None: ...


def _redacted_summary(s: RollingSummary) -> RollingSummary:
    return RollingSummary.model_validate(redact(s.model_dump(mode="json")))


class _Base:
    def __init__(
        self,
        *,
        lifetimes: Lifetimes | None = None,
        embedder: Embedder | None = None,
        clock: Callable[[], float] = time.time,
        candidates: int = 8,
        redact_short: bool = True,
    ) -> None:
        self.redact_short = redact_short  # False keeps PII in the hot tier (documented trade-off)
        self.lifetimes = lifetimes or Lifetimes()
        self.embedder = embedder or default_embedder()
        self.clock = clock
        self.candidates = candidates
        self._indexes: dict[str, VectorIndex] = {}

    def _clean(self, s: RollingSummary) -> RollingSummary:
        return _redacted_summary(s) if self.redact_short else s.model_copy(deep=True)

    def _index(self, tenant: str) -> VectorIndex:
        ix = self._indexes.get(tenant)
        if ix is None:
            ix = self._indexes[tenant] = VectorIndex(self.embedder.dim)
        return ix

    def _record(self, tenant: str, tier: Tier, text: str, payload: dict[str, Any]) -> MemoryRecord:
        now = self.clock()
        return MemoryRecord(
            id=f"{tier.value[0]}-{uuid.uuid4().hex[:16]}",
            tenant=tenant,
            tier=tier,
            text=redact_text(text),
            payload=redact(payload),
            created_at=now,
            expires_at=now + self.lifetimes.for_tier(tier),
        )

    # subclasses: _store(rec, vec), _fetch(tenant, ids) -> {id: rec}, _drop(tenant, id), _sync(tenant)
    def _store(self, rec: MemoryRecord, vec: np.ndarray) -> None:
        raise NotImplementedError

    def _fetch(self, tenant: str, ids: list[str]) -> dict[str, MemoryRecord]:
        raise NotImplementedError

    def _drop(self, tenant: str, record_id: str) -> None:
        raise NotImplementedError

    def _sync(self, tenant: str) -> None:
        return None

    def _write(
        self, tenant: str, tier: Tier, text: str, payload: dict[str, Any], key_text: str | None = None
    ) -> str:
        """Store a record; its vector embeds ``key_text`` (what a later query should resemble)."""
        check_key("tenant", tenant)
        rec = self._record(tenant, tier, text, payload)
        vec = self.embedder.embed(redact_text(key_text) if key_text is not None else rec.text)
        self._store(rec, vec)
        self._index(tenant).add(rec.id, vec)
        return rec.id

    def add_episode(self, tenant: str, episode: Episode) -> str:
        # retrieved by the similarity of a new request to the episode's input
        return self._write(
            tenant,
            Tier.EPISODIC,
            episode.text(),
            episode.model_dump(mode="json"),
            key_text=episode.input_summary,
        )

    def search(
        self,
        tenant: str,
        query: str,
        *,
        k: int = DEFAULT_TOP_K,
        min_score: float = DEFAULT_MIN_SCORE,
        tiers: Iterable[Tier] = (Tier.EPISODIC, Tier.FACT),
    ) -> list[Hit]:
        check_key("tenant", tenant)
        self._sync(tenant)
        ix = self._indexes.get(tenant)
        if ix is None or not len(ix):
            return []
        want = set(tiers)
        cands = [
            (rid, s)
            for rid, s in ix.search(self.embedder.embed(redact_text(query)), self.candidates)
            if s >= min_score
        ]
        if not cands:
            return []
        recs = self._fetch(tenant, [rid for rid, _ in cands])
        now, hits = self.clock(), []
        for rid, score in cands:
            rec = recs.get(rid)
            if rec is None or rec.expires_at <= now or rec.tenant != tenant:
                ix.remove(rid)  # expired or deleted (possibly by another replica)
                if rec is not None:
                    self._drop(tenant, rid)
                continue
            if rec.tier in want:
                hits.append(Hit(rec, round(score, 6)))
        hits.sort(key=lambda h: (-h.score, h.record.id))
        return hits[:k]

    def forget(self, tenant: str, record_id: str) -> None:
        check_key("tenant", tenant)
        self._drop(tenant, record_id)
        self._index(tenant).remove(record_id)


class InProcessMemory(_Base):
    """Everything in this process (tests, the CLI, one replica)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._records: dict[str, dict[str, MemoryRecord]] = {}
        self._summaries: dict[tuple[str, str], tuple[float, RollingSummary]] = {}
        self._pending: dict[tuple[str, str], Proposal] = {}

    def _store(self, rec: MemoryRecord, vec: np.ndarray) -> None:
        self._records.setdefault(rec.tenant, {})[rec.id] = rec

    def _fetch(self, tenant: str, ids: list[str]) -> dict[str, MemoryRecord]:
        recs = self._records.get(tenant, {})
        return {i: recs[i] for i in ids if i in recs}

    def _drop(self, tenant: str, record_id: str) -> None:
        self._records.get(tenant, {}).pop(record_id, None)

    def bulk_load(
        self, tenant: str, records: list[tuple[MemoryRecord, np.ndarray]], threads: int = 0
    ) -> None:
        """Insert already-built records (benchmarks, index rebuilds)."""
        check_key("tenant", tenant)
        d = self._records.setdefault(tenant, {})
        for rec, _ in records:
            d[rec.id] = rec
        self._index(tenant).add_many([r.id for r, _ in records], np.stack([v for _, v in records]), threads)

    def get_summary(self, tenant: str, session_id: str) -> RollingSummary | None:
        key = (check_key("tenant", tenant), check_key("session_id", session_id))
        hit = self._summaries.get(key)
        if hit is None or hit[0] <= self.clock():
            self._summaries.pop(key, None)
            return None
        return hit[1].model_copy(deep=True)

    def put_summary(self, tenant: str, summary: RollingSummary) -> None:
        key = (check_key("tenant", tenant), check_key("session_id", summary.session_id))
        self._summaries[key] = (self.clock() + self.lifetimes.hot_s, self._clean(summary))

    def propose_fact(self, tenant: str, fact: Fact) -> Proposal:
        check_key("tenant", tenant)
        p = Proposal(
            f"p-{uuid.uuid4().hex[:16]}",
            tenant,
            Fact.model_validate(redact(fact.model_dump(mode="json"))),
            self.clock() + self.lifetimes.pending_s,
        )
        self._pending[(tenant, p.id)] = p
        return p

    def confirm_fact(self, tenant: str, proposal_id: str, *, confirmed: bool = True) -> str | None:
        p = self._pending.pop((check_key("tenant", tenant), proposal_id), None)
        if p is None or p.expires_at <= self.clock():
            raise ConfirmationError(f"no live proposal {proposal_id!r} for tenant {tenant!r}")
        if not confirmed:
            return None
        return self._write(tenant, Tier.FACT, p.fact.text(), p.fact.model_dump(mode="json"))

    def purge_expired(self) -> int:
        now, n = self.clock(), 0
        for tenant, recs in self._records.items():
            for rid in [i for i, r in recs.items() if r.expires_at <= now]:
                del recs[rid]
                self._index(tenant).remove(rid)
                n += 1
        for k in [k for k, (exp, _) in self._summaries.items() if exp <= now]:
            del self._summaries[k]
        for k in [k for k, p in self._pending.items() if p.expires_at <= now]:
            del self._pending[k]
        return n


class RedisMemory(_Base):
    """Records in Redis (shared by replicas); a local vector index per tenant as a cache.

    TTLs are Redis expiries (PEXPIRE), so expiry also holds across replicas and restarts; the
    local clock only filters records in the instant between their expiry and Redis' sweep."""

    def __init__(self, client: Any, prefix: str = "tao:mem", **kw: Any) -> None:
        super().__init__(**kw)
        self.client, self.prefix = client, prefix
        self._synced: dict[str, float] = {}

    @classmethod
    def from_url(cls, url: str, **kw: Any) -> RedisMemory:
        from router.redis_client import sync_client

        return cls(sync_client(url, socket_timeout=2.0), **kw)

    def _k(self, tenant: str, *parts: str) -> str:
        return "{" + f"{self.prefix}:{tenant}" + "}:" + ":".join(parts)

    @staticmethod
    def _ms(seconds: float) -> int:
        return max(1, int(seconds * 1000))

    def _store(self, rec: MemoryRecord, vec: np.ndarray) -> None:
        t = rec.tenant
        seq = self.client.incr(self._k(t, "seq"))
        pipe = self.client.pipeline(transaction=True)
        key = self._k(t, "rec", rec.id)
        pipe.hset(key, mapping={"json": rec.model_dump_json(), "vec": np.asarray(vec, np.float16).tobytes()})
        pipe.pexpire(key, self._ms(rec.expires_at - self.clock()))
        pipe.zadd(self._k(t, "log"), {rec.id: seq})
        pipe.execute()
        self._synced[t] = max(self._synced.get(t, 0.0), float(seq))

    def _sync(self, tenant: str) -> None:
        last = self._synced.get(tenant, 0.0)
        new = self.client.zrangebyscore(self._k(tenant, "log"), f"({last}", "+inf", withscores=True)
        if not new:
            return
        pipe = self.client.pipeline(transaction=False)
        ids = [i.decode() if isinstance(i, bytes) else i for i, _ in new]
        for rid in ids:
            pipe.hget(self._k(tenant, "rec", rid), "vec")
        vecs = pipe.execute()
        ix = self._index(tenant)
        live = [(rid, v) for rid, v in zip(ids, vecs, strict=True) if v is not None]
        if live:
            ix.add_many(
                [r for r, _ in live],
                np.stack([np.frombuffer(v, np.float16).astype(np.float32) for _, v in live]),
                1,
            )
        self._synced[tenant] = max(s for _, s in new)

    def _fetch(self, tenant: str, ids: list[str]) -> dict[str, MemoryRecord]:
        pipe = self.client.pipeline(transaction=False)
        for rid in ids:
            pipe.hget(self._k(tenant, "rec", rid), "json")
        return {
            rid: MemoryRecord.model_validate_json(raw)
            for rid, raw in zip(ids, pipe.execute(), strict=True)
            if raw
        }

    def _drop(self, tenant: str, record_id: str) -> None:
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self._k(tenant, "rec", record_id))
        pipe.zrem(self._k(tenant, "log"), record_id)
        pipe.execute()

    def get_summary(self, tenant: str, session_id: str) -> RollingSummary | None:
        raw = self.client.get(
            self._k(check_key("tenant", tenant), "sum", check_key("session_id", session_id))
        )
        return None if raw is None else RollingSummary.model_validate_json(raw)

    def put_summary(self, tenant: str, summary: RollingSummary) -> None:
        key = self._k(check_key("tenant", tenant), "sum", check_key("session_id", summary.session_id))
        self.client.set(key, self._clean(summary).model_dump_json(), px=self._ms(self.lifetimes.hot_s))

    def propose_fact(self, tenant: str, fact: Fact) -> Proposal:
        check_key("tenant", tenant)
        clean = Fact.model_validate(redact(fact.model_dump(mode="json")))
        p = Proposal(f"p-{uuid.uuid4().hex[:16]}", tenant, clean, self.clock() + self.lifetimes.pending_s)
        self.client.set(
            self._k(tenant, "pend", p.id), clean.model_dump_json(), px=self._ms(self.lifetimes.pending_s)
        )
        return p

    def confirm_fact(self, tenant: str, proposal_id: str, *, confirmed: bool = True) -> str | None:
        check_key("tenant", tenant)
        check_key("proposal_id", proposal_id)
        raw = self.client.getdel(self._k(tenant, "pend", proposal_id))  # one confirmation, atomically
        if raw is None:
            raise ConfirmationError(f"no live proposal {proposal_id!r} for tenant {tenant!r}")
        if not confirmed:
            return None
        fact = Fact.model_validate_json(raw)
        return self._write(tenant, Tier.FACT, fact.text(), fact.model_dump(mode="json"))

    def purge_expired(self, tenant: str) -> int:
        """Drop log entries whose record Redis has expired (the records themselves expire alone)."""
        ids = [
            i.decode() if isinstance(i, bytes) else i
            for i in self.client.zrange(self._k(tenant, "log"), 0, -1)
        ]
        pipe = self.client.pipeline(transaction=False)
        for rid in ids:
            pipe.exists(self._k(tenant, "rec", rid))
        gone = [rid for rid, ok in zip(ids, pipe.execute(), strict=True) if not ok]
        if gone:
            self.client.zrem(self._k(tenant, "log"), *gone)
            for rid in gone:
                self._index(tenant).remove(rid)
        return len(gone)
