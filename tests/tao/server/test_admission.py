"""Admission control (``tao.server.admission``): a real uvicorn server, concurrent clients past the
bound get a fast 503 + ``Retry-After``, the admitted ones complete, nothing is lost."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from action_helpers import plan
from test_action_routes_run import Served

from tao.contracts import ErrorInfo, ErrorType
from tao.server.admission import Gate, GateConfig, Overloaded
from tao.server.config import ServerConfig
from thought_model.engine.base import PlanResult

SLOW = {"X-Mock-Fault": "slow"}  # every tool call of the request waits slow_s at the mock


def _run_body() -> dict:
    return {
        "request": "查看我的资料",
        "session": {"user_id": "U00000001", "now": "2026-11-15T10:00:00+08:00"},
        "plan": plan(("t1", "get_user_profile", {"user_id": "U00000001"})),
    }


async def _burst(
    url: str, path: str, body: dict, n: int, headers: dict
) -> list[tuple[int, float, httpx.Response]]:
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=httpx.Limits(max_connections=n)) as c:

        async def one() -> tuple[int, float, httpx.Response]:
            t0 = time.perf_counter()
            r = await c.post(path, json=body, headers=headers)
            return r.status_code, time.perf_counter() - t0, r

        return await asyncio.gather(*(one() for _ in range(n)))


@pytest.fixture
def bounded(mock_tools):
    mock_tools.faults(slow_s=1.0)
    s = Served(
        ServerConfig(
            load_model=False,
            tools_url=mock_tools.url,
            max_inflight_runs=4,
            max_inflight_plans=2,
            extra={"test_fault_headers": "1"},  # X-Mock-* reach the tools only with the test flag
        )
    )
    yield s
    s.stop()


def test_runs_past_the_bound_get_fast_503_with_retry_after(bounded) -> None:
    with httpx.Client(base_url=bounded.url, timeout=30) as c:  # warm the runtime (lazy, first request)
        assert c.post("/v1/run", json=_run_body()).json()["status"] == "success"
    results = asyncio.run(_burst(bounded.url, "/v1/run", _run_body(), 12, SLOW))
    ok = [r for r in results if r[0] == 200]
    shed = [r for r in results if r[0] == 503]
    assert len(ok) + len(shed) == 12, [r[0] for r in results]  # 0 lost: all answered, 200 or 503
    assert len(ok) == 4 and len(shed) == 8, [(r[0], round(r[1], 3)) for r in results]
    assert all(r[2].json()["status"] == "success" for r in ok)
    assert all(r[1] >= 0.9 for r in ok)  # they really held their slot through the slow tool call
    for _, seconds, r in shed:
        assert seconds < 0.8, seconds  # shed at once, not queued behind the 1 s runs (loaded VM: slack)
        assert int(r.headers["retry-after"]) >= 1
        err = r.json()["error"]
        assert err["type"] == "overloaded" and err["limit"] == 4 and err["retry_after_s"] > 0
        assert r.json()["trace_id"] and r.headers["x-trace-id"] == r.json()["trace_id"]
    gate = bounded.app.state.admission["/v1/run"]
    assert gate.in_flight == 0  # every slot given back
    assert gate.service_s > 0.3  # the estimate learned from the slow runs: Retry-After follows it
    with httpx.Client(base_url=bounded.url, timeout=30) as c:
        assert c.post("/v1/run", json=_run_body()).json()["status"] == "success"
        assert 'tao_admission_shed_total{endpoint="/v1/run"} 8.0' in c.get("/metrics").text


class _SlowEngine:
    name = "slow-fake"

    async def agenerate_one(self, req) -> PlanResult:
        await asyncio.sleep(1.0)
        return PlanResult(error=ErrorInfo(error_type=ErrorType.BUDGET_EXHAUSTED, message="fake engine"))


def test_plans_past_the_bound_are_shed(bounded) -> None:
    bounded.app.state.plan_engine.engine = _SlowEngine()
    results = asyncio.run(_burst(bounded.url, "/v1/plan", {"request": "查询上个月的订单状态"}, 6, {}))
    codes = sorted(r[0] for r in results)
    assert codes == [503, 503, 503, 503, 504, 504]  # 2 admitted (the fake's 504 after 1 s), 4 shed
    for status, seconds, r in results:
        if status == 503:
            assert seconds < 0.5 and r.json()["error"]["type"] == "overloaded" and r.headers["retry-after"]
    assert bounded.app.state.admission["/v1/plan"].in_flight == 0


def test_unbounded_gate_only_counts() -> None:
    async def go() -> None:
        g = Gate(GateConfig(0))
        for _ in range(100):
            await g.acquire()
        assert g.in_flight == 100

    asyncio.run(go())


def test_gate_queue_hands_slots_over_in_order_and_sheds_after_the_wait() -> None:
    async def go() -> None:
        g = Gate(GateConfig(1, max_queue=1, queue_wait_s=0.5))
        await g.acquire()
        waiter = asyncio.create_task(g.acquire())
        await asyncio.sleep(0.01)
        with pytest.raises(Overloaded) as exc:  # the queue is full: shed at once
            await g.acquire()
        assert exc.value.retry_after_s > 0
        g.release(0.2)  # the slot goes straight to the waiter
        await asyncio.wait_for(waiter, 1)
        assert g.in_flight == 1
        t0 = time.perf_counter()
        with pytest.raises(Overloaded):  # nobody releases: shed after queue_wait_s
            await g.acquire()
        assert 0.4 < time.perf_counter() - t0 < 1.0
        g.release(None)
        assert g.in_flight == 0
        await g.acquire()  # usable again
        assert g.in_flight == 1

    asyncio.run(go())


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError):
        GateConfig(-1)


def test_bounds_from_flags_and_environment(monkeypatch) -> None:
    from tao.server.cli import _parser

    args = _parser().parse_args(["--max-inflight-runs", "3", "--max-inflight-plans", "0"])
    assert (args.max_inflight_runs, args.max_inflight_plans) == (3, 0)
    monkeypatch.setenv("TAO_MAX_INFLIGHT_RUNS", "7")
    monkeypatch.setenv("TAO_ADMISSION_WAIT_S", "0.25")
    cfg = ServerConfig.from_env()
    assert (cfg.max_inflight_runs, cfg.max_inflight_plans, cfg.admission_queue_wait_s) == (7, 32, 0.25)
    cfg = ServerConfig.from_env(max_inflight_runs=args.max_inflight_runs)  # the flag wins
    assert cfg.max_inflight_runs == 3


def test_a_full_gate_sheds_in_front_of_the_app(bounded, monkeypatch) -> None:
    """While the gate is full a run is refused by ``ShedFront``, before the core middleware, the
    router and the body: the route never runs (its body is not even valid JSON here), the reply
    is the typed 503 with the request's own X-Request-ID, the traceparent's trace id and
    Retry-After, and the shed and request counters count it."""
    gate = bounded.app.state.admission["/v1/run"]
    monkeypatch.setattr(gate, "in_flight", gate.config.limit)  # every slot taken
    tp = "00-" + "ab" * 16 + "-" + "cd" * 8 + "-01"
    with httpx.Client(base_url=bounded.url, timeout=30) as c:
        before = c.get("/metrics").text
        r = c.post(
            "/v1/run",
            content=b"{not json",
            headers={"content-type": "application/json", "x-request-id": "rid-1", "traceparent": tp},
        )
        assert r.status_code == 503, r.text
        assert r.headers["retry-after"] == "1" and r.headers["x-request-id"] == "rid-1"
        body = r.json()
        assert body["trace_id"] == "ab" * 16 == r.headers["x-trace-id"]
        assert body["error"]["type"] == "overloaded" and body["error"]["in_flight"] == 4
        r2 = c.post("/v1/run", content=b"{}", headers={"content-type": "text/plain"})  # no 415 first
        assert r2.status_code == 503 and len(r2.json()["trace_id"]) == 32
        assert r2.headers["x-trace-id"] == r2.json()["trace_id"] and r2.headers["x-request-id"]
        after = c.get("/metrics").text
        monkeypatch.setattr(gate, "in_flight", 0)
        assert (
            c.post("/v1/run", content=b"{not json", headers={"content-type": "application/json"}).status_code
            == 400
        )

    def count(text: str, line: str) -> float:
        return next((float(x.rsplit(" ", 1)[1]) for x in text.splitlines() if x.startswith(line)), 0.0)

    shed = 'tao_admission_shed_total{endpoint="/v1/run"}'
    reqs = 'tao_http_requests_total{endpoint="/v1/run",method="POST",status="503"}'
    assert count(after, shed) - count(before, shed) == 2
    assert count(after, reqs) - count(before, reqs) == 2
