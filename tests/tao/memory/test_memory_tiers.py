"""tao.memory: each tier's write and expiry rules, redaction, explicit-confirmation facts and
tenant isolation — in-process and on a real Redis (two replicas sharing it)."""

from __future__ import annotations

import time

import pytest

from tao.memory import (
    ConfirmationError,
    Entity,
    Episode,
    Fact,
    InProcessMemory,
    Lifetimes,
    MemoryKeyError,
    RedisMemory,
    RollingSummary,
    Tier,
)


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


SHORT = Lifetimes(hot_s=0.4, warm_s=0.6, cold_s=0.8, pending_s=0.4)


@pytest.fixture(params=["inprocess", "redis"])
def mem(request):
    """(memory, advance(seconds)): a fake clock in-process; real time (Redis TTLs) on Redis."""
    if request.param == "inprocess":
        clock = Clock()
        m = InProcessMemory(lifetimes=SHORT, clock=clock)

        def advance(s: float) -> None:
            clock.t += s

        return m, advance
    import redis

    server = request.getfixturevalue("redis_server")
    client = redis.Redis.from_url(server.url)
    prefix = f"t{time.monotonic_ns()}"
    return RedisMemory(client, prefix=prefix, lifetimes=SHORT), time.sleep


def ep(text: str, outcome: str = "done") -> Episode:
    return Episode(
        input_summary=text, decisions=["get_order_status"], outcome=outcome, tools=["get_order_status"]
    )


def test_short_term_summary_write_replace_expire(mem):
    m, advance = mem
    s = RollingSummary(session_id="s1", turns=3, entities=[Entity(key="city", value="上海", turn=3)])
    m.put_summary("acme", s)
    got = m.get_summary("acme", "s1")
    assert got is not None and got.turns == 3 and got.entities[0].value == "上海"
    m.put_summary("acme", s.model_copy(update={"turns": 4}))  # one summary per session, replaced
    assert m.get_summary("acme", "s1").turns == 4
    assert m.get_summary("acme", "other-session") is None
    advance(0.5)
    assert m.get_summary("acme", "s1") is None  # hot TTL


def test_episode_retrieval_threshold_topk_and_expiry(mem):
    m, advance = mem
    a = m.add_episode("acme", ep("查询订单202603251045338102的物流状态", "已发货"))
    m.add_episode("acme", ep("明天北京天气怎么样", "晴"))
    m.add_episode("acme", ep("check the weather in Paris this weekend", "rain"))
    hits = m.search("acme", "帮我查下订单202603251045338102的物流")
    assert [h.record.id for h in hits] == [a] and hits[0].score >= 0.6
    assert hits[0].record.tier is Tier.EPISODIC and "已发货" in hits[0].record.summary()
    assert m.search("acme", "book a meeting room for six") == []  # nothing above 0.6
    assert len(m.search("acme", "weather", min_score=-1.0, k=2)) == 2  # top 2 at most
    advance(0.7)  # warm TTL
    assert m.search("acme", "帮我查下订单202603251045338102的物流", min_score=-1.0) == []


def test_order_is_deterministic(mem):
    m, _ = mem
    ids = sorted(m.add_episode("acme", ep("查询订单 A1 的状态")) for _ in range(3))  # identical vectors
    hits = m.search("acme", "查询订单 A1 的状态", k=3)
    assert [h.record.id for h in hits] == ids  # equal scores: by id


def test_redaction_before_storage(mem):
    m, _ = mem
    m.add_episode("acme", ep("给 li.na@corp.cn 发邮件，电话 13812345678", "sent"))
    rec = m.search("acme", "给 li.na@corp.cn 发邮件，电话 13812345678", min_score=-1.0)[0].record
    blob = rec.model_dump_json()
    assert "li.na@corp.cn" not in blob and "13812345678" not in blob and "[REDACTED:" in blob
    m.put_summary(
        "acme", RollingSummary(session_id="s1", entities=[Entity(key="to", value="li.na@corp.cn", turn=1)])
    )
    assert "li.na@corp.cn" not in m.get_summary("acme", "s1").model_dump_json()
    p = m.propose_fact("acme", Fact(key="contact", value="li.na@corp.cn"))
    assert "li.na@corp.cn" not in p.fact.value


