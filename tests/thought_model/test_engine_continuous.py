"""Continuous batching in the CPU engine (``thought_model.engine.scheduler`` + ``DecodeBatch``): rows
that join a running batch at step boundaries, leave it when done, and are cancelled or time out
in the queue give, token for token, the output of decoding each one alone."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import torch

from tao.contracts import ErrorType
from thought_model.engine.base import PlanRequest
from thought_model.engine.codec import GenericCodec
from thought_model.engine.cpu import CpuEngine, CpuEngineConfig, Scheduling
from thought_model.engine.decode import DecodeBatch, DecodeConfig, Row
from thought_model.engine.scheduler import SchedulerConfig

pytestmark = pytest.mark.slow  # loads a model: runs in `make test`, not `make test-fast`

BOUNDED = ["get_weather", "get_order_status", "get_user_profile", "get_invoice", "get_logistics"]
TEXTS = [
    "weather in Paris tomorrow",
    "status of order 123456789012345678",
    "查询用户 U12345678 的资料",
    "invoice INV1234567890 and where is my parcel",
    "where is my parcel",
    "天气",
    "order 999999999999999999 and invoice INV0000000001 for user U00000001 please, quickly",
    "x",
]
REQUESTS = [PlanRequest(t, tools=BOUNDED) for t in TEXTS]


@pytest.fixture(scope="module")
def engine(tiny_checkpoint):
    eng = CpuEngine(
        tiny_checkpoint,
        CpuEngineConfig(decode=DecodeConfig(max_new_tokens=160), scheduler=SchedulerConfig(max_batch=4)),
        codec=GenericCodec(),
    )
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def alone(engine):
    """Each request decoded by itself (batch of one, no scheduler): the reference output."""
    out = []
    for r in REQUESTS:
        res = engine.generate_batch([r])[0]
        assert res.stats.generated_tokens > 0
        out.append(res)
    return out


def _rows(engine: CpuEngine, requests: list[PlanRequest]) -> list[Row]:
    now = time.perf_counter()
    rows = [engine._prepare(r, now) for r in requests]
    assert all(isinstance(r, Row) for r in rows)
    return [r for r in rows if isinstance(r, Row)]


def test_packed_forward_equals_padded(engine):
    """forward_packed (packed linears, per-row attention) gives forward's logits on rows of
    different lengths at different cache offsets."""
    m = engine.model
    fed = [[5, 9, 33, 71, 12, 40], [7], [8, 100, 3]]
    with torch.inference_mode():
        a, b = m.new_cache(3, 64), m.new_cache(3, 64)
        for c in (a, b):
            c.lengths[:] = torch.tensor([0, 0, 0])
        warm = [[11, 12, 13], [14, 15, 16, 17, 18], [19]]  # a first pass, so the offsets differ
        for c in (a, b):
            m.forward_packed(warm, c, [len(w) - 1 for w in warm])
            c.lengths += torch.tensor([len(w) for w in warm])
        toks = torch.zeros((3, 6), dtype=torch.long)
        for i, f in enumerate(fed):
            toks[i, : len(f)] = torch.tensor(f)
        ref = m.forward(toks, torch.tensor([len(f) for f in fed]), a)
        got, offsets = m.forward_packed(fed, b, [0, 0, 0])
    for i, f in enumerate(fed):
        assert torch.allclose(got[offsets[i] : offsets[i] + len(f)], ref[i, : len(f)], atol=1e-5)
    for la, lb in zip(a.k, b.k, strict=True):  # the same keys were written (real positions only)
        for i, f in enumerate(fed):
            n = int(a.lengths[i]) + len(f)
            assert torch.allclose(la[i, :n], lb[i, :n], atol=1e-5)


def test_rows_joining_and_leaving_a_running_batch_decode_as_alone(engine, alone):
    """Rows join at different steps (one mid-way through the others' decoding), finished rows
    leave and their slots are reused: every output equals its solo decode, token for token."""
    rows = _rows(engine, REQUESTS)
    batch = DecodeBatch(engine.decoder, max_rows=3)
    waiting = list(range(len(rows)))
    finished: dict[int, Row] = {}
    index = {id(r): i for i, r in enumerate(rows)}
    joined_mid = 0
    step = 0
    with torch.inference_mode():
        while waiting or len(batch):
            # admit one new row every other step while there is room (so joins land mid-decode)
            if waiting and batch.free and (step % 2 == 0 or not len(batch)):
                joined_mid += len(batch) > 0 and any(r.out_ids for r in batch.rows)
                batch.add(rows[waiting.pop(0)])
            for r in batch.step():
                finished[index[id(r)]] = r
            step += 1
    assert joined_mid >= 3
    for i, ref in enumerate(alone):
        row = finished[i]
        assert engine.decoder.text(row) == ref.text, TEXTS[i]
        assert row.stats.generated_tokens == ref.stats.generated_tokens


def test_concurrent_requests_join_the_running_batch(engine, alone):
    """Through the scheduler: staggered threads (arrivals while others decode) and more requests
    than slots (a queue) still give the solo outputs; rows joined a batch that was running."""
    engine._batcher.batch_sizes.clear()
    before = engine._batcher.joined_running
    got: dict[int, str] = {}

    def one(i: int) -> None:
        time.sleep(0.002 * i)
        got[i] = engine.generate([REQUESTS[i]])[0].text

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(REQUESTS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert [got[i] for i in range(len(REQUESTS))] == [a.text for a in alone]
    assert engine._batcher.joined_running > before
    assert max(engine._batcher.batch_sizes) >= 2
    assert max(engine._batcher.batch_sizes) <= 4  # never more rows than slots


async def test_async_requests_through_the_scheduler(engine, alone):
    got = await asyncio.gather(*(engine.agenerate_one(r) for r in REQUESTS))
    assert [g.text for g in got] == [a.text for a in alone]


def test_cancelled_request_frees_its_slot(engine, alone):
    """A caller that gives up (its future cancelled) is dropped at the next step boundary; the
    others finish with their solo outputs and the batch empties."""
    rows = _rows(engine, REQUESTS[:4])
    futs = [engine._batcher.submit(r) for r in rows]
    futs[0].cancel()
    for f in futs[1:]:
        f.result(timeout=120)
    for i in (1, 2, 3):
        assert engine.decoder.text(futs[i].result()) == alone[i].text
    assert futs[0].cancelled()


def test_deadline_passed_in_the_queue_is_a_typed_error(engine):
    res = engine.generate([PlanRequest("weather in Paris", tools=["get_weather"], deadline_s=1e-9)])[0]
    assert res.output is None and res.error is not None
    assert res.error.error_type == ErrorType.BUDGET_EXHAUSTED


def test_window_scheduling_gives_the_same_outputs(tiny_checkpoint, alone):
    """The earlier design (gather a window, run it to completion) stays available and equal."""
    eng = CpuEngine(
        tiny_checkpoint,
        CpuEngineConfig(decode=DecodeConfig(max_new_tokens=160), scheduling=Scheduling.WINDOW),
        codec=GenericCodec(),
    )
    try:
        assert [r.text for r in eng.generate(REQUESTS)] == [a.text for a in alone]
    finally:
        eng.close()
