"""`tao serve` with no flags but a port starts on the embedded default checkpoint and plans."""

from __future__ import annotations

import httpx
import pytest
from serve_helpers import ROOT, ServeProcess, wait_http

from tao.server.config import DEFAULT_CHECKPOINT


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_tao_serve_default_checkpoint_answers_plan(tmp_path):
    if not (DEFAULT_CHECKPOINT / "config.json").is_file():
        pytest.skip(f"default checkpoint not present at {DEFAULT_CHECKPOINT.relative_to(ROOT)}")
    srv = ServeProcess(
        [], tmp_path / "serve.log", env={"TAO_API_KEY": "", "TAO_ENGINE": "", "TAO_CHECKPOINT": ""}
    )
    try:
        wait_http(srv.base + "/readyz", 180, srv.proc)
        r = httpx.post(
            srv.base + "/v1/plan",
            timeout=60,
            json={"request": "查询订单 123456789012345678 的状态", "session": {"user_id": "U12345678"}},
        )
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["plan"] is None) != (body["insufficient"] is None)
        if body["plan"]:
            assert body["plan"]["thought_id"] and body["order"]
    finally:
        srv.stop()
