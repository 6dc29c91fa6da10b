"""Fixtures of the router tests: one real redis-server per session (fails if not installed)."""
from __future__ import annotations

import itertools

import pytest

from router.testing.redis_server import RedisServer, RedisServerMissing

_ids = itertools.count()


@pytest.fixture(scope="session")
def redis_server():
    server = RedisServer()
    try:
        server.start()
    except RedisServerMissing as exc:
        pytest.fail(f"{exc} (CI installs it via `make system-deps`)")
    yield server
    server.close()


@pytest.fixture
def tenant() -> str:
    """A fresh tenant name, so each test gets its own Redis keys."""
    return f"t{next(_ids)}"
