"""Fixtures of the router tests (the shared real `redis_server` fixture is in tests/conftest.py)."""

from __future__ import annotations

import itertools

import pytest

_ids = itertools.count()


@pytest.fixture
def tenant() -> str:
    """A fresh tenant name, so each test gets its own Redis keys."""
    return f"t{next(_ids)}"
