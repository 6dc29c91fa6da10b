"""`tao serve` on the default checkpoint (the composer on, continuous batching, grammar warm-up):
/readyz says ready only after the warm-up, and 16 concurrent /v1/plan requests, decoded in one
running batch, get exactly the plans each gets alone."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from serve_helpers import ROOT, ServeProcess

from tao.server.config import DEFAULT_CHECKPOINT

pytestmark = pytest.mark.slow

TEXTS = [
    "查询订单 123456789012345678 的状态",
    "What's the weather in 上海 tomorrow?",
    "发票 INV2024000123 开好了吗",
    "List my calendar events for today",
    "明天北京天气怎么样",
    "Find a meeting room for 6 people tomorrow at 15:00 for an hour",
    "查询上个月的订单状态",
    "What is the status of my expense claim EXP20240001?",
]
SESSION = {"user_id": "U12345678", "now": "2026-03-05T10:00:00+08:00", "timezone": "Asia/Shanghai"}


def _canon(body: dict) -> dict:
    plan = body["plan"]
    if plan is not None:
        plan = {k: v for k, v in plan.items() if k not in ("thought_id", "created_at")}
    return {"plan": plan, "insufficient": body["insufficient"]}


@pytest.mark.timeout(900)
def test_concurrent_plans_equal_solo_plans_after_warmup(tmp_path):
    if not (DEFAULT_CHECKPOINT / "config.json").is_file():
        pytest.skip(f"default checkpoint not present at {DEFAULT_CHECKPOINT.relative_to(ROOT)}")
    srv = ServeProcess(
        ["--engine", "cpu"],
        tmp_path / "serve.log",
        env={"TAO_API_KEY": "", "TAO_ENGINE": "", "TAO_CHECKPOINT": "", "TAO_GRAMMAR_WARMUP": "1"},
    )
    try:
        states: list[str] = []
        end = time.monotonic() + 600
        while time.monotonic() < end:
            assert srv.proc.poll() is None, srv.log_text()[-3000:]
            try:
                r = httpx.get(srv.base + "/readyz", timeout=2)
            except httpx.HTTPError:
                time.sleep(0.2)
                continue
            if r.status_code == 200:
                break
            states.append(r.json()["checks"]["plan_engine"])
            time.sleep(0.1)
        else:
            pytest.fail("server not ready:\n" + srv.log_text()[-3000:])
        assert set(states) <= {"loading", "warming up grammars"}, states
        assert "warming up grammars" in states  # readiness waited for the warm-up

        solo = {}
        for t in TEXTS:
            r = httpx.post(srv.base + "/v1/plan", timeout=120, json={"request": t, "session": SESSION})
            assert r.status_code == 200, r.text
            solo[t] = _canon(r.json())

        async def burst() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=srv.base, timeout=180) as client:
                return await asyncio.gather(
                    *(client.post("/v1/plan", json={"request": t, "session": SESSION}) for t in TEXTS * 2)
                )

        rs = asyncio.run(burst())
        assert [r.status_code for r in rs] == [200] * len(rs), [r.text for r in rs if r.status_code != 200]
        for t, r in zip(TEXTS * 2, rs, strict=True):
            assert _canon(r.json()) == solo[t], t
    finally:
        srv.stop()