def test_facts_need_explicit_confirmation(mem):
    m, advance = mem
    q = "preferred city 上海"
    p = m.propose_fact("acme", Fact(key="preferred_city", value="上海", kind="preference"))
    assert m.search("acme", q, tiers=[Tier.FACT], min_score=-1.0) == []  # not written yet
    with pytest.raises(ConfirmationError):
        m.confirm_fact("other", p.id)  # another tenant cannot confirm it
    rid = m.confirm_fact("acme", p.id)
    hits = m.search("acme", q, tiers=[Tier.FACT])
    assert [h.record.id for h in hits] == [rid] and hits[0].record.payload["value"] == "上海"
    with pytest.raises(ConfirmationError):
        m.confirm_fact("acme", p.id)  # one confirmation only
    p2 = m.propose_fact("acme", Fact(key="preferred_airline", value="MU"))
    assert m.confirm_fact("acme", p2.id, confirmed=False) is None  # declined: nothing written
    assert all(
        h.record.payload.get("key") != "preferred_airline"
        for h in m.search("acme", "preferred airline MU", min_score=-1.0, k=5)
    )
    p3 = m.propose_fact("acme", Fact(key="home", value="杭州"))
    advance(0.5)  # pending TTL
    with pytest.raises(ConfirmationError):
        m.confirm_fact("acme", p3.id)
    advance(0.5)  # cold TTL (0.8 s) of the confirmed fact has passed too
    assert m.search("acme", q, tiers=[Tier.FACT], min_score=-1.0) == []


def test_tenants_never_see_each_other(mem):
    m, _ = mem
    text = "查询订单202611031045227781的状态"
    a = m.add_episode("tenant-a", ep(text, "A's outcome"))
    b = m.add_episode("tenant-b", ep(text, "B's outcome"))
    ha = m.search("tenant-a", text, min_score=-1.0, k=10)
    hb = m.search("tenant-b", text, min_score=-1.0, k=10)
    assert [h.record.id for h in ha] == [a] and [h.record.id for h in hb] == [b]
    assert m.search("tenant-c", text, min_score=-1.0) == []
    m.put_summary("tenant-a", RollingSummary(session_id="s", turns=7))
    assert m.get_summary("tenant-b", "s") is None
    m.forget("tenant-b", a)  # another tenant's id: no effect on tenant-a
    assert [h.record.id for h in m.search("tenant-a", text, min_score=-1.0)] == [a]


def test_bad_keys_refused(mem):
    m, _ = mem
    for bad in ("", "a b", "x" * 200, "a}{b", "t/1"):
        with pytest.raises(MemoryKeyError):
            m.add_episode(bad, ep("x"))
        with pytest.raises(MemoryKeyError):
            m.search(bad, "x")


@pytest.mark.slow
def test_two_redis_replicas_share_records_not_tenants(redis_server):
    import redis

    prefix = f"r{time.monotonic_ns()}"
    r1 = RedisMemory(redis.Redis.from_url(redis_server.url), prefix=prefix)
    r2 = RedisMemory(redis.Redis.from_url(redis_server.url), prefix=prefix)
    text = "what's the status of order 202605120930114421"
    a = r1.add_episode("tenant-a", ep(text))
    assert [h.record.id for h in r2.search("tenant-a", text)] == [a]  # replica 2 syncs from Redis
    assert r2.search("tenant-b", text, min_score=-1.0) == []
    r2.forget("tenant-a", a)
    assert r1.search("tenant-a", text, min_score=-1.0) == []  # gone for replica 1 too
    # keys carry one hash tag per tenant (Redis Cluster: one slot per tenant)
    b = r1.add_episode("tenant-b", ep(text))
    keys = {k.decode() for k in r1.client.keys(f"{{{prefix}:tenant-b}}:*")}
    assert f"{{{prefix}:tenant-b}}:rec:{b}" in keys and all(
        k.startswith(f"{{{prefix}:tenant-b}}") for k in keys
    )
