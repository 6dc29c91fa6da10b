"""Session snapshots: in-process and real Redis stores, TTL, tenant namespaces, between turns."""

from __future__ import annotations

import time

import pytest
import redis
from action_helpers import demo_session, make_executor, make_loop, plan

from tao.contracts import SessionState
from tao.loop.session import MemorySessionStore, RedisSessionStore, SessionKeyError


@pytest.fixture
def redis_url(redis_server) -> str:
    return redis_server.url


class Clock:
    t = 0.0

    def __call__(self) -> float:
        return self.t


def test_memory_store_ttl_and_tenants() -> None:
    clock = Clock()
    store = MemorySessionStore(ttl_s=10, clock=clock)
    store.put(SessionState(session_id="s1", tenant="acme", user_id="U00000001"))
    store.put(SessionState(session_id="s1", tenant="globex", user_id="U00000002"))
    assert store.get("acme", "s1").user_id == "U00000001" and store.get("globex", "s1").user_id == "U00000002"
    assert store.get("initech", "s1") is None
    clock.t = 9.9
    assert store.get("acme", "s1") is not None
    clock.t = 10.0
    assert store.get("acme", "s1") is None
    with pytest.raises(SessionKeyError):
        store.get("acme", "../etc")
    with pytest.raises(SessionKeyError):
        store.put(SessionState(tenant="acme"))


@pytest.mark.slow
def test_redis_store_ttl_and_namespaces(redis_url) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisSessionStore(client, ttl_s=30, prefix="tao-test:session")
    s = SessionState(session_id="s1", tenant="acme", user_id="U00000001", memory={"turns": 2})
    store.put(s)
    store.put(SessionState(session_id="s1", tenant="globex", user_id="U00000002"))
    assert store.get("acme", "s1") == s and store.get("globex", "s1").user_id == "U00000002"
    assert sorted(k.decode() for k in client.keys("tao-test:session:*")) == [
        "tao-test:session:4:acme:s1",
        "tao-test:session:6:globex:s1",
    ]
    assert 29_000 < client.pttl("tao-test:session:4:acme:s1") <= 30_000
    store.put(SessionState(session_id="short", tenant="acme"), ttl_s=0.2)
    assert store.get("acme", "short") is not None
    time.sleep(0.35)
    assert store.get("acme", "short") is None
    store.delete("acme", "s1")
    assert store.get("acme", "s1") is None and store.get("globex", "s1") is not None
    with pytest.raises(SessionKeyError):
        store.put(SessionState(session_id="a b", tenant="acme"))
    client.close()


@pytest.mark.slow
def test_redis_keys_are_unambiguous_and_snapshots_owned(redis_url) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisSessionStore(client, ttl_s=30, prefix="tao-test:amb")
    store.put(SessionState(session_id="prod:42", tenant="acme", user_id="U00000003", memory={"m": "acme"}))
    assert store.key("acme:prod", "42") != store.key("acme", "prod:42")
    assert store.get("acme:prod", "42") is None  # tenant `acme:prod`, session `42`: nothing
    assert store.get("acme", "prod:42").user_id == "U00000003"
    store.put(SessionState(session_id="42", tenant="acme:prod", user_id="U00000004"))
    assert store.get("acme", "prod:42").user_id == "U00000003"  # not overwritten
    assert store.get("acme:prod", "42").user_id == "U00000004"
    # any printable tenant is a key part (spaces, unicode), never a control character
    store.put(SessionState(session_id="s", tenant="Ä c:m/e"))
    assert store.get("Ä c:m/e", "s") is not None and store.get("Ä c:m", "e:s") is None
    with pytest.raises(SessionKeyError):
        store.get("acme", "s\x00")
    with pytest.raises(SessionKeyError):
        store.get("ac\nme", "s")
    # a snapshot stored under one tenant's key but naming another tenant is refused on load
    client.set(
        store.key("globex", "s9"),
        SessionState(session_id="s9", tenant="acme", user_id="U00000003").model_dump_json(),
    )
    assert store.get("globex", "s9") is None
    client.set(store.key("globex", "s8"), SessionState(session_id="other", tenant="globex").model_dump_json())
    assert store.get("globex", "s8") is None
    mem = MemorySessionStore()
    mem.put(SessionState(session_id="prod:42", tenant="acme"))
    assert mem.get("acme:prod", "42") is None and mem.get("acme", "prod:42") is not None
    client.close()


@pytest.mark.slow
async def test_loop_snapshots_between_turns(mock_tools, redis_url) -> None:
    store = RedisSessionStore.from_url(redis_url, prefix="tao-test:loop")
    ex = make_executor(mock_tools.url)
    p = plan(("t1", "get_weather", {"city": "北京", "date": "@tomorrow"}))
    for turn in (1, 2):
        loop, _ = make_loop(ex, p, session_store=store)
        rep = await loop.run("明天北京天气", demo_session(session_id="chat-9", tenant="acme"))
        snap = store.get("acme", "chat-9")
        assert snap.memory["turns"] == turn and snap.memory["last_thought_id"] == rep.thought_id
        assert snap.memory["last_answer"] == rep.answer and snap.user_id == "U00000001"
    # a later turn without the user id gets it back from the snapshot
    loop, _ = make_loop(ex, p, session_store=store)
    await loop.run("again", SessionState(session_id="chat-9", tenant="acme"))
    snap = store.get("acme", "chat-9")
    assert snap.user_id == "U00000001" and snap.memory["turns"] == 3
    assert store.get("other", "chat-9") is None
    await ex.aclose()
