"""The Redis idempotency store right after a Redis restart (AOF, data kept): every pooled
connection is dead, and the first command on each used to fail with ConnectionError — the chaos
run lost one recorded reply that way (written just after the restart, silently dropped)."""

from __future__ import annotations

import asyncio

import pytest

from router.testing.redis_server import RedisServer
from tao.action.breaker import BreakerConfig
from tao.action.breaker_redis import RedisBreakerBoard
from tao.action.idempotency_redis import RedisIdempotency


@pytest.mark.timeout(60)
async def test_first_commands_after_a_restart_reach_redis() -> None:
    server = RedisServer(persistent=True).start()
    try:
        store = RedisIdempotency.from_url(server.url)
        board = RedisBreakerBoard.from_url(server.url, BreakerConfig())
        await asyncio.gather(*(store.put(f"k{i}", b"v", 60_000) for i in range(6)))  # 6 pooled connections
        await asyncio.gather(*(board.get(f"tool{i}").aallow() for i in range(4)))
        server.kill()
        server.start()  # same port, same append-only file
        for i in range(6):  # each would have met a dead pooled connection
            assert await store.get(f"k{i}") == b"v"
        await store.put("after", b"1", 60_000)
        assert await store.get("after") == b"1"
        p = await board.get("tool0").aallow()
        assert p.ok and p.backend == "redis" and not board.degraded
        await store.aclose(), await board.aclose()
    finally:
        server.close()
