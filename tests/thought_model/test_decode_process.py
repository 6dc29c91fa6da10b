"""``thought_model.engine.decode_process``: the CPU engine decoding in a child process gives, token
for token, the in-process engine's output; bad subsets stay typed errors; cancelled rows are
dropped; a child killed mid-call fails its rows with ``EngineUnavailableError`` and is restarted
with the grammars it knew."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest

from tao.contracts import ErrorType
from thought_model.engine.base import EngineUnavailableError, PlanRequest
from thought_model.engine.codec import GenericCodec
from thought_model.engine.cpu import CpuEngine, CpuEngineConfig
from thought_model.engine.decode import DecodeConfig, Row
from thought_model.engine.decode_process import DecodeProcessConfig
from thought_model.engine.scheduler import SchedulerConfig

pytestmark = pytest.mark.slow  # loads a model in two processes: `make test`, not `make test-fast`

BOUNDED = ["get_weather", "get_order_status", "get_user_profile", "get_invoice", "get_logistics"]
TEXTS = [
    "weather in Paris tomorrow",
    "status of order 123456789012345678",
    "查询用户 U12345678 的资料",
    "invoice INV1234567890 and where is my parcel",
    "where is my parcel",
    "x",
]
REQUESTS = [PlanRequest(t, tools=BOUNDED) for t in TEXTS]


def _config(process: bool) -> CpuEngineConfig:
    return CpuEngineConfig(
        decode=DecodeConfig(max_new_tokens=160),
        scheduler=SchedulerConfig(max_batch=4),
        decode_process=process,
    )


@pytest.fixture(scope="module")
def local(tiny_checkpoint):
    eng = CpuEngine(tiny_checkpoint, _config(False), codec=GenericCodec())
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def remote(tiny_checkpoint):
    eng = CpuEngine(tiny_checkpoint, _config(True), codec=GenericCodec())
    yield eng
    eng.close()


def _same(a, b) -> None:
    assert a.text == b.text
    assert (a.error is None) == (b.error is None)
    assert a.stats.generated_tokens == b.stats.generated_tokens
    assert a.stats.forward_passes == b.stats.forward_passes


def test_the_child_is_a_separate_process(remote) -> None:
    assert remote._proc is not None and remote._proc.alive
    assert remote._proc.pid not in (None, os.getpid())


def test_outputs_equal_the_in_process_engine(local, remote) -> None:
    want = local.generate(REQUESTS)
    got = remote.generate(REQUESTS)
    assert any(r.stats.generated_tokens > 0 for r in got)
    for a, b in zip(want, got, strict=True):
        _same(a, b)


def test_concurrent_async_requests_decode_together_and_equal_alone(local, remote) -> None:
    want = [local.generate_batch([r])[0] for r in REQUESTS]

    async def many():
        return await asyncio.gather(*(remote.agenerate_one(r) for r in REQUESTS * 3))

    got = asyncio.run(many())
    for i, res in enumerate(got):
        _same(want[i % len(REQUESTS)], res)
    assert remote._proc.waiting == 0  # nothing left pending in the parent


def test_generate_batch_still_runs_in_this_process(remote, local) -> None:
    a = local.generate_batch(REQUESTS[:2])
    b = remote.generate_batch(REQUESTS[:2])
    for x, y in zip(a, b, strict=True):
        _same(x, y)


def test_a_subset_with_no_known_tool_is_a_typed_error(remote) -> None:
    [res] = remote.generate([PlanRequest("weather", tools=["no_such_tool"])])
    assert res.error is not None and res.error.error_type is ErrorType.TOOL_UNKNOWN


def test_a_missed_deadline_is_budget_exhausted(remote) -> None:
    [res] = remote.generate([PlanRequest(TEXTS[0], tools=BOUNDED, deadline_s=1e-6)])
    assert res.error is not None and res.error.error_type is ErrorType.BUDGET_EXHAUSTED


def test_cancelled_callers_leave_nothing_pending(remote) -> None:
    async def scenario() -> None:
        tasks = [asyncio.create_task(remote.agenerate_one(r)) for r in REQUESTS * 4]
        await asyncio.sleep(0.01)
        for t in tasks[4:]:
            t.cancel()
        done = await asyncio.gather(*tasks, return_exceptions=True)
        assert sum(isinstance(d, asyncio.CancelledError) for d in done) >= 1

    asyncio.run(scenario())
    end = time.monotonic() + 10
    while remote._proc.waiting and time.monotonic() < end:
        time.sleep(0.05)
    assert remote._proc.waiting == 0
    [res] = remote.generate([REQUESTS[0]])  # the child still serves
    assert res.stats.generated_tokens > 0


def _slow_schema(tag: str) -> dict:
    """A schema xgrammar needs seconds to compile (an enum of 8,000 strings)."""
    values = [f"{tag}-{i}-{i * 7919 % 10007}" for i in range(8000)]
    return {"type": "object", "properties": {"x": {"enum": values}}, "required": ["x"]}


def test_a_cold_grammar_compiles_beside_the_rows_of_warm_ones(remote) -> None:
    """A grammar compiles on the child's compile thread: a row of a known grammar sent after a
    slow compile is decoded meanwhile; the warm-up's sync still waits for the compile; a row of
    the grammar being compiled waits for it, and one cancelled while it waits is dropped."""
    proc = remote._proc
    warm = remote._prepare(REQUESTS[0], time.perf_counter())
    assert isinstance(warm, Row) and warm.grammar_id is not None
    t0 = time.perf_counter()
    proc.grammar_id(("test-slow", "a"), lambda: _slow_schema("a"))
    done_at: list[float] = []
    fut = proc.submit(warm)
    fut.add_done_callback(lambda f: done_at.append(time.perf_counter()))
    assert proc.sync(timeout=300)
    synced_at = time.perf_counter()
    assert fut.done() and fut.result().error is None and fut.result().out_ids
    # in order, the row would only have been taken after the compile (~3 s here)
    assert done_at[0] - t0 < 0.5 * (synced_at - t0), (done_at[0] - t0, synced_at - t0)

    ids = warm.prompt_ids
    held = proc.grammar_id(("test-slow", "b"), lambda: _slow_schema("b"))
    waiting = proc.submit(Row(prompt_ids=ids, grammar=None, grammar_id=held, max_new=24))
    dropped = proc.submit(Row(prompt_ids=ids, grammar=None, grammar_id=held, max_new=24))
    dropped.cancel()
    row = waiting.result(timeout=300)  # decoded under the grammar once it compiled
    assert row.done and (row.error is not None or row.out_ids)
    assert dropped.cancelled() and proc.waiting == 0
    [res] = remote.generate([REQUESTS[0]])  # the child still serves
    assert res.stats.generated_tokens > 0


def test_the_parent_loads_neither_torch_nor_xgrammar(tiny_checkpoint) -> None:
    """With a decode process the parent keeps only the tokenizer and the codec: a fresh
    interpreter plans through the child without importing torch or xgrammar (~0.5 GB per worker)."""
    code = (
        "import sys\n"
        "from thought_model.engine.codec import GenericCodec\n"
        "from thought_model.engine.cpu import CpuEngine, CpuEngineConfig\n"
        "from thought_model.engine.base import PlanRequest\n"
        f"e = CpuEngine({str(tiny_checkpoint)!r}, CpuEngineConfig(decode_process=True), codec=GenericCodec())\n"
        f"[r] = e.generate([PlanRequest({TEXTS[0]!r}, tools={BOUNDED!r})])\n"
        "assert r.stats.generated_tokens > 0, r\n"
        "e.close()\n"
        "print(sorted(m for m in ('torch', 'xgrammar') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_config_round_trips_through_json() -> None:
    cfg = DecodeProcessConfig(
        "ckpt", threads=2, decode=DecodeConfig(max_new_tokens=7), scheduler=SchedulerConfig(max_batch=3)
    )
    assert DecodeProcessConfig.from_json(cfg.to_json()) == cfg


def test_a_killed_child_fails_its_rows_typed_and_is_restarted(tiny_checkpoint, local) -> None:
    eng = CpuEngine(tiny_checkpoint, _config(True), codec=GenericCodec())
    try:
        proc = eng._proc
        assert proc is not None
        first = proc.pid
        assert first is not None
        eng.generate([REQUESTS[0]])  # its grammar is known to the child

        async def scenario():
            tasks = [asyncio.create_task(eng.agenerate_one(r)) for r in REQUESTS * 8]
            await asyncio.sleep(0.005)
            os.kill(first, signal.SIGKILL)
            return await asyncio.gather(*tasks, return_exceptions=True)

        out = asyncio.run(scenario())
        failed = [o for o in out if isinstance(o, BaseException)]
        assert all(isinstance(o, EngineUnavailableError) for o in failed)  # typed, nothing else
        assert proc.waiting == 0  # no caller left hanging
        end = time.monotonic() + 120
        while (proc.restarts < 1 or not proc.alive) and time.monotonic() < end:
            time.sleep(0.1)
        assert proc.restarts == 1 and proc.alive and proc.pid != first
        assert proc.exits == 1 and eng.decode_process is proc
        want = local.generate(REQUESTS)
        got = eng.generate(REQUESTS)  # the restarted child has the grammars again
        for a, b in zip(want, got, strict=True):
            _same(a, b)
    finally:
        eng.close()
    assert not eng._proc.alive
    assert proc.exits == 1  # a close is not an exit
