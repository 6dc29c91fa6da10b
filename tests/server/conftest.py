"""Fixtures for the HTTP tests (real servers on 127.0.0.1)."""

from __future__ import annotations

import pytest
from serve_helpers import ServeProcess, wait_http


@pytest.fixture(scope="session")
def plan_server(tiny_checkpoint, tmp_path_factory):
    """`tao serve` on the tiny random checkpoint (generic codec), CPU engine, waited until ready."""
    srv = ServeProcess(
        ["--checkpoint", str(tiny_checkpoint), "--engine", "cpu", "--codec", "generic"],
        tmp_path_factory.mktemp("serve") / "serve.log",
        env={"TAO_API_KEY": ""},
    )
    try:
        wait_http(srv.base + "/readyz", 120, srv.proc)
    except Exception:
        srv.stop()
        raise RuntimeError("server did not become ready:\n" + srv.log_text()[-3000:]) from None
    yield srv
    srv.stop()
