"""Shared idempotency records (tao.action.dedup): two executors ("replicas") on one real Redis
against the mock service with dedup off, a dead owner's in-flight record, Redis down, the
in-process backend, and the key reaching Python tools. Side effects are counted by the mock."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from action_helpers import make_executor
from pydantic import BaseModel

from router.testing.redis_server import RedisServer
from tao.action.dedup import DedupConfig
from tao.action.executor import ExecContext, ExecutorConfig, ToolExecutor
from tao.action.idempotency import MemoryIdempotency, idempotency_key, record_key
from tao.action.idempotency_redis import RedisIdempotency
from tao.action.registry import CURRENT_CALL, ToolRegistry
from tao.contracts import ErrorType, Permission
from tao.domains.reference.registry import reference_tools

EXPENSE = {"amount": 12.5, "category": "meal", "date": "2026-11-14", "description": "lunch"}


@pytest.fixture
def no_dedup_mock(mock_tools):
    mock_tools.svc.state.dedup = False
    try:
        yield mock_tools
    finally:
        mock_tools.svc.state.dedup = True


def _replica(url: str, redis_url: str, **dedup) -> ToolExecutor:
    reg = ToolRegistry()
    reg.register_http(reference_tools(), url)
    return ToolExecutor(
        reg,
        ExecutorConfig(timeout_override_s=3.0, dedup=DedupConfig(**dedup)),
        idempotency=RedisIdempotency.from_url(redis_url),
    )


async def test_two_replicas_on_one_redis_run_a_step_once(no_dedup_mock, redis_server) -> None:
    a, b = _replica(no_dedup_mock.url, redis_server.url), _replica(no_dedup_mock.url, redis_server.url)
    no_dedup_mock.faults(slow_rate=1.0, slow_s=0.4, tools=["submit_expense"])
    ctx = ExecContext(thought_id="th-shared-1", step_id="t1", tenant="acme")
    results = await asyncio.gather(
        *[(a if i % 2 else b).execute("submit_expense", EXPENSE, ctx) for i in range(6)]
    )
    assert all(r.error_info is None for r in results), [r.error_info for r in results]
    assert len({r.parsed_data["expense_id"] for r in results}) == 1  # one effect, one reply for all
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    assert no_dedup_mock.stats()["calls"]["submit_expense"] == 1
    assert sum(r.attempts for r in results) == 1  # the other five are recorded replies
    # the same step of another tenant is another key: it runs
    other = await a.execute(
        "submit_expense", EXPENSE, ExecContext(thought_id="th-shared-1", step_id="t1", tenant="globex")
    )
    assert other.error_info is None and other.idempotency_key != results[0].idempotency_key
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 2}
    await a.aclose()
    await b.aclose()


async def test_dead_owner_in_flight_record_is_never_re_executed(no_dedup_mock, redis_server) -> None:
    ex = _replica(no_dedup_mock.url, redis_server.url, lock_ttl_s=0.5)
    ctx = ExecContext(thought_id="th-dead-1", step_id="t1", tenant="acme")
    key = idempotency_key("th-dead-1", "t1", "submit_expense", EXPENSE, "acme")
    # what a replica killed mid-call leaves: its in-flight record and a lock that runs out
    be = ex.idempotency
    assert await be.acquire(record_key("lock", key), "dead-owner", 500)
    await be.put(record_key("inflight", key), orjson.dumps({"owner": "dead-owner"}), 60_000)
    t0 = asyncio.get_running_loop().time()
    res = await ex.execute("submit_expense", EXPENSE, ctx)
    waited = asyncio.get_running_loop().time() - t0
    assert res.error_info is not None and res.error_info.error_type is ErrorType.LOW_CONFIDENCE
    assert "outcome unknown" in res.error_info.message and 0.3 < waited < 3.0
    assert no_dedup_mock.stats()["calls"] == {}  # nothing was sent
    again = await ex.execute("submit_expense", EXPENSE, ctx)  # and never later either
    assert again.error_info is not None and again.error_info.error_type is ErrorType.LOW_CONFIDENCE
    assert no_dedup_mock.stats()["calls"] == {}
    await ex.aclose()


async def test_live_owner_clears_in_flight_after_a_failure(no_dedup_mock, redis_server) -> None:
    ex = _replica(no_dedup_mock.url, redis_server.url)
    ctx = ExecContext(thought_id="th-fail-1", step_id="t1")
    no_dedup_mock.script("503", tools=["submit_expense"])  # a definite failure, no effect
    first = await ex.execute("submit_expense", EXPENSE, ctx)
    assert first.error_info is not None and first.error_info.error_type is ErrorType.TOOL_TRANSIENT
    second = await ex.execute("submit_expense", EXPENSE, ctx)  # the caller's retry may run it
    assert second.error_info is None and no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    third = await ex.execute("submit_expense", EXPENSE, ctx)
    assert third.attempts == 0 and third.parsed_data == second.parsed_data
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    await ex.aclose()


async def test_redis_down_refuses_the_side_effect(no_dedup_mock) -> None:
    srv = RedisServer().start()
    ex = _replica(no_dedup_mock.url, srv.url)
    srv.close()
    res = await ex.execute("submit_expense", EXPENSE, ExecContext(thought_id="th-down", step_id="t1"))
    assert res.error_info is not None and res.error_info.error_type is ErrorType.TOOL_TRANSIENT
    assert "idempotency store unavailable" in res.error_info.message
    assert no_dedup_mock.stats()["calls"] == {}
    # idempotent (read) tools do not need the store
    ok = await ex.execute("get_weather", {"city": "北京", "date": "2026-11-16"}, ExecContext(step_id="t2"))
    assert ok.error_info is None
    await ex.aclose()


async def test_memory_backend_locks_and_ttls() -> None:
    class Clock:
        t = 0.0

        def __call__(self) -> float:
            return self.t

    clock = Clock()
    be = MemoryIdempotency(clock=clock)
    assert await be.acquire("k", "a", 1000) and not await be.acquire("k", "b", 1000)
    assert not await be.refresh("k", "b", 1000) and await be.refresh("k", "a", 1000)
    await be.release("k", "b")  # not the owner: no effect
    assert await be.lock_ttl_ms("k") == 1000
    clock.t = 1.0
    assert await be.acquire("k", "b", 1000)  # expired: the next owner gets it
    await be.put("r", b"v", 500)
    assert await be.get("r") == b"v" and not await be.put_new("r", b"w", 500)
    clock.t = 1.5
    assert await be.get("r") is None and await be.put_new("r", b"w", 500)


async def test_in_process_backend_runs_a_step_once(no_dedup_mock) -> None:
    ex = make_executor(no_dedup_mock.url, timeout_s=3.0)
    ctx = ExecContext(thought_id="th-mem", step_id="t1")
    results = await asyncio.gather(*[ex.execute("submit_expense", EXPENSE, ctx) for _ in range(5)])
    assert all(r.error_info is None for r in results)
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    await ex.aclose()


class PayArgs(BaseModel):
    account: str
    amount: float


async def test_python_tools_receive_the_idempotency_key() -> None:
    seen: list[tuple[str | None, str | None]] = []
    effects: list[str] = []
    reg = ToolRegistry()

    @reg.function(
        name="pay",
        description="Pay an account.",
        args_model=PayArgs,
        idempotent=False,
        permission=Permission.WRITE,
        write_limit=1,
    )
    def pay(account: str, amount: float, idempotency_key: str | None = None) -> dict:
        call = CURRENT_CALL.get()
        seen.append((idempotency_key, call.idempotency_key if call else None))
        effects.append(account)
        return {"paid": amount}

    @reg.function(name="balance", description="Read a balance.", args_model=PayArgs)
    def balance(account: str, amount: float) -> dict:  # no key parameter: called without one
        call = CURRENT_CALL.get()
        seen.append((None, call.idempotency_key if call else "missing"))
        return {"balance": 1.0}

    ex = ToolExecutor(reg, ExecutorConfig())
    ctx = ExecContext(thought_id="th-py", step_id="t1")
    r1 = await ex.execute("pay", {"account": "A1", "amount": 3.0}, ctx)
    r2 = await ex.execute("pay", {"account": "A1", "amount": 3.0}, ctx)
    await ex.execute("balance", {"account": "A1", "amount": 0.0}, ctx)
    expected = idempotency_key("th-py", "t1", "pay", {"account": "A1", "amount": 3.0})
    assert r1.error_info is None and r2.attempts == 0 and effects == ["A1"]
    assert seen == [(expected, expected), (None, None)]
