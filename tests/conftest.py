"""Shared pytest fixtures. External test data comes from the one resolver, estimator.data.paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from estimator.data.paths import TestDataMissing
from estimator.data.paths import data_dir as _resolve_data_dir

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The test data directory ($TAO_TEST_DATA, ../shared/data or .testdata/): a failure, never a skip."""
    try:
        return _resolve_data_dir()
    except TestDataMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A random tiny Llama (hidden 128, 2 layers) + trained byte-level BPE tokenizer, HF format."""
    from thought_model.engine.testing import build_tiny_checkpoint

    return build_tiny_checkpoint(tmp_path_factory.mktemp("tiny_ckpt"))


@pytest.fixture(scope="session")
def tiny_int4_checkpoint(tiny_checkpoint, tmp_path_factory) -> Path:
    """The W4A16 (compressed-tensors pack-quantized, group 64) export of ``tiny_checkpoint``."""
    from thought_model import int4

    dst = tmp_path_factory.mktemp("tiny_int4") / "w4a16"
    assert int4.main(["export", str(tiny_checkpoint), str(dst), "--group-size", "64"]) == 0
    return dst


@pytest.fixture(scope="session")
def redis_server():
    """One throwaway redis-server on a free loopback port for the whole test session.

    Tests that stop or restart Redis start their own ``RedisServer`` instead."""
    from router.testing.redis_server import RedisServer, RedisServerMissing

    server = RedisServer()
    try:
        server.start()
    except RedisServerMissing as exc:
        pytest.fail(f"{exc} (CI installs it via `make system-deps`)")
    yield server
    server.close()
