"""The CPU plan engine: lean Llama forward + KV cache, xgrammar masks, jump-forward, dynamic batching.

Usage::

    engine = CpuEngine("thought_model/checkpoints/default")
    [result] = engine.generate([PlanRequest("查询上个月的订单状态")])
    result.output  # ThoughtPlan | InsufficientContext, or result.error (ErrorInfo)
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
import xgrammar as xgr

from tao.contracts import ErrorInfo, ErrorType
from thought_model.checkpoint import checkpoint_domain
from thought_model.engine.base import PlanEngine, PlanRequest, PlanResult
from thought_model.engine.batcher import BatcherConfig, DynamicBatcher
from thought_model.engine.codec import PlanCodec, default_codec, error_info_from
from thought_model.engine.decode import DecodeConfig, Decoder, Row
from thought_model.engine.lean import LeanLlama


@dataclass
class CpuEngineConfig:
    threads: int = 1  # torch intra-op threads; 1 is fastest for small models on a shared CPU
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    batch: BatcherConfig = field(default_factory=BatcherConfig)
    max_prompt_tokens: int = 1024
    dtype: str = "float32"


def load_tokenizer(checkpoint: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(checkpoint))


_ANCHOR_START = re.compile(r"(?<=[(|])\^")
_ANCHOR_END = re.compile(r"(?<!\\)\$(?=[)|])")


def _strip_inner_anchors(node):
    """xgrammar ignores (and loudly warns about) ``^``/``$`` inside alternations; drop them."""
    if isinstance(node, dict):
        out = {k: _strip_inner_anchors(v) for k, v in node.items()}
        if isinstance(out.get("pattern"), str):
            out["pattern"] = _ANCHOR_END.sub("", _ANCHOR_START.sub("", out["pattern"]))
        return out
    if isinstance(node, list):
        return [_strip_inner_anchors(v) for v in node]
    return node


class GrammarCache:
    """Compiles each distinct JSON Schema once per tokenizer and keeps it."""

    def __init__(self, tokenizer, vocab_size: int, eos_id: int) -> None:
        info = xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab_size, stop_token_ids=[eos_id])
        self._compiler = xgr.GrammarCompiler(info, max_threads=1)
        self._cache: dict[str, xgr.CompiledGrammar] = {}
        self._lock = threading.Lock()

    def get(self, schema: dict) -> xgr.CompiledGrammar:
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        with self._lock:
            hit = self._cache.get(key)
            if hit is None:
                clean = json.dumps(_strip_inner_anchors(schema), ensure_ascii=False)
                hit = self._compiler.compile_json_schema(clean, any_whitespace=False, separators=(",", ":"))
                if len(self._cache) >= 1024:  # bounded (per-request grammars vary by slot set)
                    self._cache.pop(next(iter(self._cache)))
                self._cache[key] = hit
            return hit


class CpuEngine(PlanEngine):
    """Constrained greedy plan generation on CPU (see module docstring)."""

    name = "cpu"

    def __init__(
        self, checkpoint: str | Path, config: CpuEngineConfig | None = None, codec: PlanCodec | None = None
    ) -> None:
        from transformers import LlamaForCausalLM

        self.checkpoint = Path(checkpoint)
        self.cfg = config or CpuEngineConfig()
        self.codec = codec or default_codec(checkpoint_domain(checkpoint))
        torch.set_num_threads(self.cfg.threads)
        dtype = getattr(torch, self.cfg.dtype)
        hf = LlamaForCausalLM.from_pretrained(str(self.checkpoint), dtype=dtype).eval()
        self.tokenizer = load_tokenizer(self.checkpoint)
        self.vocab_size = hf.config.vocab_size
        eos = hf.config.eos_token_id if hf.config.eos_token_id is not None else self.tokenizer.eos_token_id
        self.eos_id = int(eos[0] if isinstance(eos, list) else eos)
        self.model = LeanLlama(hf)
        del hf
        self.grammars = GrammarCache(self.tokenizer, self.vocab_size, self.eos_id)
        self._by_tools: dict[tuple[tuple[str, ...] | None, frozenset[str] | None], xgr.CompiledGrammar] = {}
        self.decoder = Decoder(self.model, self.tokenizer, self.vocab_size, self.eos_id, self.cfg.decode)
        self._lock = threading.Lock()
        self._batcher = DynamicBatcher(
            self._run_batch, self.cfg.batch, on_start=lambda: torch.set_num_threads(self.cfg.threads)
        )

    # -- public API ---------------------------------------------------------------------------
    def generate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        futures = [self._batcher.submit((r, time.perf_counter())) for r in requests]
        return [f.result() for f in futures]

    def generate_batch(self, requests: list[PlanRequest]) -> list[PlanResult]:
        """Run exactly these requests as one batch on the calling thread (benchmarks, tests)."""
        now = time.perf_counter()
        return self._run_batch([(r, now) for r in requests])

    async def agenerate(self, requests: list[PlanRequest]) -> list[PlanResult]:
        import asyncio

        futures = [asyncio.wrap_future(self._batcher.submit((r, time.perf_counter()))) for r in requests]
        return list(await asyncio.gather(*futures))

    def close(self) -> None:
        self._batcher.close()

    # -- internals ----------------------------------------------------------------------------
    def _prepare(self, request: PlanRequest, submitted: float) -> Row | PlanResult:
        try:
            prompt, ctx = self.codec.prepare(request)
            grammar = self._grammar_for(request.tools, self.codec.slots(request, ctx))
        except Exception as exc:
            return PlanResult(
                error=ErrorInfo(
                    error_type=ErrorType.TOOL_UNKNOWN if request.tools else ErrorType.PLAN_INVALID,
                    message=str(exc)[:500],
                    field="/tools",
                )
            )
        ids = self.tokenizer.encode(prompt, add_special_tokens=False)  # prompts carry their own BOS
        limit = min(self.cfg.max_prompt_tokens, self.model.max_positions - 16)
        if len(ids) > limit:
            return PlanResult(
                error=ErrorInfo(
                    error_type=ErrorType.BUDGET_EXHAUSTED,
                    field="/text",
                    message=f"prompt has {len(ids)} tokens, limit {limit}",
                )
            )
        deadline = submitted + request.deadline_s if request.deadline_s else None
        row = Row(
            prompt_ids=ids, grammar=grammar, deadline=deadline, max_new=self.model.max_positions - len(ids)
        )
        row.ctx = ctx
        return row

    def _grammar_for(
        self, tools: list[str] | None, slots: frozenset[str] | None = None
    ) -> xgr.CompiledGrammar:
        """The compiled grammar of a tool subset and (per request) the slots its perception found."""
        key = (None if tools is None else tuple(sorted(set(tools))), slots)
        hit = self._by_tools.get(key)
        if hit is None:
            hit = self.grammars.get(self.codec.schema(tools, slots))
            if len(self._by_tools) >= 1024:
                self._by_tools.pop(next(iter(self._by_tools)))
            self._by_tools[key] = hit
        return hit

    def _run_batch(self, items: list[tuple[PlanRequest, float]]) -> list[PlanResult]:
        prepared = [self._prepare(r, t) for r, t in items]
        rows = [p for p in prepared if isinstance(p, Row)]
        with self._lock, torch.inference_mode():
            self.decoder.run(rows)
        out: list[PlanResult] = []
        for (req, submitted), p in zip(items, prepared):
            if isinstance(p, PlanResult):
                out.append(p)
                continue
            out.append(self._finish(req, p, submitted))
        return out

    def _finish(self, req: PlanRequest, row: Row, submitted: float) -> PlanResult:
        text = self.decoder.text(row)
        row.stats.ms = (time.perf_counter() - submitted) * 1000.0
        if row.error == "deadline":
            return PlanResult(
                error=ErrorInfo(
                    error_type=ErrorType.BUDGET_EXHAUSTED,
                    retryable=True,
                    message=f"deadline of {req.deadline_s}s exceeded",
                ),
                stats=row.stats,
                text=text,
            )
        if row.error is not None:
            msg = {
                "length": f"output exceeded {row.max_new} tokens (max_new_tokens or context window)",
                "grammar": "no token allowed by the grammar",
            }[row.error]
            return PlanResult(
                error=ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message=msg),
                stats=row.stats,
                text=text,
            )
        try:
            output = self.codec.parse(text, req, row.ctx)
        except Exception as exc:
            return PlanResult(error=error_info_from(exc), stats=row.stats, text=text)
        return PlanResult(output=output, stats=row.stats, text=text)
