"""The CPU plan engine on a random tiny Llama: lean forward vs transformers, jump-forward
equivalence, the schema guarantee (every plan passes check_plan), batching, deadlines, errors."""

from __future__ import annotations

import asyncio

import pytest
import torch

from tao.contracts import ErrorType, ThoughtPlan
from tao.loop.plancheck import PlanValidator
from thought_model.engine.base import PlanRequest
from thought_model.engine.codec import GenericCodec
from thought_model.engine.cpu import CpuEngine, CpuEngineConfig
from thought_model.engine.decode import DecodeConfig

pytestmark = pytest.mark.slow  # heavy module: runs in `make test`, not `make test-fast`

# tools whose argument fields are all bounded, so a random model always finishes a plan
BOUNDED = ["get_weather", "get_order_status", "get_user_profile", "get_invoice", "get_logistics"]
REQUESTS = [
    PlanRequest("weather in Paris tomorrow", tools=["get_weather"]),
    PlanRequest("status of order 123456789012345678", tools=BOUNDED),
    PlanRequest("查询用户 U12345678 的资料", tools=BOUNDED),
    PlanRequest("invoice INV1234567890 and where is my parcel", tools=BOUNDED),
]


@pytest.fixture(scope="module")
def engine(tiny_checkpoint):
    eng = CpuEngine(
        tiny_checkpoint, CpuEngineConfig(decode=DecodeConfig(max_new_tokens=256)), codec=GenericCodec()
    )
    yield eng
    eng.close()


def _set_jf(engine: CpuEngine, on: bool) -> None:
    engine.decoder.cfg.jump_forward = on


def test_lean_forward_matches_transformers(tiny_checkpoint, engine):
    from transformers import LlamaForCausalLM

    hf = LlamaForCausalLM.from_pretrained(str(tiny_checkpoint)).eval()
    a = torch.tensor([[5, 9, 33, 71, 12, 40]])
    b = torch.tensor([[7, 8, 100]])
    cache = engine.model.new_cache(2, 32)
    toks = torch.zeros((2, 6), dtype=torch.long)
    toks[0], toks[1, :3] = a[0], b[0]
    out = engine.model.forward(toks, torch.tensor([6, 3]), cache)  # padded, per-row lengths
    with torch.no_grad():
        ref_a, ref_b = hf(a).logits[0], hf(b).logits[0]
    assert torch.allclose(out[0], ref_a, atol=1e-4)
    assert torch.allclose(out[1, :3], ref_b, atol=1e-4)
    cache.lengths += torch.tensor([6, 3])
    step = engine.model.forward(torch.tensor([[3], [4]]), torch.tensor([1, 1]), cache)  # cached decode
    with torch.no_grad():
        ref_a2 = hf(torch.cat([a, torch.tensor([[3]])], 1)).logits[0, -1]
        ref_b2 = hf(torch.cat([b, torch.tensor([[4]])], 1)).logits[0, -1]
    assert torch.allclose(step[0, 0], ref_a2, atol=1e-4)
    assert torch.allclose(step[1, 0], ref_b2, atol=1e-4)


def test_jump_forward_equivalence(engine):
    """Greedy output with jump-forward equals token-by-token constrained decoding, in fewer passes."""
    _set_jf(engine, False)
    plain = [engine.generate_batch([r])[0] for r in REQUESTS]
    _set_jf(engine, True)
    jumped = [engine.generate_batch([r])[0] for r in REQUESTS]
    for p, j in zip(plain, jumped):
        assert j.text == p.text
        assert p.stats.forward_passes == p.stats.generated_tokens
        assert j.stats.forward_passes + j.stats.jump_forward_tokens == j.stats.generated_tokens
    assert sum(j.stats.jump_forward_tokens for j in jumped) > 0
    assert sum(j.stats.forward_passes for j in jumped) < sum(p.stats.forward_passes for p in plain)


def test_every_plan_passes_check_plan(engine):
    """The schema guarantee: constrained output always parses and passes check_plan."""
    validator = PlanValidator()
    texts = [f"request {i}: order {i:018d} for user U{i:08d} in city {i}" for i in range(12)]
    results = engine.generate_batch([PlanRequest(t, tools=BOUNDED) for t in texts])
    for res in results:
        assert res.ok, (res.error, res.text)
        assert isinstance(res.output, ThoughtPlan)
        check = validator.check(res.output.model_dump(mode="json", exclude={"thought_id", "created_at"}))
        assert check["valid"], check


def test_batched_equals_single(engine):
    single = [engine.generate_batch([r])[0].text for r in REQUESTS]
    batched = [r.text for r in engine.generate_batch(REQUESTS)]
    assert batched == single


async def test_async_dynamic_batching(engine):
    expected = [engine.generate_batch([r])[0].text for r in REQUESTS]
    engine._batcher.batch_sizes.clear()
    got = await asyncio.gather(*(engine.agenerate_one(r) for r in REQUESTS))
    assert [g.text for g in got] == expected
    assert max(engine._batcher.batch_sizes) >= 2  # concurrent requests were decoded together
    sync = engine.generate(REQUESTS)  # the synchronous API goes through the same batcher
    assert [s.text for s in sync] == expected


def test_deadline_is_a_typed_error(engine):
    res = engine.generate([PlanRequest("weather in Paris", tools=["get_weather"], deadline_s=1e-6)])[0]
    assert res.output is None and res.error.error_type == ErrorType.BUDGET_EXHAUSTED


def test_length_limit_is_a_typed_error(tiny_checkpoint):
    eng = CpuEngine(
        tiny_checkpoint, CpuEngineConfig(decode=DecodeConfig(max_new_tokens=8)), codec=GenericCodec()
    )
    try:
        res = eng.generate_batch([PlanRequest("weather", tools=["get_weather"])])[0]
    finally:
        eng.close()
    assert res.error.error_type == ErrorType.LLM_OUTPUT_MALFORMED
    assert res.stats.generated_tokens == 8


def test_unknown_tool_subset_is_a_typed_error(engine):
    res = engine.generate([PlanRequest("x", tools=["no_such_tool"])])[0]
    assert res.error.error_type == ErrorType.TOOL_UNKNOWN


def test_grammar_compiled_once_per_schema(engine):
    before = len(engine.grammars._cache)
    engine.generate_batch([PlanRequest("a", tools=["get_weather"]), PlanRequest("b", tools=["get_weather"])])
    engine.generate_batch([PlanRequest("c", tools=["get_weather"])])
    assert len(engine.grammars._cache) - before <= 1
