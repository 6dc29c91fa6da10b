"""Circuit breakers shared through a real Redis: two boards are two replicas. Failures add up
across them, an open breaker refuses on both, exactly one replica probes when half-open, and a
Redis outage falls back to each replica's own breaker without raising."""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest
import redis
from action_helpers import make_executor

from router.metrics import REGISTRY
from router.testing.redis_server import RedisServer
from tao.action.breaker import BreakerConfig, BreakerState
from tao.action.breaker_redis import RedisBreakerBoard, SharedBreakerConfig, breaker_keys
from tao.action.executor import ExecContext
from tao.contracts import ErrorType

_ids = itertools.count()


@pytest.fixture
def tool() -> str:
    return f"tool:{next(_ids)}{{x}}"  # separators and braces in the name are encoded away


def _boards(url: str, cfg: BreakerConfig, n: int = 2) -> list[RedisBreakerBoard]:
    return [RedisBreakerBoard.from_url(url, cfg) for _ in range(n)]


async def _fail(board: RedisBreakerBoard, tool: str) -> None:
    b = board.get(tool)
    p = await b.aallow()
    assert p.ok and p.backend == "redis"
    await b.afailure(p)


async def test_failures_add_up_across_replicas_and_open_both(redis_server, tool) -> None:
    a, b = _boards(redis_server.url, BreakerConfig(failure_threshold=4, reset_timeout_s=30))
    for board in (a, b, a):
        await _fail(board, tool)
    assert (await b.get(tool).aallow()).ok  # 3 < 4: still closed for both
    await _fail(b, tool)  # the 4th failure, on the other replica
    for board in (a, b):
        p = await board.get(tool).aallow()
        assert not p.ok and 29 < p.retry_after_s <= 30
    # a success anywhere resets the count (failures must be consecutive, fleet-wide)
    other = tool + "-2"
    await _fail(a, other), await _fail(a, other)
    ok = await b.get(other).aallow()
    await b.get(other).asuccess(ok)
    client = redis.Redis.from_url(redis_server.url)
    assert not client.exists(breaker_keys(other)[0])
    client.close()
    await a.aclose(), await b.aclose()


async def test_one_replica_probes_when_half_open(redis_server, tool) -> None:
    boards = _boards(redis_server.url, BreakerConfig(failure_threshold=2, reset_timeout_s=0.3), 3)
    await _fail(boards[0], tool), await _fail(boards[1], tool)
    await asyncio.sleep(0.35)
    permits = await asyncio.gather(*(bd.get(tool).aallow() for bd in boards))
    probes = [p for p in permits if p.ok]
    assert len(probes) == 1 and probes[0].probe  # exactly one replica got the probe slot
    prober = boards[permits.index(probes[0])]
    await prober.get(tool).afailure(probes[0])  # failed probe: open again, for everyone
    assert not any([(await bd.get(tool).aallow()).ok for bd in boards])
    await asyncio.sleep(0.35)
    p = await boards[2].get(tool).aallow()
    assert p.ok and p.probe  # the failed probe freed its slot: the next half-open period probes again
    await boards[2].get(tool).asuccess(p)  # the probe succeeded: closed for every replica
    for bd in boards:
        q = await bd.get(tool).aallow()
        assert q.ok and not q.probe and q.fails == 0
    for bd in boards:
        await bd.aclose()


async def test_release_frees_the_probe_slot(redis_server, tool) -> None:
    a, b = _boards(redis_server.url, BreakerConfig(failure_threshold=1, reset_timeout_s=0.2))
    await _fail(a, tool)
    await asyncio.sleep(0.25)
    p = await a.get(tool).aallow()
    assert p.probe and not (await b.get(tool).aallow()).ok
    await a.get(tool).arelease(p)  # never called (no time left): someone else may probe
    assert (await b.get(tool).aallow()).probe
    await a.aclose(), await b.aclose()


async def test_failures_further_apart_than_the_window_never_add_up(redis_server, tool) -> None:
    (a,) = _boards(redis_server.url, BreakerConfig(failure_threshold=2, reset_timeout_s=30, window_s=0.2), 1)
    await _fail(a, tool)
    await asyncio.sleep(0.3)
    await _fail(a, tool)
    assert (await a.get(tool).aallow()).ok  # the first failure was forgotten
    await _fail(a, tool)
    assert not (await a.get(tool).aallow()).ok
    await a.aclose()


def test_keys_are_length_prefixed_and_one_hash_tag() -> None:
    s1, p1 = breaker_keys("a:b")
    s2, _ = breaker_keys("a")
    assert s1 != s2 and s1.startswith("tao:brk:v1:{3.") and s1.endswith("}:state")
    assert s1[: s1.index("}")] == p1[: p1.index("}")]  # state and probe on one slot


def _gauge() -> float | None:
    return REGISTRY.get_sample_value("tao_shared_state_degraded", {"piece": "breaker"})


@pytest.mark.timeout(60)
async def test_redis_down_falls_back_to_the_replica_breaker(tool, caplog) -> None:
    server = RedisServer().start()
    try:
        cfg = BreakerConfig(failure_threshold=2, reset_timeout_s=30)
        board = RedisBreakerBoard.from_url(
            server.url, cfg, SharedBreakerConfig(reconnect_interval_s=0.2, socket_timeout_s=0.2)
        )
        await _fail(board, tool)
        server.stop()
        with caplog.at_level(logging.WARNING, logger="tao.breaker"):
            p = await board.get(tool).aallow()
        assert p.ok and p.backend == "local" and board.degraded and _gauge() == 1.0
        assert "shared breaker store unreachable" in caplog.text
        # the local breaker saw the failure made through Redis: one more opens it
        await board.get(tool).afailure(p)
        assert board.get(tool).state is BreakerState.OPEN
        assert not (await board.get(tool).aallow()).ok
        server.start()  # an empty Redis: the shared breaker is closed again
        await asyncio.sleep(0.25)
        q = await board.get(tool).aallow()
        assert q.ok and q.backend == "redis" and not board.degraded and _gauge() == 0.0
        await board.aclose()
    finally:
        server.close()


async def test_executors_on_one_redis_share_a_tool_breaker(mock_tools, redis_server) -> None:
    cfg = BreakerConfig(failure_threshold=3, reset_timeout_s=30)
    a, b = (
        make_executor(mock_tools.url, max_retries=0, use_fallback=False, breaker=cfg, breaker_redis_url=u)
        for u in (redis_server.url, redis_server.url)
    )
    client = redis.Redis.from_url(redis_server.url)
    client.delete(*breaker_keys("get_logistics"))
    oid = next(iter(mock_tools.data.orders))
    mock_tools.faults(error_rate=1.0, tools=["get_logistics"])
    for i in range(3):
        r = await a.execute("get_logistics", {"order_id": oid}, ExecContext(step_id=f"t{i}"))
        assert r.error_info is not None and r.error_info.error_type is ErrorType.TOOL_TRANSIENT
    before = mock_tools.stats()["calls"]["get_logistics"]
    refused = await b.execute("get_logistics", {"order_id": oid}, ExecContext())  # the other replica
    assert refused.error_info is not None and refused.error_info.error_type is ErrorType.TOOL_CIRCUIT_OPEN
    assert refused.attempts == 0 and mock_tools.stats()["calls"]["get_logistics"] == before
    mock_tools.faults()
    client.delete(*breaker_keys("get_logistics"))
    client.close()
    await a.aclose(), await b.aclose()
