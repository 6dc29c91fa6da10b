"""Replay by argument digest (issue 16): a trajectory stores arguments redacted, so a replay that
keyed its calls by the stored text would make a new idempotency key and repeat the side effect.
Each ``tool_start`` records the digest of the original resolved arguments; a replay keys each step
by it. Against the mock with dedup off (it ignores ``Idempotency-Key``), on a real Redis shared by
the original run and the replaying process: 1 side effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from action_helpers import demo_session, plan

from tao.action.dedup import DedupConfig
from tao.action.executor import ExecutorConfig, ToolExecutor
from tao.action.idempotency import MemoryIdempotency, args_digest
from tao.action.idempotency_redis import RedisIdempotency
from tao.action.registry import ToolRegistry
from tao.contracts import ErrorType, EventKind
from tao.domains.reference.registry import reference_tools
from tao.loop.loop import LoopConfig, TaoLoop
from tao.loop.planner import ReplayPlanner
from tao.trace.trajectory import JsonlSink, Sink, load_jsonl, replay

# the description carries an email: the trajectory stores it as [REDACTED:EMAIL]
EXPENSE = {
    "amount": 42.0,
    "category": "meal",
    "date": "2026-11-14",
    "description": "lunch with li.na@example.com",
}


@pytest.fixture
def no_dedup_mock(mock_tools):
    mock_tools.svc.state.dedup = False
    try:
        yield mock_tools
    finally:
        mock_tools.svc.state.dedup = True


def _executor(url: str, idem: Any) -> ToolExecutor:
    reg = ToolRegistry()
    reg.register_http(reference_tools(), url)
    return ToolExecutor(reg, ExecutorConfig(timeout_override_s=3.0, dedup=DedupConfig()), idempotency=idem)


def _loop(ex: ToolExecutor, p: Any, sink_path: Path | None = None) -> TaoLoop:
    sinks: list[Sink] = [JsonlSink(sink_path)] if sink_path else []
    return TaoLoop(ReplayPlanner(p), ex, config=LoopConfig(retry_jitter_s=(0.005, 0.02)), sinks=sinks)


async def _record(url: str, redis_url: str, path: Path) -> tuple[Any, Any]:
    ex = _executor(url, RedisIdempotency.from_url(redis_url))
    report = await _loop(ex, plan(("t1", "submit_expense", EXPENSE)), path).run("报销", demo_session())
    await ex.aclose()
    return report, replay(load_jsonl(path))


async def test_replay_of_a_redacted_trajectory_has_one_side_effect(
    no_dedup_mock, redis_server, tmp_path
) -> None:
    first, rec = await _record(no_dedup_mock.url, redis_server.url, tmp_path / "t.jsonl")
    assert first.status.value == "success", first.to_dict()
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    recorded = rec.plan["steps"][0]["arguments"]["description"]
    assert "li.na@example.com" not in recorded  # stored redacted: it cannot rebuild the key
    assert rec.arg_digests() == {"t1": args_digest(EXPENSE)}

    # "another process": a fresh executor on the same Redis, keyed by the recorded digest
    ex = _executor(no_dedup_mock.url, RedisIdempotency.from_url(redis_server.url))
    again = await _loop(ex, rec.replay_plan()).run(rec.request, demo_session(), arg_digests=rec.arg_digests())
    assert again.status.value == "success" and again.thought_id == first.thought_id, again.to_dict()
    assert again.steps[0].deduplicated and again.answer == first.answer
    key = [
        next(e for e in r.events if e.kind is EventKind.TOOL_END).payload["idempotency_key"]
        for r in (first, again)
    ]
    assert key[0] and key[0] == key[1]  # the original call's key
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    assert no_dedup_mock.stats()["calls"] == {"submit_expense": 1}

    # without the digest the redacted text makes a new key: the side effect repeats (the bug)
    blind = await _loop(ex, rec.replay_plan()).run(rec.request, demo_session())
    assert blind.status.value == "success"
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 2}
    await ex.aclose()


async def test_replay_without_the_record_is_not_re_executed(no_dedup_mock, redis_server, tmp_path) -> None:
    """Replayed somewhere that never saw the original call's record (another store): the redacted
    arguments differ from the recorded digest, so the call is not made → LOW_CONFIDENCE."""
    _, rec = await _record(no_dedup_mock.url, redis_server.url, tmp_path / "t.jsonl")
    ex = _executor(no_dedup_mock.url, MemoryIdempotency())
    again = await _loop(ex, rec.replay_plan()).run(rec.request, demo_session(), arg_digests=rec.arg_digests())
    assert again.status.value == "needs_user" and again.error_type is ErrorType.LOW_CONFIDENCE, (
        again.to_dict()
    )
    assert "not re-executed" in again.steps[0].message
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    await ex.aclose()


async def test_the_digest_keys_the_call_even_when_arguments_match(
    no_dedup_mock, redis_server, tmp_path
) -> None:
    """Arguments with nothing to redact replay identically: the same digest, the same key."""
    p = plan(("t1", "submit_expense", dict(EXPENSE, description="team lunch")))
    path = tmp_path / "t.jsonl"
    ex = _executor(no_dedup_mock.url, RedisIdempotency.from_url(redis_server.url))
    first = await _loop(ex, p, path).run("报销", demo_session())
    rec = replay(load_jsonl(path))
    again = await _loop(ex, rec.replay_plan()).run(rec.request, demo_session(), arg_digests=rec.arg_digests())
    assert first.status.value == again.status.value == "success" and again.steps[0].deduplicated
    assert no_dedup_mock.stats()["side_effects"] == {"submit_expense": 1}
    await ex.aclose()
